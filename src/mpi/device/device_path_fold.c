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

/* Post one message per piece (at most lim elements) of every peer's
 * block: receives into buf, or sends from it, peer j's block at off[j].
 * Receives start at the previous rank and sends at the next, so that
 * not every rank talks to rank 0 first. *k counts the posted requests. */
static tcomm_status_t post(const tcomm_dev_t *d, int sending, const void *buf,
                           const size_t *count, const size_t *off,
                           size_t lim, MPI_Request *req, size_t *k)
{
    int size = d->st->size, rank = d->st->rank;
    MPI_Datatype type = tcomm_mpi_datatype(d->dtype);
    for (int i = 0; i < size; i++) {
        int j = (sending ? rank + i : rank - i + size) % size;
        const char *p = (const char *)buf + off[j] * d->el;
        for (size_t o = 0; o < count[j]; o += lim) {
            int c = (int)(count[j] - o < lim ? count[j] - o : lim);
            void *at = (char *)p + o * d->el; /* recv: the caller's own */
            int rc = sending ? MPI_Isend(at, c, type, j, TCOMM_DEVICE_TAG,
                                         d->st->comm, &req[*k])
                             : MPI_Irecv(at, c, type, j, TCOMM_DEVICE_TAG,
                                         d->st->comm, &req[*k]);
            ++*k;
            TCOMM_TRY(tcomm_mpi_status(rc, sending ? "MPI_Isend" : "MPI_Irecv",
                                       __FILE__, __LINE__));
        }
    }
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_dev_alltoallv(const tcomm_dev_t *d, const void *send,
                                   const size_t *scount, const size_t *soff,
                                   void *recv, const size_t *rcount,
                                   const size_t *roff)
{
    int size = d->st->size;
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
    rc = post(d, 0, recv, rcount, roff, lim, req, &k);
    if (rc == TCOMM_SUCCESS)
        rc = post(d, 1, send, scount, soff, lim, req, &k);
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

/* Fold the size blocks of n elements at blocks (block j at j * n) into
 * acc (which may be block 0), in rank order, on the device (direct path)
 * or in the host staging buffers (staged path). */
static tcomm_status_t fold_blocks(const tcomm_dev_t *d,
                                  const tcomm_folder_t *f, tcomm_op_t op,
                                  const void *blocks, void *acc, size_t n)
{
    const tcomm_memspace_t *sp = f->dev ? d->sp : &tcomm_memspace_host;
    void *ctx = f->dev ? d->ctx : NULL;
    int size = d->st->size;
    TCOMM_TRY(tcomm_space_fold_strided(sp, ctx, d->dtype, op, acc, blocks,
                                       n * d->el, size, n));
    TCOMM_TRY(tcomm_space_finish(sp, ctx, d->dtype, op, acc, n, size));
    return f->dev && n ? d->sp->synchronize(d->ctx) : TCOMM_SUCCESS;
}

tcomm_status_t tcomm_fold_all_reduce(const tcomm_dev_t *d,
                                     const tcomm_folder_t *f, tcomm_op_t op,
                                     const void *src, void *dst, size_t n,
                                     void *scratch)
{
    size_t p = (size_t)d->st->size, me = (size_t)d->st->rank;
    tcomm_status_t rc;
    size_t *a = tcomm_dev_counts(d, 4);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
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

tcomm_status_t tcomm_fold_reduce_scatter_v(const tcomm_dev_t *d,
                                           const tcomm_folder_t *f,
                                           tcomm_op_t op, const void *src,
                                           const size_t *count,
                                           const size_t *off, void *dst,
                                           void *scratch)
{
    size_t p = (size_t)d->st->size, mine = count[d->st->rank];
    tcomm_status_t rc;
    size_t *a = tcomm_dev_counts(d, 2);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    size_t *rcount = a, *roff = a + p;
    for (size_t j = 0; j < p; j++) {
        rcount[j] = mine;
        roff[j] = j * mine;
    }
    rc = tcomm_dev_alltoallv(d, src, count, off, scratch, rcount, roff);
    if (rc == TCOMM_SUCCESS)
        rc = fold_blocks(d, f, op, scratch, dst, mine);
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
    size_t *a = tcomm_dev_counts(d, 2);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    size_t *c = a, *soff = a + p;
    for (size_t j = 0; j < p; j++) {
        c[j] = count;
        soff[j] = j * stride + off;
    }
    rc = tcomm_fold_reduce_scatter_v(d, f, op, src, c, soff, dst, scratch);
    free(a);
    return rc;
}
