/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct path: MPI is CUDA-aware, so device pointers go to MPI.
 * MPI's built-in ops reduce what they reduce exactly (SUM/PROD/MIN/MAX of
 * f32, f64 and integers; not float MIN/MAX, which must propagate NaN);
 * everything else (f16, bf16, NaN-aware MIN/MAX, AVG, deterministic mode)
 * is an all-to-all of chunks, a device kernel folding them in rank order,
 * and an all-gather. The graph's stream is synchronized before MPI reads
 * device memory and before returning. */
#include "device_path.h"
#include "tcomm_mpi_kernels.h"

/* A fold's end: the kernels done with scratch before it goes. */
static tcomm_status_t free_scratch(const tcomm_dev_t *d, void *scratch,
                                   tcomm_status_t rc)
{
    d->sp->synchronize(d->ctx);
    d->sp->free(d->ctx, scratch);
    return rc;
}

tcomm_status_t tcomm_direct_all_reduce(const tcomm_dev_t *d,
                                       const void *in, void *out, size_t n,
                                       tcomm_op_t op)
{
    MPI_Op mop;
    void *scratch = NULL;

    TCOMM_TRY(d->sp->synchronize(d->ctx));
    if (tcomm_dev_mpi_builtin(d, op, &mop)) {
        TCOMM_MPI_CHECK(tcomm_mpi_allreduce(in == out ? MPI_IN_PLACE : in, out,
                                            n, d->dtype, mop, d->st->comm));
        return TCOMM_SUCCESS;
    }
    size_t p = (size_t)d->st->size;
    TCOMM_TRY(tcomm_dev_scratch(d, (n / p + 1) * p * d->el, &scratch));
    tcomm_folder_t f = { d };
    return free_scratch(d, scratch,
                        tcomm_fold_all_reduce(d, &f, op, in, out, n, scratch));
}

tcomm_status_t tcomm_direct_all_gather(const tcomm_dev_t *d,
                                       const void *in, void *out,
                                       const size_t *count,
                                       const size_t *off)
{
    tcomm_status_t rc = TCOMM_SUCCESS;
    TCOMM_TRY(d->sp->synchronize(d->ctx));
    TCOMM_MPI_CHECK_GOTO(tcomm_mpi_allgatherv(in, count[d->st->rank], out,
                                              count, off, d->dtype,
                                              d->st->comm),
                         rc, done);
done:
    return rc;
}

/* Equal parts of @p own elements (count NULL) or the uneven parts
 * count/off, this rank's being @p own. */
static tcomm_status_t reduce_scatter(const tcomm_dev_t *d, const void *in,
                                     void *out, size_t own, const size_t *count,
                                     const size_t *off, tcomm_op_t op)
{
    MPI_Op mop;
    void *scratch = NULL;
    MPI_Comm comm = d->st->comm;

    TCOMM_TRY(d->sp->synchronize(d->ctx));
    if (tcomm_dev_mpi_builtin(d, op, &mop)) {
        if (count)
            TCOMM_MPI_CHECK(tcomm_mpi_reduce_scatter_counts(
                in, out, count, d->dtype, mop, comm));
        else
            TCOMM_MPI_CHECK(tcomm_mpi_reduce_scatter_block(
                in, out, own, d->dtype, mop, comm));
        return TCOMM_SUCCESS;
    }
    size_t p = (size_t)d->st->size;
    TCOMM_TRY(tcomm_dev_scratch(d, p * own * d->el, &scratch));
    tcomm_folder_t f = { d };
    return free_scratch(d, scratch,
                        count ? tcomm_fold_reduce_scatter_v(
                                    d, &f, op, in, count, off, out, scratch)
                              : tcomm_fold_reduce_scatter(d, &f, op, in, own, 0,
                                                          out, own, scratch));
}

tcomm_status_t tcomm_direct_reduce_scatter(const tcomm_dev_t *d, const void *in,
                                           void *out, size_t count,
                                           tcomm_op_t op)
{
    return reduce_scatter(d, in, out, count, NULL, NULL, op);
}

tcomm_status_t tcomm_direct_reduce_scatter_v(const tcomm_dev_t *d,
                                             const void *in, void *out,
                                             const size_t *count,
                                             const size_t *off,
                                             tcomm_op_t op)
{
    return reduce_scatter(d, in, out, count[d->st->rank], count, off, op);
}

tcomm_status_t tcomm_direct_broadcast(const tcomm_dev_t *d, const void *in,
                                      void *out, size_t n, int root)
{
    tcomm_status_t rc = TCOMM_SUCCESS;
    if (d->st->rank == root && in != out)
        TCOMM_TRY(d->sp->copy_async(d->ctx, out, in, n * d->el));
    TCOMM_TRY(d->sp->synchronize(d->ctx));
    TCOMM_MPI_CHECK_GOTO(tcomm_mpi_bcast(out, n, d->dtype, root, d->st->comm),
                         rc, done);
done:
    return rc;
}
