/* SPDX-License-Identifier: BSD-3-Clause */
/* Reductions that MPI cannot do on the memory at hand, as an all-to-all
 * of chunks and a fold of them in rank order: rank r receives chunk r of
 * every rank, folds them left to right (x0 op x1 op ... op x{n-1}, AVG as
 * SUM then one division), and, for all_reduce, all-gathers the folded
 * chunks. Every element is folded once, by one rank, in rank order, so
 * the result is the same on every rank and at every message size (the
 * deterministic mode's contract) and f16/bf16/NaN-aware MIN/MAX/AVG need
 * no MPI user op on device memory. The fold runs on the device (direct
 * path: the space's reduce kernel) or on the host (staged path: the host
 * kernels on pinned buffers). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "device_path.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"

static size_t pieces(size_t count, size_t lim)
{
    return (count + lim - 1) / lim;
}

tcomm_status_t tcomm_dev_alltoallv(const tcomm_dev_t *d, const void *send,
                                   const size_t *scount, const size_t *soff,
                                   void *recv, const size_t *rcount,
                                   const size_t *roff)
{
    int size = d->st->size, rank = d->st->rank;
    MPI_Comm comm = d->st->comm;
    MPI_Datatype type = tcomm_mpi_datatype(d->dtype);
    size_t lim = tcomm_mpi_count_limit(), nreq = 0;
    tcomm_status_t rc = TCOMM_SUCCESS;

    for (int j = 0; j < size; j++)
        nreq += pieces(scount[j], lim) + pieces(rcount[j], lim);
    MPI_Request *req = malloc((nreq ? nreq : 1) * sizeof *req);
    if (!req)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "device path: out of host memory for %zu MPI "
                           "requests", nreq);
    size_t k = 0;
    /* Receives first, then sends, each starting at a different peer. */
    for (int i = 0; i < size && rc == TCOMM_SUCCESS; i++) {
        int j = (rank - i + size) % size;
        char *p = (char *)recv + roff[j] * d->el;
        for (size_t o = 0; o < rcount[j] && rc == TCOMM_SUCCESS; o += lim) {
            size_t c = rcount[j] - o < lim ? rcount[j] - o : lim;
            rc = tcomm_mpi_status(MPI_Irecv(p + o * d->el, (int)c, type, j,
                                            TCOMM_DEVICE_TAG, comm,
                                            &req[k++]),
                                  "MPI_Irecv", __FILE__, __LINE__);
        }
    }
    for (int i = 0; i < size && rc == TCOMM_SUCCESS; i++) {
        int j = (rank + i) % size;
        const char *p = (const char *)send + soff[j] * d->el;
        for (size_t o = 0; o < scount[j] && rc == TCOMM_SUCCESS; o += lim) {
            size_t c = scount[j] - o < lim ? scount[j] - o : lim;
            rc = tcomm_mpi_status(MPI_Isend(p + o * d->el, (int)c, type, j,
                                            TCOMM_DEVICE_TAG, comm,
                                            &req[k++]),
                                  "MPI_Isend", __FILE__, __LINE__);
        }
    }
    if (rc != TCOMM_SUCCESS) {
        /* Posted requests cannot be left behind: cancel and complete. */
        for (size_t i = 0; i + 1 < k; i++)
            MPI_Cancel(&req[i]);
        tcomm_mpi_waitall(k ? k - 1 : 0, req);
    } else if (k > 0) {
        rc = tcomm_mpi_status(tcomm_mpi_waitall(k, req), "MPI_Waitall",
                              __FILE__, __LINE__);
    }
    free(req);
    return rc;
}

static tcomm_status_t fold_reduce(const tcomm_dev_t *d,
                                  const tcomm_folder_t *f, tcomm_op_t op,
                                  void *acc, const void *x, size_t n)
{
    if (f->dev)
        return d->sp->reduce(d->ctx, d->dtype, op, acc, x, n);
    tcomm_host_reduce(d->dtype, op, acc, x, n);
    return TCOMM_SUCCESS;
}

