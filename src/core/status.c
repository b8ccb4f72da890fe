/* SPDX-License-Identifier: BSD-3-Clause */
/* Status strings, the per-thread last-error sentence, and the names of
 * dtypes and ops. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#include "tcomm_internal.h"
#include "tcomm_log.h"

static _Thread_local char last_error[TCOMM_ERROR_LEN];
static _Thread_local tcomm_status_t last_status;

const char *tcomm_status_string(tcomm_status_t status)
{
    switch (status) {
    case TCOMM_SUCCESS: return "success";
    case TCOMM_ERR_INVALID_ARG: return "invalid argument";
    case TCOMM_ERR_SHAPE: return "shape error";
    case TCOMM_ERR_DTYPE: return "dtype error";
    case TCOMM_ERR_GRAPH_MISMATCH: return "graph mismatch";
    case TCOMM_ERR_MISMATCH: return "ranks disagree";
    case TCOMM_ERR_TIMEOUT: return "timeout";
    case TCOMM_ERR_UNSUPPORTED: return "unsupported";
    case TCOMM_ERR_NO_MEMORY: return "out of memory";
    case TCOMM_ERR_MPI: return "MPI error";
    case TCOMM_ERR_CUDA: return "CUDA error";
    case TCOMM_ERR_COMM_FAILED: return "communicator failed";
    case TCOMM_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *tcomm_status_name(tcomm_status_t status)
{
    static const char *const names[] = {
        "TCOMM_SUCCESS", "TCOMM_ERR_INVALID_ARG", "TCOMM_ERR_SHAPE",
        "TCOMM_ERR_DTYPE", "TCOMM_ERR_GRAPH_MISMATCH", "TCOMM_ERR_MISMATCH",
        "TCOMM_ERR_TIMEOUT", "TCOMM_ERR_UNSUPPORTED", "TCOMM_ERR_NO_MEMORY",
        "TCOMM_ERR_MPI", "TCOMM_ERR_CUDA", "TCOMM_ERR_COMM_FAILED",
        "TCOMM_ERR_INTERNAL"};
    return status <= 0 && -status < (int)(sizeof names / sizeof *names)
               ? names[-status] : "TCOMM_ERR_UNKNOWN";
}

/* The rank is not known this far down: the line carries none (a test or
 * a user reads each rank's standard error apart, or by the file). The
 * file is named from the source tree's root: a build outside the tree
 * (../../configure, as make distcheck does) compiles ../../src/x.c. */
tcomm_status_t tcomm_error_hop(tcomm_status_t status, const char *file,
                               int line, const char *func)
{
    while (file[0] == '.' &&
           (file[1] == '/' || (file[1] == '.' && file[2] == '/')))
        file += file[1] == '/' ? 2 : 3;
    TCOMM_INFO(-1, "hop %s:%d %s -> %s", file, line, func,
               tcomm_status_name(status));
    return status;
}

const char *tcomm_last_error(void)
{
    return last_error;
}

static tcomm_status_t record(tcomm_status_t status, const char *fmt,
                             va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    last_status = status;
    return status;
}

tcomm_status_t tcomm_error(tcomm_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(status, fmt, ap);
    va_end(ap);
    /* A broken invariant is tcomm's bug: say where to report it. */
    if (status == TCOMM_ERR_INTERNAL) {
        size_t n = strlen(last_error);
        snprintf(last_error + n, sizeof last_error - n,
                 " (a tcomm bug: please report it at " TCOMM_BUG_URL
                 " with this sentence and tcomm_info's output)");
    }
    return status;
}

tcomm_status_t tcomm_backend_error(tcomm_status_t status, const char *fmt,
                                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(status, fmt, ap);
    va_end(ap);
    return status;
}

void tcomm_error_clear(void)
{
    last_error[0] = '\0';
    last_status = TCOMM_SUCCESS;
}

void tcomm_get_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = TCOMM_VERSION_MAJOR;
    if (minor)
        *minor = TCOMM_VERSION_MINOR;
    if (patch)
        *patch = TCOMM_VERSION_PATCH;
}

static const struct {
    const char *name;
    size_t size;
} dtype_table[TCOMM_DTYPE_COUNT] = {
    [TCOMM_U8] = {"u8", 1},     [TCOMM_I8] = {"i8", 1},
    [TCOMM_I32] = {"i32", 4},   [TCOMM_U32] = {"u32", 4},
    [TCOMM_I64] = {"i64", 8},   [TCOMM_F16] = {"f16", 2},
    [TCOMM_BF16] = {"bf16", 2}, [TCOMM_F32] = {"f32", 4},
    [TCOMM_F64] = {"f64", 8},
};

size_t tcomm_dtype_size(tcomm_dtype_t dtype)
{
    return tcomm_dtype_valid(dtype) ? dtype_table[dtype].size : 0;
}

const char *tcomm_dtype_name(tcomm_dtype_t dtype)
{
    return tcomm_dtype_valid(dtype) ? dtype_table[dtype].name : "?";
}

const char *tcomm_op_name(tcomm_op_t op)
{
    static const char *const names[TCOMM_OP_COUNT] = {
        [TCOMM_SUM] = "sum", [TCOMM_PROD] = "prod", [TCOMM_MIN] = "min",
        [TCOMM_MAX] = "max", [TCOMM_AVG] = "avg"};
    return tcomm_op_valid(op) ? names[op] : "?";
}

void tcomm_error_keep(tcomm_error_kept_t *kept)
{
    kept->status = last_status;
    memcpy(kept->text, last_error, sizeof kept->text);
}

tcomm_status_t tcomm_error_restore(const tcomm_error_kept_t *kept)
{
    memcpy(last_error, kept->text, sizeof last_error);
    last_status = kept->status;
    return kept->status;
}
