/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce in two levels (src/mpi/tcomm_hier.h), a row of reduce's table
 * (src/mpi/reduce.c): on every node a reduce to the rank of the root's
 * node rank (the node's single copies), then MPI_Reduce among the ranks
 * of that node rank, one per node, to the root. One buffer per node
 * crosses the network, as in all_reduce's levels. Nodes of equal size
 * only (every node has a rank of the root's node rank), and not in
 * deterministic mode (a fold per level changes the order of the
 * additions). AVG reduces as SUM on both levels; the root divides once
 * by the whole size. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"

int tcomm_hier_reduce_applies(const tcomm_mpi_state_t *st,
                              const tcomm_coll_args_t *a)
{
    (void)a;
    return tcomm_hier_reduces(st) && st->hier->equal;
}

tcomm_status_t tcomm_hier_reduce_run(tcomm_mpi_state_t *st,
                                     const tcomm_coll_args_t *a)
{
    const tcomm_hier_t *h = st->hier;
    const tcomm_tensor_t *in = a->in;
    int root_node, root_local;
    tcomm_hier_locate(h, a->root, &root_node, &root_local);
    tcomm_op_t lop = a->op == TCOMM_AVG ? TCOMM_SUM : a->op;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, lop, &mop));
    /* the node's partial, on the rank of the root's node rank only: a
     * buffer of its own (the root's output may be its input) */
    tcomm_tensor_t *part = NULL;
    if (h->node_rank == root_local)
        TCOMM_TRY(tcomm_tensor_alloc("tcomm_reduce_into", in->graph,
                                     in->dtype, in->ndim, in->shape, &part));
    /* the node's reduce to the rank of the root's node rank */
    tcomm_status_t s = tcomm_hier_on_node(st, &tcomm_mpi_reduce_table, in, part,
                                          lop, 0, root_local, NULL);
    if (s == TCOMM_SUCCESS && part)
        s = tcomm_hier_cross_reduce(st, part->data,
                                    st->rank == a->root ? a->out->data : NULL,
                                    part->numel, part->dtype, mop, root_node,
                                    "tcomm_reduce_into (across nodes)");
    if (part)
        tcomm_tensor_release(part);
    s = tcomm_hier_settle(st, s);
    if (s == TCOMM_SUCCESS && st->rank == a->root)
        s = tcomm_mpi_finish_avg(st, a->op, a->out);
    return s;
}
