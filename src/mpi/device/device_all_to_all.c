/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all, all_to_all_v and reduce_scatter_v on device tensors (cuda,
 * sim). A tensor seen along dim d is [outer][size_d * inner]:
 *
 *   all_to_all(_v): split_pack along split_dim into device scratch (no
 *     pack when outer is 1: the blocks are rank-major already), the
 *     all-to-all of the blocks (tcomm_dev_exchange: direct or staged),
 *     and gather_unpack along concat_dim from device scratch into out
 *     (none when out's outer along concat_dim is 1). Equal all_to_all is
 *     the uneven form with equal sizes.
 *   reduce_scatter_v: split_pack along dim (none when outer is 1), then
 *     the uneven reduce-scatter of the blocks, direct (MPI's op on device
 *     pointers where it is exact, else all-to-all + rank-order fold on the
 *     device) or staged (host ops or fold on pinned pieces); block r is
 *     [outer][sizes[r] * inner], which is out's layout on rank r. */
#include <stdlib.h>

#include "device_path.h"

static tcomm_status_t scratch_free(const tcomm_dev_t *d, void *p,
                                   tcomm_status_t rc)
{
    if (p) {
        tcomm_status_t sy = d->sp->synchronize(d->ctx);
        d->sp->free(d->ctx, p);
        rc = rc != TCOMM_SUCCESS ? rc : sy;
    }
    return rc;
}

/* Sizes along a dim -> segments (size * inner), block counts (outer *
 * segment) and their prefix offsets. */
static void blocks(int n, const size_t *sizes, size_t outer, size_t inner,
                   size_t *seg, size_t *count, size_t *off)
{
    size_t at = 0;
    for (int r = 0; r < n; r++) {
        seg[r] = sizes[r] * inner;
        count[r] = outer * seg[r];
        off[r] = at;
        at += count[r];
    }
}

/* The uneven all_to_all (both modes; equal chunks as a special case):
 * block j of send_sizes[j] along split_dim to rank j; the block from rank
 * r has recv_sizes[r] along concat_dim in out's shape otherwise. */
static tcomm_status_t
all_to_all_uneven(tcomm_mpi_state_t *st, const tcomm_tensor_t *in,
                  int split_dim, const size_t *send_sizes, int concat_dim,
                  const size_t *recv_sizes, tcomm_tensor_t *out,
                  tcomm_coll_kind_t coll, const char *name)
{
    tcomm_dev_t d;
    int n = st->size;
    size_t so, si, ro, ri;
    tcomm_dim_split(in, split_dim, &so, &si);
    tcomm_dim_split(out, concat_dim, &ro, &ri);
    int pack = so > 1 && in->numel > 0, unpack = ro > 1 && out->numel > 0;
    void *sbuf = NULL, *rbuf = NULL;
    tcomm_status_t rc = TCOMM_SUCCESS;

    tcomm_dev_init(&d, st, in);
    tcomm_dev_note(&d, coll, name, pack, unpack, 0, in->nbytes);
    size_t *a = tcomm_dev_counts(&d, 6);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    size_t *sseg = a, *scount = a + n, *soff = a + 2 * n;
    size_t *rseg = a + 3 * n, *rcount = a + 4 * n, *roff = a + 5 * n;
    blocks(n, send_sizes, so, si, sseg, scount, soff);
    blocks(n, recv_sizes, ro, ri, rseg, rcount, roff);
    const void *send = in->data;
    void *recv = out->data;
    if (pack) {
        rc = tcomm_dev_scratch(&d, in->nbytes, &sbuf);
        if (rc == TCOMM_SUCCESS)
            rc = d.sp->split_pack(d.ctx, in->data, sbuf, d.el, so, n, sseg);
        send = sbuf;
    }
    if (unpack && rc == TCOMM_SUCCESS) {
        rc = tcomm_dev_scratch(&d, out->nbytes, &rbuf);
        recv = rbuf;
    }
    if (rc == TCOMM_SUCCESS)
        rc = tcomm_dev_exchange(&d, send, scount, soff, recv, rcount, roff);
    if (rc == TCOMM_SUCCESS && unpack)
        rc = d.sp->gather_unpack(d.ctx, rbuf, out->data, d.el, ro, n, rseg);
    if (rc == TCOMM_SUCCESS)
        rc = d.sp->synchronize(d.ctx);
    rc = scratch_free(&d, sbuf, rc);
    rc = scratch_free(&d, rbuf, rc);
    free(a);
    return rc;
}

tcomm_status_t tcomm_device_all_to_all(tcomm_mpi_state_t *st,
                                       const tcomm_tensor_t *in,
                                       int split_dim, int concat_dim,
                                       tcomm_tensor_t *out)
{
    int n = st->size;
    size_t c = in->shape[split_dim] / (size_t)n;
    size_t *ss = malloc(2 * (size_t)n * sizeof *ss);
    if (!ss)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm: out of host memory for %d ranks' sizes",
                           n);
    size_t *rs = ss + n;
    for (int r = 0; r < n; r++) {
        ss[r] = c;
        rs[r] = split_dim == concat_dim ? c : in->shape[concat_dim];
    }
    tcomm_status_t rc =
        all_to_all_uneven(st, in, split_dim, ss, concat_dim, rs, out,
                          TCOMM_COLL_ALL_TO_ALL, "all_to_all");
    free(ss);
    return rc;
}

