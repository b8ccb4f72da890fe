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
 *   reduce_scatter (only size-1 dims before dim, nodes of equal size holding consecutive
 *     ranks): the input seen as [node][node rank][chunk], node
 *     reduce_scatter along the node-rank dim gives each rank the node's
 *     partial of its chunk on every node, then MPI_Reduce_scatter (equal
 *     counts) among the ranks of the same node rank;
 *   all_gather (only size-1 dims before dim, consecutive ranks per node): node all_gather into
 *     the node's place of out, MPI_Allgatherv of the node blocks among
 *     the nodes' first ranks, node broadcast of out;
 *   broadcast (ranks not consecutive per node, as round robin places
 *     them): MPI_Bcast across nodes among the ranks of the root's node
 *     rank (its first rank where the nodes differ in size, after the
 *     root's node has the data), then a node broadcast.
 * AVG reduces as SUM on both levels and divides once by the whole size.
 * Each is a row of its collective's table (all_reduce.c, ...), which
 * names it in INFO and TRACE lines and lets TCOMM_TUNE choose it. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_user_ops.h"

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

/* One collective on the node's child communicator, chosen by its table
 * like any call of the MPI backend (the node's single copies). */
tcomm_status_t tcomm_hier_on_node(const tcomm_mpi_state_t *st,
                                  const tcomm_mpi_coll_table_t *t,
                                  const tcomm_tensor_t *in, tcomm_tensor_t *out,
                                  tcomm_op_t op, int dim, int root,
                                  const size_t *sizes)
{
    tcomm_coll_args_t a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.coll = t->coll;
    a.in = in;
    a.out = out;
    a.op = op;
    a.dim = dim;
    a.root = root;
    a.recv_sizes = sizes;
    st->hier->node->seq++; /* the child's calls, numbered like any comm's */
    return tcomm_mpi_algo_run(st->hier->node->state, t, &a);
}

static tcomm_status_t no_memory(const char *fn)
{
    return tcomm_error(TCOMM_ERR_NO_MEMORY,
                       "%s: out of host memory for the two-level path", fn);
}

/* The views of a call's input and output as [1][1][n] (in place: one
 * view, as the flat paths tell in place by identity). */
typedef struct {
    tcomm_tensor_t in1, out1, *to;
    tcomm_op_t lop; /* AVG reduces as SUM on both levels */
    MPI_Op mop;
} flat_views_t;

static tcomm_status_t views(const tcomm_coll_args_t *a, flat_views_t *v)
{
    size_t n = a->in->numel;
    v->in1 = view3(a->in, a->in->data, 1, 1, n);
    v->out1 = view3(a->out, a->out->data, 1, 1, n);
    v->to = a->in->data == a->out->data ? &v->in1 : &v->out1;
    v->lop = a->op == TCOMM_AVG ? TCOMM_SUM : a->op;
    TCOMM_MPI_CHECK(tcomm_mpi_op(a->in->dtype, v->lop, &v->mop));
    return TCOMM_SUCCESS;
}

int tcomm_hier_all_reduce_slices_applies(const tcomm_mpi_state_t *st,
                                         const tcomm_coll_args_t *a)
{
    size_t L = st->hier ? (size_t)st->hier->node_size : 0;
    return tcomm_hier_reduces(st) && st->hier->equal && a->in->numel >= L &&
           a->in->numel % L == 0;
}

tcomm_status_t tcomm_hier_all_reduce_slices_run(tcomm_mpi_state_t *st,
                                                const tcomm_coll_args_t *a)
{
    tcomm_hier_t *h = st->hier;
    flat_views_t v;
    TCOMM_TRY(views(a, &v));
    size_t L = (size_t)h->node_size, q = a->in->numel / L;
    void *slice = malloc(q * tcomm_dtype_size(a->in->dtype));
    size_t stack[TCOMM_STACK_RANKS], *sizes = stack;
    if (!slice || (L > TCOMM_STACK_RANKS && !(sizes = malloc(L * sizeof *sizes)))) {
        free(slice);
        return no_memory("tcomm_all_reduce");
    }
    for (size_t j = 0; j < L; j++)
        sizes[j] = q;
    tcomm_tensor_t mine = view3(a->in, slice, 1, 1, q);
    tcomm_status_t s = tcomm_hier_on_node(st, &tcomm_mpi_reduce_scatter_table,
                                          &v.in1, &mine, v.lop, 2, 0, NULL);
    if (s == TCOMM_SUCCESS)
        s = tcomm_hier_cross_allreduce(st, slice, q, a->in->dtype, v.mop,
                                       "tcomm_all_reduce (across nodes)");
    s = tcomm_hier_settle(st, s);
    if (s == TCOMM_SUCCESS)
        s = tcomm_hier_on_node(st, &tcomm_mpi_all_gather_table, &mine, v.to,
                               v.lop, 2, 0, sizes);
    if (sizes != stack)
        free(sizes);
    free(slice);
    TCOMM_TRY(s);
    return tcomm_mpi_finish_avg(st, a->op, a->out);
}

int tcomm_hier_all_reduce_leaders_applies(const tcomm_mpi_state_t *st,
                                          const tcomm_coll_args_t *a)
{
    (void)a;
    return tcomm_hier_reduces(st);
}

tcomm_status_t tcomm_hier_all_reduce_leaders_run(tcomm_mpi_state_t *st,
                                                 const tcomm_coll_args_t *a)
{
    tcomm_hier_t *h = st->hier;
    flat_views_t v;
    TCOMM_TRY(views(a, &v));
    tcomm_status_t s = tcomm_hier_on_node(st, &tcomm_mpi_all_reduce_table,
                                          &v.in1, v.to, v.lop, 0, 0, NULL);
    if (s == TCOMM_SUCCESS && h->node_rank == 0)
        s = tcomm_hier_cross_allreduce(st, a->out->data, a->in->numel,
                                       a->in->dtype, v.mop,
                                       "tcomm_all_reduce (across nodes)");
    TCOMM_TRY(tcomm_hier_settle(st, s));
    TCOMM_TRY(tcomm_hier_on_node(st, &tcomm_mpi_broadcast_table, v.to, v.to,
                                 v.lop, 0, 0, NULL));
    return tcomm_mpi_finish_avg(st, a->op, a->out);
}

int tcomm_hier_reduce_scatter_applies(const tcomm_mpi_state_t *st,
                                      const tcomm_coll_args_t *a)
{
    return tcomm_hier_reduces(st) && st->hier->equal && st->hier->by_slot &&
           tcomm_shape_prod(a->in->shape, 0, a->dim) == 1 &&
           a->out->numel > 0;
}

tcomm_status_t tcomm_hier_reduce_scatter_run(tcomm_mpi_state_t *st,
                                             const tcomm_coll_args_t *a)
{
    tcomm_hier_t *h = st->hier;
    const tcomm_tensor_t *in = a->in;
    size_t N = (size_t)h->nodes, L = (size_t)h->node_size, c = a->out->numel;
    tcomm_op_t lop = a->op == TCOMM_AVG ? TCOMM_SUM : a->op;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, lop, &mop));
    void *part = malloc(N * c * tcomm_dtype_size(in->dtype));
    if (!part)
        return no_memory("tcomm_reduce_scatter");
    tcomm_tensor_t in3 = view3(in, in->data, N, L, c);
    tcomm_tensor_t part3 = view3(in, part, N, 1, c);
    tcomm_status_t s = tcomm_hier_on_node(st, &tcomm_mpi_reduce_scatter_table,
                                          &in3, &part3, lop, 1, 0, NULL);
    if (s == TCOMM_SUCCESS)
        s = tcomm_hier_cross_reduce_scatter(
            st, part, a->out->data, c, in->dtype, mop,
            "tcomm_reduce_scatter (across nodes)");
    free(part);
    TCOMM_TRY(tcomm_hier_settle(st, s));
    return tcomm_mpi_finish_avg(st, a->op, a->out);
}

