/* SPDX-License-Identifier: BSD-3-Clause */
/* The two-level collectives (src/mpi/tcomm_hier.h). Between nodes only
 * one buffer per node travels, not one per rank: the node level runs
 * first (reductions) or last (distributions) on the child communicator,
 * whose calls take tcomm's single copies between the node's ranks.
 *
 *   all_reduce, every node the same size: each node rank owns 1/L of the
 *     buffer (L ranks per node): node reduce_scatter, MPI_Allreduce of
 *     that slice across nodes among the ranks of the same node rank (so
 *     every rank's link and core share the work), node all_gather;
 *     otherwise node all_reduce, MPI_Allreduce among the nodes' first
 *     ranks, node broadcast;
 *   reduce_scatter (dim 0, nodes of equal size holding consecutive
 *     ranks): the input seen as [node][node rank][chunk], node
 *     reduce_scatter along the node-rank dim gives each rank the node's
 *     partial of its chunk on every node, then MPI_Reduce_scatter_block
 *     among the ranks of the same node rank;
 *   all_gather (dim 0, consecutive ranks per node): node all_gather into
 *     the node's place of out, MPI_Allgatherv of the node blocks among
 *     the nodes' first ranks, node broadcast of out;
 *   broadcast: MPI_Bcast across nodes among the ranks of the root's node
 *     rank (its first rank where the nodes differ in size, after the
 *     root's node has the data), then a node broadcast.
 * AVG reduces as SUM on both levels and divides once by the whole size. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_hier.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"

/* A view of numel elements of t's dtype at data, shaped [d0][d1][d2]. */
static tcomm_tensor_t view3(const tcomm_tensor_t *t, void *data, size_t d0,
                            size_t d1, size_t d2)
{
    tcomm_tensor_t v;
    memset(&v, 0, sizeof v);
    v.graph = t->graph;
    v.dtype = t->dtype;
    v.ndim = 3;
    v.shape[0] = d0;
    v.shape[1] = d1;
    v.shape[2] = d2;
    v.numel = d0 * d1 * d2;
    v.nbytes = v.numel * tcomm_dtype_size(t->dtype);
    v.data = data;
    return v;
}

static tcomm_mpi_state_t *node_state(const tcomm_mpi_state_t *st)
{
    st->hier->node->seq++; /* the child's calls, numbered like any comm's */
    return st->hier->node->state;
}

static tcomm_status_t finish(tcomm_mpi_state_t *st, tcomm_op_t op,
                             tcomm_tensor_t *out)
{
    return tcomm_space_finish(&tcomm_memspace_host, NULL, out->dtype, op,
                              out->data, out->numel, st->size);
}

static tcomm_status_t no_memory(const char *fn)
{
    return tcomm_error(TCOMM_ERR_NO_MEMORY,
                       "%s: out of host memory for the two-level path", fn);
}

