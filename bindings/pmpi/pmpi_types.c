/* SPDX-License-Identifier: BSD-3-Clause */
/* Which datatypes and ops tcomm takes, and from what size: the cheap
 * part of the per-call decision (no allocation, lock or system call). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_pmpi.h"

int tcomm_pmpi_on = 1;
int tcomm_pmpi_report_on;
static long min_bytes_override = -1;

__attribute__((constructor)) static void read_settings(void)
{
    const char *v = getenv("TCOMM_PMPI");
    tcomm_pmpi_on = !(v && strcmp(v, "0") == 0);
    v = getenv("TCOMM_PMPI_REPORT");
    tcomm_pmpi_report_on = v && *v && strcmp(v, "0") != 0;
    v = getenv("TCOMM_PMPI_MIN_BYTES");
    if (v && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end == '\0' && n >= 0)
            min_bytes_override = n;
    }
}

/* Below these sizes (one rank's part, 2 ranks, wrapped user buffers)
 * MPI was as fast or faster (doc/performance.md, "Drop-in
 * acceleration"): the wrapping and tcomm's path cost more than they save.
 * SIZE_MAX: MPI keeps the call unless TCOMM_PMPI_MIN_BYTES says. */
static const size_t min_bytes[PMPI_FN_COUNT] = {
    [PMPI_FN_ALLREDUCE] = 16384,
    [PMPI_FN_REDUCE_SCATTER_BLOCK] = 16384,
    [PMPI_FN_REDUCE_SCATTER] = 16384,
    [PMPI_FN_ALLGATHER] = 8 << 20,
    [PMPI_FN_ALLGATHERV] = 8 << 20,
    [PMPI_FN_BCAST] = 32768,
    /* tcomm's all_to_all of private buffers is MPI_Alltoall itself
       (src/mpi/all_to_all.c: its single copies were no faster than
       vader's, which makes the same copies), so taking it only adds the
       wrapping: MPI keeps it unless TCOMM_PMPI_MIN_BYTES=0 */
    [PMPI_FN_ALLTOALL] = (size_t)-1,
    /* uneven counts (tcomm's all_to_all_v on wrapped buffers, its output
       fresh and copied out) measured 1.5-6x MPI's at 1-16 MiB a peer:
       MPI keeps them unless TCOMM_PMPI_MIN_BYTES=0; one block everywhere
       goes by PMPI_FN_ALLTOALL's entry (pmpi_alltoallv.c) */
    [PMPI_FN_ALLTOALLV] = (size_t)-1,
    /* tcomm's barrier is MPI's on tcomm's communicator behind its front
       end: 0.04-0.1 us slower, so MPI keeps it unless
       TCOMM_PMPI_MIN_BYTES=0 */
    [PMPI_FN_BARRIER] = (size_t)-1,
    /* the nonblocking calls run the blocking calls' paths */
    [PMPI_FN_IALLREDUCE] = 16384,
    [PMPI_FN_IALLGATHER] = 8 << 20,
    [PMPI_FN_IREDUCE_SCATTER_BLOCK] = 16384,
    [PMPI_FN_IBCAST] = 32768,
    [PMPI_FN_IALLTOALL] = (size_t)-1,
    [PMPI_FN_ALLOC_MEM] = (size_t)-1, /* not a gate: pmpi_memory.c */
};

size_t tcomm_pmpi_min_bytes(tcomm_pmpi_fn_t fn)
{
    if (min_bytes_override >= 0 && fn != PMPI_FN_ALLOC_MEM)
        return (size_t)min_bytes_override;
    return min_bytes[fn];
}

/* What a predefined type holds: reductions need tcomm's dtype of the
 * same kind and size; anything else here only moves, as bytes. */
enum kind { MOVE, SINT, UINT, FLOAT };

typedef struct {
    MPI_Datatype type;
    enum kind kind;
    size_t size;          /* from PMPI_Type_size at first use */
    tcomm_dtype_t dtype;  /* for SINT/UINT/FLOAT of a size tcomm has */
    int reducible;
} type_row_t;

/* Commonest first: the lookup is a scan. Types that an MPI build lacks
 * are MPI_DATATYPE_NULL and never match (see lookup). */