int tcomm_hier_all_gather_applies(const tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    return tcomm_hier_applies(st) && st->hier->by_slot &&
           tcomm_shape_prod(a->in->shape, 0, a->dim) == 1;
}

tcomm_status_t tcomm_hier_all_gather_run(tcomm_mpi_state_t *st,
                                         const tcomm_coll_args_t *a)
{
    tcomm_hier_t *h = st->hier;
    const tcomm_tensor_t *in = a->in;
    tcomm_tensor_t *out = a->out;
    int N = h->nodes;
    size_t outer, inner, es = tcomm_dtype_size(in->dtype);
    tcomm_dim_split(in, a->dim, &outer, &inner);
    size_t *cnt = malloc(2 * (size_t)N * sizeof *cnt);
    if (!cnt)
        return no_memory("tcomm_all_gather");
    size_t *displs = cnt + N, off = 0;
    for (int k = 0; k < N; k++) {
        cnt[k] = 0;
        for (int r = h->node_first[k]; r < h->node_first[k + 1]; r++)
            cnt[k] += a->recv_sizes[r] * inner;
        displs[k] = off;
        off += cnt[k];
    }
    int me = h->node_index;
    /* this node's block of out, shaped as out along dim */
    tcomm_tensor_t block = *out;
    block.shape[a->dim] = cnt[me] / (inner ? inner : 1);
    block.numel = cnt[me];
    block.nbytes = cnt[me] * es;
    block.data = (char *)out->data + displs[me] * es;
    tcomm_tensor_t all = view3(out, out->data, 1, 1, off);
    tcomm_status_t s = tcomm_hier_on_node(st, &tcomm_mpi_all_gather_table, in,
                                          &block, TCOMM_SUM, a->dim, 0,
                                          a->recv_sizes + h->node_first[me]);
    if (s == TCOMM_SUCCESS && h->node_rank == 0)
        s = tcomm_hier_cross_allgatherv(st, out->data, cnt, displs, in->dtype,
                                        "tcomm_all_gather (across nodes)");
    s = tcomm_hier_settle(st, s);
    if (s == TCOMM_SUCCESS)
        s = tcomm_hier_on_node(st, &tcomm_mpi_broadcast_table, &all, &all,
                               TCOMM_SUM, 0, 0, NULL);
    free(cnt);
    return s;
}