tcomm_status_t tcomm_hier_all_reduce(tcomm_mpi_state_t *st,
                                     const tcomm_tensor_t *in, tcomm_op_t op,
                                     tcomm_tensor_t *out)
{
    tcomm_hier_t *h = st->hier;
    tcomm_op_t lop = op == TCOMM_AVG ? TCOMM_SUM : op;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, lop, &mop));
    size_t n = in->numel, L = (size_t)h->node_size;
    tcomm_tensor_t in1 = view3(in, in->data, 1, 1, n);
    tcomm_tensor_t out1 = view3(out, out->data, 1, 1, n);
    /* in place: one view, as the flat paths tell in place by identity */
    tcomm_tensor_t *to = in->data == out->data ? &in1 : &out1;
    if (h->equal && n >= L && n % L == 0) {
        TCOMM_MPI_NOTE(st, ALL_REDUCE, HIER_ALLREDUCE,
                       "all_reduce: two levels, %d nodes x %zu ranks, a "
                       "slice per node rank across nodes", h->nodes, L);
        size_t q = n / L;
        void *slice = malloc(q * tcomm_dtype_size(in->dtype));
        if (!slice)
            return no_memory("tcomm_all_reduce");
        tcomm_tensor_t mine = view3(in, slice, 1, 1, q);
        tcomm_status_t s = tcomm_mpi_reduce_scatter(node_state(st), &in1, lop,
                                                    2, &mine);
        if (s == TCOMM_SUCCESS)
            s = tcomm_mpi_status(tcomm_mpi_allreduce(MPI_IN_PLACE, slice, q,
                                                     in->dtype, mop,
                                                     h->cross),
                                 "tcomm_all_reduce (across nodes)", __FILE__,
                                 __LINE__);
        size_t stack[TCOMM_STACK_RANKS], *sizes = stack;
        if (s == TCOMM_SUCCESS && L > TCOMM_STACK_RANKS &&
            !(sizes = malloc(L * sizeof *sizes)))
            s = no_memory("tcomm_all_reduce");
        if (s == TCOMM_SUCCESS) {
            for (size_t j = 0; j < L; j++)
                sizes[j] = q;
            s = tcomm_mpi_all_gather(node_state(st), &mine, 2, sizes, to);
        }
        if (sizes != stack)
            free(sizes);
        free(slice);
        TCOMM_TRY(s);
        return finish(st, op, out);
    }
    TCOMM_MPI_NOTE(st, ALL_REDUCE, HIER_ALLREDUCE_LEADERS,
                   "all_reduce: two levels, %d nodes, their first ranks "
                   "across nodes", h->nodes);
    TCOMM_TRY(tcomm_mpi_all_reduce(node_state(st), &in1, lop, to));
    if (h->node_rank == 0)
        TCOMM_MPI_CHECK(tcomm_mpi_allreduce(MPI_IN_PLACE, out->data, n,
                                            in->dtype, mop, h->cross));
    TCOMM_TRY(tcomm_mpi_broadcast(node_state(st), to, 0, to));
    return finish(st, op, out);
}

int tcomm_hier_reduce_scatter_applies(const tcomm_mpi_state_t *st,
                                      size_t outer)
{
    return tcomm_hier_reduces(st) && st->hier->equal && st->hier->by_slot &&
           outer == 1;
}

tcomm_status_t tcomm_hier_reduce_scatter(tcomm_mpi_state_t *st,
                                         const tcomm_tensor_t *in,
                                         tcomm_op_t op, tcomm_tensor_t *out)
{
    tcomm_hier_t *h = st->hier;
    size_t N = (size_t)h->nodes, L = (size_t)h->node_size, c = out->numel;
    TCOMM_MPI_NOTE(st, REDUCE_SCATTER, HIER_REDUCE_SCATTER,
                   "reduce_scatter: two levels, %d nodes x %zu ranks",
                   h->nodes, L);
    tcomm_op_t lop = op == TCOMM_AVG ? TCOMM_SUM : op;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, lop, &mop));
    void *part = malloc(N * c * tcomm_dtype_size(in->dtype) + 1);
    if (!part)
        return no_memory("tcomm_reduce_scatter");
    tcomm_tensor_t in3 = view3(in, in->data, N, L, c);
    tcomm_tensor_t part3 = view3(in, part, N, 1, c);
    tcomm_status_t s = tcomm_mpi_reduce_scatter(node_state(st), &in3, lop, 1,
                                                &part3);
    size_t *counts = s == TCOMM_SUCCESS ? malloc(N * sizeof *counts) : NULL;
    if (s == TCOMM_SUCCESS && !counts)
        s = no_memory("tcomm_reduce_scatter");
    if (s == TCOMM_SUCCESS) {
        /* MPI_Reduce_scatter with equal counts: Open MPI 4.1's block form
         * reduced to one rank and scattered (doc/performance.md, "Across
         * hosts") */
        for (size_t k = 0; k < N; k++)
            counts[k] = c;
        s = tcomm_mpi_status(tcomm_mpi_reduce_scatter_counts(part, out->data,
                                                             counts,
                                                             in->dtype, mop,
                                                             h->cross),
                             "tcomm_reduce_scatter (across nodes)", __FILE__,
                             __LINE__);
    }
    free(counts);
    free(part);
    TCOMM_TRY(s);
    return finish(st, op, out);
}

