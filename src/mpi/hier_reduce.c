/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce in two levels (src/mpi/tcomm_hier.h), a row of reduce's table
 * (src/mpi/reduce.c): on every node a reduce to the rank that crosses
 * (nodes of equal size: the rank of the root's node rank, so that the
 * root itself crosses; else every node's first rank), then MPI_Reduce
 * among those ranks, one per node, to the root's node; where the root
 * did not cross, its node's first rank hands it the result (a message on
 * the node). One buffer per node crosses the network, as in all_reduce's
 * levels. Not in deterministic mode (a fold per level changes the order
 * of the additions). AVG reduces as SUM on both levels; the root divides
 * once by the whole size. */
#include <stdlib.h>

#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_user_ops.h"

#define HAND_OVER_TAG 0x7c68

int tcomm_hier_reduce_applies(const tcomm_mpi_state_t *st,
                              const tcomm_coll_args_t *a)
{
    (void)a;
    return tcomm_hier_reduces(st);
}

/* The result from the node rank that crossed (from) to the root (to) on
 * the root's node, in pieces of at most the count limit. */
static tcomm_status_t hand_over(const tcomm_mpi_state_t *st, void *buf,
                                size_t count, tcomm_dtype_t dtype, int from,
                                int to)
{
    const tcomm_mpi_state_t *node = st->hier->node->state;
    MPI_Datatype type = tcomm_mpi_datatype(dtype);
    size_t lim = tcomm_mpi_count_limit(), es = tcomm_dtype_size(dtype);
    for (size_t off = 0, p; off < count; off += p) {
        p = count - off < lim ? count - off : lim;
        char *at = (char *)buf + off * es;
        if (st->hier->node_rank == from)
            TCOMM_MPI_CHECK(
                MPI_Send(at, (int)p, type, to, HAND_OVER_TAG, node->comm));
        else
            TCOMM_MPI_CHECK(MPI_Recv(at, (int)p, type, from, HAND_OVER_TAG,
                                     node->comm, MPI_STATUS_IGNORE));
    }
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_hier_reduce_run(tcomm_mpi_state_t *st,
                                     const tcomm_coll_args_t *a)
{
    const tcomm_hier_t *h = st->hier;
    const tcomm_tensor_t *in = a->in;
    int root_node, root_local;
    tcomm_hier_locate(h, a->root, &root_node, &root_local);
    int via = h->equal ? root_local : 0; /* who crosses on every node */
    int crossing_root = h->node_index == root_node && h->node_rank == via;
    tcomm_op_t lop = a->op == TCOMM_AVG ? TCOMM_SUM : a->op;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, lop, &mop));
    /* the node's partial, on the rank that crosses only: a tensor of its
     * own (the root's output may be its input); where the root does not
     * cross, the result lands first in a buffer of the rank that does */
    tcomm_tensor_t *part = NULL;
    void *result = NULL, *held = NULL;
    if (h->node_rank == via)
        TCOMM_TRY(tcomm_tensor_alloc("tcomm_reduce_into", in->graph,
                                     in->dtype, in->ndim, in->shape, &part));
    if (crossing_root)
        result = st->rank == a->root ? a->out->data
                                     : (held = malloc(in->nbytes + 1));
    if (crossing_root && !result) {
        tcomm_tensor_release(part);
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_reduce_into: out of "
                           "host memory for the two-level path");
    }
    tcomm_status_t s = tcomm_hier_on_node(st, &tcomm_mpi_reduce_table, in, part,
                                          lop, 0, via, NULL);
    if (s == TCOMM_SUCCESS && part)
        s = tcomm_hier_cross_reduce(st, part->data, result, part->numel,
                                    part->dtype, mop, root_node,
                                    "tcomm_reduce_into (across nodes)");
    if (part)
        tcomm_tensor_release(part);
    s = tcomm_hier_settle(st, s);
    if (s == TCOMM_SUCCESS && h->node_index == root_node && via != root_local &&
        (crossing_root || st->rank == a->root))
        s = hand_over(st, crossing_root ? result : a->out->data, in->numel,
                      in->dtype, via, root_local);
    free(held);
    if (s == TCOMM_SUCCESS && st->rank == a->root)
        s = tcomm_mpi_finish_avg(st, a->op, a->out);
    return s;
}
