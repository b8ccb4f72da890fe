/* SPDX-License-Identifier: BSD-3-Clause */
/* The interposed reductions: MPI_Allreduce, MPI_Reduce_scatter_block,
 * MPI_Reduce_scatter. Each takes the call when the datatype and op are
 * tcomm's, the call is large enough and comm is an intracommunicator
 * tcomm serves (the same on every rank); else PMPI_ does it. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_pmpi.h"

/* 1 to take: decided from what every rank agrees on. bytes is the
 * count argument's size (the table's measure), checked before the
 * attribute lookup so that small calls cost only this. */
static int take(tcomm_pmpi_fn_t fn, MPI_Datatype type, MPI_Op op,
                size_t count, MPI_Comm comm, tcomm_dtype_t *dt,
                tcomm_op_t *top, size_t *size, tcomm_comm_t **tc, int *n,
                int *me)
{
    if (!tcomm_pmpi_on || tcomm_pmpi_inside || count == 0 ||
        !tcomm_pmpi_reduce_type(type, op, dt, top, size) ||
        count * *size < tcomm_pmpi_min_bytes(fn))
        return 0;
    *tc = tcomm_pmpi_comm(comm, n, me);
    return *tc != NULL;
}

TCOMM_PMPI_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count,
                                    MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm)
{
    tcomm_dtype_t dt;
    tcomm_op_t top;
    size_t size;
    tcomm_comm_t *tc;
    int n, me;
    if (count < 0 || !take(PMPI_FN_ALLREDUCE, type, op, (size_t)count, comm,
                           &dt, &top, &size, &tc, &n, &me)) {
        tcomm_pmpi_passed(PMPI_FN_ALLREDUCE, comm);
        return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    }
    double t0 = tcomm_pmpi_now();
    tcomm_tensor_t *out = tcomm_pmpi_wrap(dt, rbuf, (size_t)count);
    tcomm_tensor_t *in = sbuf == MPI_IN_PLACE
                             ? NULL
                             : tcomm_pmpi_wrap(dt, (void *)sbuf, (size_t)count);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (out && (in || sbuf == MPI_IN_PLACE)) {
        tcomm_pmpi_inside++;
        st = tcomm_all_reduce_into(tc, in ? in : out, top, out);
        tcomm_pmpi_inside--;
    }
    return tcomm_pmpi_done(PMPI_FN_ALLREDUCE, comm, st, (size_t)count * size,
                           t0, in, out);
}

/* A taken reduce_scatter of count elements per rank, through wrapped
 * buffers (no copy but in place). */
static int scatter_block(tcomm_pmpi_fn_t fn, const void *sbuf, void *rbuf,
                         size_t count, tcomm_dtype_t dt, tcomm_op_t top,
                         size_t size, tcomm_comm_t *tc, int n, MPI_Comm comm)
{
    double t0 = tcomm_pmpi_now();
    size_t total = count * (size_t)n;
    /* In place, the input is rbuf and rank 0's chunk lands at its
       start: the result goes through a buffer of its own first. */
    int in_place = sbuf == MPI_IN_PLACE;
    void *res = in_place ? malloc(count * size) : rbuf;
    tcomm_tensor_t *in = tcomm_pmpi_wrap(dt, in_place ? rbuf : (void *)sbuf,
                                         total);
    tcomm_tensor_t *out = res ? tcomm_pmpi_wrap(dt, res, count) : NULL;
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (in && out) {
        tcomm_pmpi_inside++;
        st = tcomm_reduce_scatter_into(tc, in, top, 0, out);
        tcomm_pmpi_inside--;
    }
    if (in_place && st == TCOMM_SUCCESS)
        memcpy(rbuf, res, count * size);
    int rc = tcomm_pmpi_done(fn, comm, st, total * size, t0, in, out);
    if (in_place)
        free(res);
    return rc;
}

TCOMM_PMPI_EXPORT int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf,
                                               int count, MPI_Datatype type,
                                               MPI_Op op, MPI_Comm comm)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_REDUCE_SCATTER_BLOCK;
    tcomm_dtype_t dt;
    tcomm_op_t top;
    size_t size;
    tcomm_comm_t *tc;
    int n, me;
    if (count < 0 || !take(fn, type, op, (size_t)count, comm, &dt, &top,
                           &size, &tc, &n, &me)) {
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm);
    }
    return scatter_block(fn, sbuf, rbuf, (size_t)count, dt, top, size, tc, n,
                         comm);
}

TCOMM_PMPI_EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf,
                                         const int counts[],
                                         MPI_Datatype type, MPI_Op op,
                                         MPI_Comm comm)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_REDUCE_SCATTER;
    tcomm_dtype_t dt;
    tcomm_op_t top;
    size_t size, total = 0;
    tcomm_comm_t *tc = NULL;
    int n = 0, me, even = 1,
        ok = tcomm_pmpi_on && !tcomm_pmpi_inside && counts &&
             PMPI_Comm_size(comm, &n) == MPI_SUCCESS;
    /* counts are the same on every rank (MPI requires it) */
    for (int r = 0; ok && r < n; r++) {
        ok = counts[r] >= 0;
        even &= counts[r] == counts[0];
        total += ok ? (size_t)counts[r] : 0;
    }
    if (!ok || !take(fn, type, op, total, comm, &dt, &top, &size, &tc, &n,
                     &me)) {
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Reduce_scatter(sbuf, rbuf, counts, type, op, comm);
    }
    /* equal counts: the block form, over the caller's buffers */
    if (even)
        return scatter_block(fn, sbuf, rbuf, (size_t)counts[0], dt, top,
                             size, tc, n, comm);
    size_t *sizes = malloc((size_t)n * sizeof *sizes);
    if (!sizes)
        return tcomm_pmpi_done(fn, comm, TCOMM_ERR_NO_MEMORY, 0, 0, NULL,
                               NULL);
    double t0 = tcomm_pmpi_now();
    for (int r = 0; r < n; r++)
        sizes[r] = (size_t)counts[r];
    tcomm_tensor_t *in = tcomm_pmpi_wrap(
        dt, sbuf == MPI_IN_PLACE ? rbuf : (void *)sbuf, total);
    tcomm_tensor_t *out = NULL;
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (in) {
        tcomm_pmpi_inside++;
        st = tcomm_reduce_scatter_v(tc, in, top, 0, sizes, &out);
        tcomm_pmpi_inside--;
    }
    /* world size 1 gives back the input itself: hence memmove */
    if (st == TCOMM_SUCCESS && counts[me] > 0)
        memmove(rbuf, tcomm_tensor_data(out), (size_t)counts[me] * size);
    free(sizes);
    return tcomm_pmpi_done(fn, comm, st, total * size, t0, in, out);
}
