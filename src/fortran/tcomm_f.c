/* SPDX-License-Identifier: BSD-3-Clause */
/* The C side of the Fortran module: communicator handles (created from a
 * Fortran MPI handle through MPI_Comm_f2c), the barrier, and the error
 * text. The collectives are in tcomm_f_colls.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tcomm_mpi.h>

#include "tcomm_f.h"

static _Thread_local char f_text[1024];

void tcomm_f_clear(void)
{
    f_text[0] = '\0';
}

int tcomm_f_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f_text, sizeof f_text, fmt, ap);
    va_end(ap);
    return status;
}

const char *tcomm_f_text(void)
{
    return f_text;
}

int tcomm_f_from_c(int status, const char *fn, int c_order)
{
    const char *msg = tcomm_last_error();
    /* "tcomm_all_gather_into: ..." names the C call: name fn instead */
    size_t skip = strcspn(msg, ": ");
    if (strncmp(msg, "tcomm_", 6) == 0 && strncmp(msg + skip, ": ", 2) == 0)
        msg += skip + 2;
    if (!*msg)
        msg = tcomm_status_string(status);
    /* the peers' texts quoted in a mismatch name the C call too; a peer
     * whose Fortran arguments failed here joined with a NULL input, which
     * is its own error's echo, not the cause */
    static const char null_in[] = "the input tensor is NULL (pass a tensor)";
    char text[sizeof f_text - 160];
    size_t n = 0;
    while (*msg && n + 1 < sizeof text) {
        if (strncmp(msg, "_into:", 6) == 0)
            msg += 5;
        if (strncmp(msg, null_in, sizeof null_in - 1) == 0) {
            msg += sizeof null_in - 1;
            n += (size_t)snprintf(text + n, sizeof text - n, "%s",
                                  "its Fortran arguments are wrong (its "
                                  "own error says which)");
            if (n >= sizeof text)
                n = sizeof text - 1;
            continue;
        }
        text[n++] = *msg++;
    }
    text[n] = '\0';
    int c_terms = c_order && (strchr(text, '[') || strstr(text, "dim"));
    snprintf(f_text, sizeof f_text, "%s: %s%s", fn, text,
             c_terms ? " [in C order: shapes reversed, C dim = rank - "
                       "Fortran dim]"
                     : "");
    return status;
}

int tcomm_f_comm_create_mpi(MPI_Fint fcomm, tcomm_f_comm_t **handle)
{
    static const char fn[] = "tcomm_comm_create_mpi";
    tcomm_f_clear();
    tcomm_f_comm_t *fc = calloc(1, sizeof *fc);
    if (!fc)
        return tcomm_f_fail(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                            fn);
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
        free(fc);
        return tcomm_f_fail(TCOMM_ERR_INVALID_ARG,
                            "%s: MPI is not initialized (call MPI_Init "
                            "first)",
                            fn);
    }
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_comm_info_t info;
    int st = tcomm_comm_create_mpi(MPI_Comm_f2c(fcomm), &fc->comm);
    if (st != TCOMM_SUCCESS)
        goto fail;
    st = tcomm_comm_info(fc->comm, &info);
    if (st != TCOMM_SUCCESS)
        goto fail_comm;
    fc->rank = info.rank;
    fc->world_size = info.world_size;
    st = tcomm_graph_create(host, &fc->graph);
    if (st != TCOMM_SUCCESS)
        goto fail_comm;
    *handle = fc;
    return TCOMM_SUCCESS;

fail_comm:
    tcomm_f_from_c(st, fn, 0);
    tcomm_comm_destroy(fc->comm);
    free(fc);
    return st;
fail:
    free(fc);
    return tcomm_f_from_c(st, fn, 0);
}

int tcomm_f_comm_info(tcomm_f_comm_t *fc, int *rank, int *world_size)
{
    static const char fn[] = "tcomm_comm_info";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    tcomm_comm_info_t info;
    int st = tcomm_comm_info(fc->comm, &info);
    if (st != TCOMM_SUCCESS)
        return tcomm_f_from_c(st, fn, 0);
    *rank = info.rank;
    *world_size = info.world_size;
    return TCOMM_SUCCESS;
}

int tcomm_f_barrier(tcomm_f_comm_t *fc)
{
    static const char fn[] = "tcomm_barrier";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    int st = tcomm_barrier(fc->comm);
    return st ? tcomm_f_from_c(st, fn, 0) : TCOMM_SUCCESS;
}

int tcomm_f_comm_destroy(tcomm_f_comm_t **handle)
{
    static const char fn[] = "tcomm_comm_destroy";
    tcomm_f_clear();
    tcomm_f_comm_t *fc = *handle;
    if (!fc)
        return tcomm_f_no_comm(fn);
    int st = tcomm_comm_destroy(fc->comm);
    if (st != TCOMM_SUCCESS)
        tcomm_f_from_c(st, fn, 0);
    int gst = tcomm_graph_destroy(fc->graph);
    if (gst != TCOMM_SUCCESS && st == TCOMM_SUCCESS)
        st = tcomm_f_from_c(gst, fn, 0);
    free(fc);
    *handle = NULL;
    return st;
}

/* Copy text into a Fortran character buffer of len, blank padded;
 * returns the length copied (at most len). */
static int fortran_text(const char *text, char *buf, int len)
{
    size_t n = strlen(text);
    if (n > (size_t)len)
        n = (size_t)len;
    memcpy(buf, text, n);
    memset(buf + n, ' ', (size_t)len - n);
    return (int)n;
}

/* The last failure's text. */
int tcomm_f_error_text(char *buf, int len)
{
    return fortran_text(f_text, buf, len);
}

/* The constant text of a status. */
int tcomm_f_status_text(int status, char *buf, int len)
{
    return fortran_text(tcomm_status_string((tcomm_status_t)status), buf,
                        len);
}