static tcomm_status_t fold_divide(const tcomm_dev_t *d,
                                  const tcomm_folder_t *f, void *buf,
                                  size_t n)
{
    double p = (double)d->st->size;
    if (f->dev)
        return d->sp->divide(d->ctx, d->dtype, buf, n, p);
    tcomm_host_divide(d->dtype, buf, n, p);
    return TCOMM_SUCCESS;
}

/* Fold the size blocks of n elements at blocks (block j at j * n) into
 * acc (which may be block 0), in rank order. */
static tcomm_status_t fold_blocks(const tcomm_dev_t *d,
                                  const tcomm_folder_t *f, tcomm_op_t op,
                                  const void *blocks, void *acc, size_t n)
{
    const char *b = blocks;
    size_t bytes = n * d->el;
    if (n == 0)
        return TCOMM_SUCCESS;
    if (acc != blocks) {
        if (f->dev)
            TCOMM_TRY(d->sp->copy_async(d->ctx, acc, b, bytes));
        else
            memcpy(acc, b, bytes);
    }
    for (int j = 1; j < d->st->size; j++)
        TCOMM_TRY(fold_reduce(d, f, op, acc, b + (size_t)j * bytes, n));
    if (op == TCOMM_AVG)
        TCOMM_TRY(fold_divide(d, f, acc, n));
    if (f->dev)
        TCOMM_TRY(d->sp->synchronize(d->ctx));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_fold_all_reduce(const tcomm_dev_t *d,
                                     const tcomm_folder_t *f, tcomm_op_t op,
                                     const void *src, void *dst, size_t n,
                                     void *scratch)
{
    size_t p = (size_t)d->st->size, me = (size_t)d->st->rank;
    tcomm_status_t rc;
    size_t *a = malloc(4 * p * sizeof *a);
    if (!a)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "device path: out of host memory for %zu ranks' "
                           "counts", p);
    size_t *c = a, *o = a + p, *rcount = a + 2 * p, *roff = a + 3 * p;
    for (size_t j = 0, at = 0; j < p; j++) {
        c[j] = n / p + (j < n % p);
        o[j] = at;
        at += c[j];
    }
    for (size_t j = 0; j < p; j++) {
        rcount[j] = c[me];
        roff[j] = j * c[me];
    }
    rc = tcomm_dev_alltoallv(d, src, c, o, scratch, rcount, roff);
    if (rc == TCOMM_SUCCESS)
        rc = fold_blocks(d, f, op, scratch, scratch, c[me]);
    if (rc == TCOMM_SUCCESS)
        rc = tcomm_mpi_status(tcomm_mpi_allgatherv(scratch, c[me], dst, c,
                                                   o, d->dtype, d->st->comm),
                              "tcomm_mpi_allgatherv", __FILE__, __LINE__);
    free(a);
    return rc;
}

tcomm_status_t tcomm_fold_reduce_scatter(const tcomm_dev_t *d,
                                         const tcomm_folder_t *f,
                                         tcomm_op_t op, const void *src,
                                         size_t stride, size_t off,
                                         void *dst, size_t count,
                                         void *scratch)
{
    size_t p = (size_t)d->st->size;
    tcomm_status_t rc;
    size_t *a = malloc(3 * p * sizeof *a);
    if (!a)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "device path: out of host memory for %zu ranks' "
                           "counts", p);
    size_t *c = a, *soff = a + p, *roff = a + 2 * p;
    for (size_t j = 0; j < p; j++) {
        c[j] = count;
        soff[j] = j * stride + off;
        roff[j] = j * count;
    }
    rc = tcomm_dev_alltoallv(d, src, c, soff, scratch, c, roff);
    if (rc == TCOMM_SUCCESS)
        rc = fold_blocks(d, f, op, scratch, dst, count);
    free(a);
    return rc;
}