tcomm_status_t tcomm_device_all_to_all_v(tcomm_mpi_state_t *st,
                                         const tcomm_tensor_t *in,
                                         int split_dim,
                                         const size_t *send_sizes,
                                         int concat_dim,
                                         const size_t *recv_sizes,
                                         tcomm_tensor_t *out)
{
    return all_to_all_uneven(st, in, split_dim, send_sizes, concat_dim,
                             recv_sizes, out, TCOMM_COLL_ALL_TO_ALL_V,
                             "all_to_all_v");
}

tcomm_status_t tcomm_device_reduce_scatter_v(tcomm_mpi_state_t *st,
                                             const tcomm_tensor_t *in,
                                             tcomm_op_t op, int dim,
                                             const size_t *sizes,
                                             tcomm_tensor_t *out)
{
    tcomm_dev_t d;
    MPI_Op mop;
    int n = st->size;
    size_t outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    int pack = outer > 1 && in->numel > 0;
    void *scratch = NULL;
    tcomm_status_t rc = TCOMM_SUCCESS;

    tcomm_dev_init(&d, st, in);
    /* the fold: direct where MPI's op is not exact, staged where
     * deterministic (else the host's MPI user ops) */
    int fold = tcomm_dev_use_direct(&d) ? !tcomm_dev_mpi_builtin(&d, op, &mop)
                                        : d.det;
    tcomm_dev_note(&d, TCOMM_COLL_REDUCE_SCATTER_V, "reduce_scatter_v", pack, 0,
                   fold, in->nbytes);
    size_t *a = tcomm_dev_counts(&d, 3);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    size_t *seg = a, *count = a + n, *off = a + 2 * n;
    blocks(n, sizes, outer, inner, seg, count, off);
    const void *src = in->data;
    if (pack) {
        rc = tcomm_dev_scratch(&d, in->nbytes, &scratch);
        if (rc == TCOMM_SUCCESS)
            rc = d.sp->split_pack(d.ctx, in->data, scratch, d.el, outer, n,
                                  seg);
        src = scratch;
    }
    if (rc == TCOMM_SUCCESS)
        rc = tcomm_dev_use_direct(&d)
                 ? tcomm_direct_reduce_scatter_v(&d, src, out->data, count,
                                                 off, op)
                 : tcomm_staged_reduce_scatter_v(&d, src, out->data, count,
                                                 off, op);
    rc = scratch_free(&d, scratch, rc);
    free(a);
    return rc;
}