int tcomm_hier_broadcast_applies(const tcomm_mpi_state_t *st,
                                 const tcomm_coll_args_t *a)
{
    (void)a;
    /* Where each node's ranks are consecutive, MPI's own tree crosses
     * between nodes once per node too, and pipelines the two levels,
     * which these do not (doc/performance.md, "Across hosts"). */
    return tcomm_hier_applies(st) && !st->hier->by_slot;
}

tcomm_status_t tcomm_hier_broadcast_run(tcomm_mpi_state_t *st,
                                        const tcomm_coll_args_t *a)
{
    tcomm_hier_t *h = st->hier;
    const tcomm_tensor_t *in = a->in;
    /* The root sends from its input (only read) and copies it to out. */
    void *buf = st->rank == a->root ? in->data : a->out->data;
    tcomm_tensor_t all = view3(in, buf, 1, 1, in->numel);
    /* Every rank knows the root's node and node rank from the layout. */
    int root_node, root_local;
    tcomm_hier_locate(h, a->root, &root_node, &root_local);
    int via = h->equal ? root_local : 0; /* who carries it across */
    if (!h->equal && root_local != 0 && h->node_index == root_node)
        TCOMM_TRY(tcomm_hier_on_node(st, &tcomm_mpi_broadcast_table, &all, &all,
                                     TCOMM_SUM, 0, root_local, NULL));
    tcomm_status_t s = TCOMM_SUCCESS;
    if (h->node_rank == via)
        s = tcomm_hier_cross_bcast(st, buf, in->numel, in->dtype, root_node,
                                   "tcomm_broadcast (across nodes)");
    TCOMM_TRY(tcomm_hier_settle(st, s));
    if (h->equal || h->node_index != root_node || root_local == 0)
        TCOMM_TRY(tcomm_hier_on_node(st, &tcomm_mpi_broadcast_table, &all, &all,
                                     TCOMM_SUM, 0, via, NULL));
    if (st->rank == a->root && a->out != a->in)
        return tcomm_tensor_copy(a->in, a->out);
    return TCOMM_SUCCESS;
}