int tcomm_hier_all_gather_applies(const tcomm_mpi_state_t *st, size_t outer)
{
    return tcomm_hier_applies(st) && st->hier->by_slot && outer == 1;
}

tcomm_status_t tcomm_hier_all_gather(tcomm_mpi_state_t *st,
                                     const tcomm_tensor_t *in,
                                     const size_t *sizes, size_t inner,
                                     tcomm_tensor_t *out)
{
    tcomm_hier_t *h = st->hier;
    int N = h->nodes;
    TCOMM_MPI_NOTE(st, ALL_GATHER, HIER_ALLGATHER,
                   "all_gather: two levels, %d nodes, their first ranks "
                   "across nodes", N);
    size_t es = tcomm_dtype_size(in->dtype), *cnt = malloc(2 * (size_t)N *
                                                         sizeof *cnt);
    if (!cnt)
        return no_memory("tcomm_all_gather");
    size_t *displs = cnt + N, off = 0;
    for (int k = 0; k < N; k++) {
        cnt[k] = 0;
        for (int r = h->node_first[k]; r < h->node_first[k + 1]; r++)
            cnt[k] += sizes[r] * inner;
        displs[k] = off;
        off += cnt[k];
    }
    int me = h->node_index;
    const size_t *node_sizes = sizes + h->node_first[me];
    tcomm_tensor_t block = *out;
    block.shape[0] = cnt[me] / (inner ? inner : 1);
    block.numel = cnt[me];
    block.nbytes = cnt[me] * es;
    block.data = (char *)out->data + displs[me] * es;
    tcomm_tensor_t all = view3(out, out->data, 1, 1, off);
    tcomm_status_t s = tcomm_mpi_all_gather(node_state(st), in, 0,
                                            node_sizes, &block);
    if (s == TCOMM_SUCCESS && h->node_rank == 0)
        s = tcomm_mpi_status(tcomm_mpi_allgatherv(MPI_IN_PLACE, 0, out->data,
                                                  cnt, displs, in->dtype,
                                                  h->cross),
                             "tcomm_all_gather (across nodes)", __FILE__,
                             __LINE__);
    if (s == TCOMM_SUCCESS)
        s = tcomm_mpi_broadcast(node_state(st), &all, 0, &all);
    free(cnt);
    return s;
}

tcomm_status_t tcomm_hier_broadcast(tcomm_mpi_state_t *st, void *buf,
                                    const tcomm_tensor_t *in, int root)
{
    tcomm_hier_t *h = st->hier;
    TCOMM_MPI_NOTE(st, BROADCAST, HIER_BCAST,
                   "broadcast: two levels, %d nodes", h->nodes);
    size_t n = in->numel;
    tcomm_tensor_t all = view3(in, buf, 1, 1, n);
    /* The root's node and node rank: one MPI_Bcast within the node of
     * the root tells nobody else, so every rank computes them. */
    int root_node, root_local;
    tcomm_hier_locate(h, root, &root_node, &root_local);
    int via = h->equal ? root_local : 0; /* who carries it across */
    if (!h->equal && root_local != 0 && h->node_index == root_node)
        TCOMM_TRY(tcomm_mpi_broadcast(node_state(st), &all, root_local,
                                      &all));
    if (h->node_rank == via)
        TCOMM_MPI_CHECK(tcomm_mpi_bcast(buf, n, in->dtype, root_node,
                                        h->cross));
    if (h->equal || h->node_index != root_node || root_local == 0)
        TCOMM_TRY(tcomm_mpi_broadcast(node_state(st), &all, via, &all));
    return TCOMM_SUCCESS;
}
