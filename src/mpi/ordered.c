/* SPDX-License-Identifier: BSD-3-Clause */
/* Deterministic reductions of host tensors: the one rank-order fold of
 * src/mpi/device/device_path_fold.c (every rank sends block r of its data
 * to rank r, rank r folds the blocks in rank order with the host kernels,
 * AVG divided there; all_reduce all-gathers the folded blocks). The
 * result depends only on the inputs, never on the algorithm MPI picks or
 * the message size, and is the device paths' bit for bit. */
#include <stdlib.h>

#include "device_path.h"
#include "tcomm_host_kernels.h"

/* The host's view for device_path_fold.c: its fold in host kernels. */
static tcomm_dev_t host(tcomm_mpi_state_t *st, tcomm_dtype_t dtype)
{
    return (tcomm_dev_t){.st = st,
                         .sp = &tcomm_memspace_host,
                         .dtype = dtype,
                         .el = tcomm_dtype_size(dtype),
                         .det = 1};
}

static const tcomm_folder_t host_kernels = {.dev = NULL};

tcomm_status_t tcomm_mpi_all_reduce_ordered(tcomm_mpi_state_t *st,
                                            const tcomm_tensor_t *in,
                                            tcomm_op_t op,
                                            tcomm_tensor_t *out)
{
    tcomm_dev_t d = host(st, in->dtype);
    size_t n = (size_t)st->size, me = (size_t)st->rank;
    size_t mine = in->numel / n + (me < in->numel % n);
    char *scratch = malloc(n * mine * d.el + 1);
    if (!scratch)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_all_reduce (deterministic): out of host "
                           "memory for %zu bytes",
                           n * mine * d.el);
    tcomm_status_t rc = tcomm_fold_all_reduce(&d, &host_kernels, op, in->data,
                                              out->data, in->numel, scratch);
    free(scratch);
    return rc;
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
    tcomm_dev_t d = host(st, in->dtype);
    int n = st->size;
    size_t outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    size_t *a = tcomm_dev_counts(&d, 3);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    size_t *seg = a, *len = a + n, *lo = a + 2 * n, at = 0;
    for (int r = 0; r < n; r++) {
        seg[r] = (sizes ? sizes[r] : in->shape[dim] / (size_t)n) * inner;
        len[r] = outer * seg[r];
        lo[r] = at;
        at += len[r];
    }
    /* Every rank packs when any does: its chunks go to the others even
     * where its own is empty. */
    const char *src = in->data;
    char *packed = NULL,
         *scratch = malloc((size_t)n * len[st->rank] * d.el + 1);
    tcomm_status_t rc = TCOMM_ERR_NO_MEMORY;
    int pack = outer > 1 && in->numel > 0;
    if (scratch && pack && (packed = malloc(in->nbytes))) {
        tcomm_host_split_pack(in->data, packed, d.el, outer, n, seg);
        src = packed;
    }
    if (scratch && (!pack || packed))
        rc = tcomm_fold_reduce_scatter_v(&d, &host_kernels, op, src, len, lo,
                                         out->data, scratch);
    else
        tcomm_error(rc, "%s (deterministic): out of host memory",
                    sizes ? "tcomm_reduce_scatter_v" : "tcomm_reduce_scatter");
    free(packed);
    free(scratch);
    free(a);
    return rc;
}

tcomm_status_t tcomm_mpi_reduce_scatter_ordered(tcomm_mpi_state_t *st,
                                                const tcomm_tensor_t *in,
                                                tcomm_op_t op, int dim,
                                                tcomm_tensor_t *out)
{
    return tcomm_mpi_reduce_scatter_v_ordered(st, in, op, dim, NULL, out);
}
