/* SPDX-License-Identifier: BSD-3-Clause */
/* Deterministic reductions: every rank sends block r of its data to rank
 * r; rank r folds the blocks it received in rank order,
 * ((x0 op x1) op x2) ..., with the host kernels; an all-gather brings the
 * folded blocks to everyone. The result depends only on the inputs, never
 * on the algorithm MPI picks or the message size. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"

/* Block r of src (len[r] elements at lo[r]) goes to rank r; rank s's
 * block for us lands at dst + s * mylen. Pieces of at most
 * tcomm_mpi_count_limit() elements per message. */
static int exchange_blocks(tcomm_mpi_state_t *st, const char *src,
                           const size_t *lo, const size_t *len, char *dst,
                           size_t mylen, tcomm_dtype_t dtype)
{
    int n = st->size, me = st->rank, rc = MPI_SUCCESS;
    size_t es = tcomm_dtype_size(dtype), step = tcomm_mpi_count_limit();
    MPI_Datatype dt = tcomm_mpi_datatype(dtype);
    MPI_Request stack[2 * TCOMM_STACK_RANKS], *req = stack;
    if (n > TCOMM_STACK_RANKS && !(req = malloc(2 * (size_t)n * sizeof *req)))
        return MPI_ERR_NO_MEM;
    size_t most = 0;
    for (int r = 0; r < n; r++)
        most = len[r] > most ? len[r] : most;
    for (size_t off = 0; off < most && rc == MPI_SUCCESS; off += step) {
        int nreq = 0;
        for (int r = 0; r < n; r++) {
            size_t send = len[r] > off ? len[r] - off : 0;
            size_t recv = mylen > off ? mylen - off : 0;
            send = send < step ? send : step;
            recv = recv < step ? recv : step;
            const char *from = src + (lo[r] + off) * es;
            char *to = dst + ((size_t)r * mylen + off) * es;
            if (r == me) {
                memcpy(to, from, send * es);
                continue;
            }
            if (recv && rc == MPI_SUCCESS)
                rc = MPI_Irecv(to, (int)recv, dt, r, 0, st->comm,
                               &req[nreq++]);
            if (send && rc == MPI_SUCCESS)
                rc = MPI_Isend(from, (int)send, dt, r, 0, st->comm,
                               &req[nreq++]);
        }
        int wrc = tcomm_mpi_waitall((size_t)nreq, req);
        rc = rc != MPI_SUCCESS ? rc : wrc;
    }
    if (req != stack)
        free(req);
    return rc;
}

/* acc = blocks[0] op blocks[1] op ... in rank order (len elements each,
 * back to back). */
static int fold(tcomm_dtype_t dtype, tcomm_op_t op, const char *blocks,
                size_t len, int n, void *acc)
{
    tcomm_status_t st = tcomm_space_fold_strided(
        &tcomm_memspace_host, NULL, dtype, op, acc, blocks,
        len * tcomm_dtype_size(dtype), n, len);
    return st == TCOMM_SUCCESS ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

tcomm_status_t tcomm_mpi_all_reduce_ordered(tcomm_mpi_state_t *st,
                                            const tcomm_tensor_t *in,
                                            tcomm_op_t op,
                                            tcomm_tensor_t *out)
{
    int n = st->size, me = st->rank;
    size_t stack[2 * TCOMM_STACK_RANKS], *lo = stack;
    if (n > TCOMM_STACK_RANKS && !(lo = malloc(2 * (size_t)n * sizeof *lo)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_all_reduce: out of host memory");
    size_t *len = lo + n, q = in->numel / (size_t)n,
           rem = in->numel % (size_t)n;
    for (int r = 0; r < n; r++) {
        len[r] = q + ((size_t)r < rem);
        lo[r] = (size_t)r * q + ((size_t)r < rem ? (size_t)r : rem);
    }
    size_t es = tcomm_dtype_size(in->dtype);
    char *tmp = malloc((size_t)n * len[me] * es + 1);
    int rc = MPI_ERR_NO_MEM;
    if (tmp) {
        rc = exchange_blocks(st, in->data, lo, len, tmp, len[me],
                             in->dtype);
        if (rc == MPI_SUCCESS)
            rc = fold(in->dtype, op, tmp, len[me], n, tmp);
        if (rc == MPI_SUCCESS)
            rc = tcomm_mpi_allgatherv(tmp, len[me], out->data, len, lo,
                                      in->dtype, st->comm);
    }
    free(tmp);
    if (lo != stack)
        free(lo);
    return tcomm_mpi_status(rc, "tcomm_all_reduce (deterministic)",
                            __FILE__, __LINE__);
}

/* Rank r's chunk is sizes[r] along dim (NULL: the equal chunks of
 * reduce_scatter); along dim > 0 its columns are strided, so the chunks
 * are packed rank-major first. Block r of the exchange is then
 * [outer][sizes[r] * inner]: out's layout on rank r. */
tcomm_status_t tcomm_mpi_reduce_scatter_v_ordered(tcomm_mpi_state_t *st,
                                                  const tcomm_tensor_t *in,
                                                  tcomm_op_t op, int dim,
                                                  const size_t *sizes,
                                                  tcomm_tensor_t *out)
{
    int n = st->size, me = st->rank;
    const char *fn = sizes ? "tcomm_reduce_scatter_v (deterministic)"
                           : "tcomm_reduce_scatter (deterministic)";
    size_t es = tcomm_dtype_size(in->dtype), outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    size_t stack[3 * TCOMM_STACK_RANKS], *lo = stack;
    if (n > TCOMM_STACK_RANKS && !(lo = malloc(3 * (size_t)n * sizeof *lo)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                           fn);
    size_t *len = lo + n, *seg = lo + 2 * n, at = 0;
    for (int r = 0; r < n; r++) {
        seg[r] = (sizes ? sizes[r] : in->shape[dim] / (size_t)n) * inner;
        len[r] = outer * seg[r];
        lo[r] = at;
        at += len[r];
    }
    /* Every rank packs when any does: its chunks go to the others even
     * where its own is empty. */
    const char *src = in->data;
    char *packed = NULL, *tmp = malloc((size_t)n * len[me] * es + 1);
    int rc = MPI_ERR_NO_MEM;
    if (tmp && outer > 1 && in->numel > 0) {
        if (!(packed = malloc(in->nbytes)))
            goto out;
        tcomm_host_split_pack(in->data, packed, es, outer, n, seg);
        src = packed;
    }
    if (tmp) {
        rc = exchange_blocks(st, src, lo, len, tmp, len[me], in->dtype);
        if (rc == MPI_SUCCESS)
            rc = fold(in->dtype, op, tmp, len[me], n, out->data);
    }
out:
    free(packed);
    free(tmp);
    if (lo != stack)
        free(lo);
    return tcomm_mpi_status(rc, fn, __FILE__, __LINE__);
}

tcomm_status_t tcomm_mpi_reduce_scatter_ordered(tcomm_mpi_state_t *st,
                                                const tcomm_tensor_t *in,
                                                tcomm_op_t op, int dim,
                                                tcomm_tensor_t *out)
{
    return tcomm_mpi_reduce_scatter_v_ordered(st, in, op, dim, NULL, out);
}