#define R(t, k) {.type = t, .kind = k}
static type_row_t rows[] = {
    R(MPI_DOUBLE, FLOAT), R(MPI_FLOAT, FLOAT), R(MPI_INT, SINT),
    R(MPI_LONG, SINT), R(MPI_BYTE, MOVE), R(MPI_CHAR, MOVE),
    R(MPI_UNSIGNED, UINT), R(MPI_LONG_LONG, SINT), R(MPI_INT32_T, SINT),
    R(MPI_INT64_T, SINT), R(MPI_UINT32_T, UINT), R(MPI_INT8_T, SINT),
    R(MPI_UINT8_T, UINT), R(MPI_SIGNED_CHAR, SINT), R(MPI_UNSIGNED_CHAR, UINT),
    R(MPI_LONG_LONG_INT, SINT), R(MPI_SHORT, MOVE), R(MPI_UNSIGNED_SHORT, MOVE),
    R(MPI_UNSIGNED_LONG, MOVE), R(MPI_UNSIGNED_LONG_LONG, MOVE),
    R(MPI_INT16_T, MOVE), R(MPI_UINT16_T, MOVE), R(MPI_UINT64_T, MOVE),
    R(MPI_LONG_DOUBLE, MOVE), R(MPI_WCHAR, MOVE), R(MPI_C_BOOL, MOVE),
    R(MPI_C_FLOAT_COMPLEX, MOVE), R(MPI_C_DOUBLE_COMPLEX, MOVE),
    R(MPI_AINT, MOVE), R(MPI_OFFSET, MOVE), R(MPI_COUNT, MOVE),
    R(MPI_INTEGER, SINT), R(MPI_REAL, FLOAT), R(MPI_DOUBLE_PRECISION, FLOAT),
    R(MPI_INTEGER1, SINT), R(MPI_INTEGER4, SINT), R(MPI_INTEGER8, SINT),
    R(MPI_REAL4, FLOAT), R(MPI_REAL8, FLOAT), R(MPI_LOGICAL, MOVE),
    R(MPI_CHARACTER, MOVE), R(MPI_COMPLEX, MOVE),
    R(MPI_DOUBLE_COMPLEX, MOVE),
};
#undef R
#define NROWS (sizeof rows / sizeof rows[0])
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

static int dtype_of(enum kind k, size_t size, tcomm_dtype_t *dt)
{
    static const struct { enum kind k; size_t size; tcomm_dtype_t dt; } m[] = {
        {SINT, 1, TCOMM_I8}, {SINT, 4, TCOMM_I32}, {SINT, 8, TCOMM_I64},
        {UINT, 1, TCOMM_U8}, {UINT, 4, TCOMM_U32},
        {FLOAT, 4, TCOMM_F32}, {FLOAT, 8, TCOMM_F64},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i].k == k && m[i].size == size) {
            *dt = m[i].dt;
            return 1;
        }
    return 0;
}

static void fill_rows(void)
{
    for (size_t i = 0; i < NROWS; i++) {
        int size = 0;
        if (rows[i].type == MPI_DATATYPE_NULL ||
            PMPI_Type_size(rows[i].type, &size) != MPI_SUCCESS || size <= 0) {
            rows[i].type = MPI_DATATYPE_NULL;
            continue;
        }
        rows[i].size = (size_t)size;
        rows[i].reducible = rows[i].kind != MOVE &&
                            dtype_of(rows[i].kind, rows[i].size,
                                     &rows[i].dtype);
    }
}

static const type_row_t *lookup(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return NULL;
    pthread_once(&rows_once, fill_rows);
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i].type == type)
            return &rows[i];
    return NULL;
}

int tcomm_pmpi_move_type(MPI_Datatype type, size_t *size)
{
    const type_row_t *r = lookup(type);
    if (!r)
        return 0;
    *size = r->size;
    return 1;
}

int tcomm_pmpi_reduce_type(MPI_Datatype type, MPI_Op op, tcomm_dtype_t *dt,
                           tcomm_op_t *top, size_t *size)
{
    if (op == MPI_SUM)
        *top = TCOMM_SUM;
    else if (op == MPI_PROD)
        *top = TCOMM_PROD;
    else if (op == MPI_MIN)
        *top = TCOMM_MIN;
    else if (op == MPI_MAX)
        *top = TCOMM_MAX;
    else
        return 0;
    const type_row_t *r = lookup(type);
    if (!r || !r->reducible)
        return 0;
    *dt = r->dtype;
    *size = r->size;
    return 1;
}
