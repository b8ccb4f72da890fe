/* SPDX-License-Identifier: BSD-3-Clause */
/* all_reduce on host tensors: its named algorithms, in the order they
 * are tried (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one
 * first). The byte ranges count the input's bytes. */
#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_call.h"
#include "tcomm_node_reduce.h"
#include "tcomm_user_ops.h"

/* Single copies through the node's arenas or cross-memory attach: the
 * rank-order fold, so deterministic mode takes it too. The tier (mapped
 * from 4 KiB, attach from TCOMM_NODE_ALL_REDUCE_MIN) is the node code's;
 * a failed copy on any rank sends every rank on, the inputs whole. */
static tcomm_status_t node_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    int tier =
        tcomm_node_reduce_applies(st, TCOMM_NODE_ALL_REDUCE, 1, in->nbytes);
    int done = 0;
    if (tier == TCOMM_NODE_MPI)
        return TCOMM_MPI_NOT_APPLIED;
    TCOMM_MPI_CHECK(tcomm_node_all_reduce(st, in->data, a->out->data, in->numel,
                                          in->dtype, a->op, tier, &done));
    return done ? TCOMM_SUCCESS : TCOMM_MPI_NOT_APPLIED; /* AVG divided */
}

static tcomm_status_t ordered_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    return tcomm_mpi_all_reduce_ordered(st, a->in, a->op, a->out);
}

static tcomm_status_t mpi_run(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, a->op, &mop));
    const void *send = a->out == in ? MPI_IN_PLACE : in->data;
    TCOMM_MPI_CHECK(tcomm_mpi_allreduce(send, a->out->data, in->numel,
                                        in->dtype, mop, st->comm));
    return tcomm_mpi_finish_avg(st, a->op, a->out);
}

static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_NODE_ALL_REDUCE, "single copies on one node",
     TCOMM_NODE_MAPPED_MIN, TCOMM_MPI_ANY_SIZE, tcomm_mpi_one_node, node_run},
    {TCOMM_PATH_HIER_ALL_REDUCE, "two levels, a slice per node rank "
     "across nodes", 0, TCOMM_MPI_ANY_SIZE,
     tcomm_hier_all_reduce_slices_applies, tcomm_hier_all_reduce_slices_run},
    {TCOMM_PATH_HIER_ALL_REDUCE_LEADERS, "two levels, the nodes' first ranks "
     "across nodes", 0, TCOMM_MPI_ANY_SIZE,
     tcomm_hier_all_reduce_leaders_applies, tcomm_hier_all_reduce_leaders_run},
    {TCOMM_PATH_MPI_ORDERED_FOLD, "rank-order fold (deterministic)", 0,
     TCOMM_MPI_ANY_SIZE, tcomm_mpi_deterministic, ordered_run},
    {TCOMM_PATH_MPI_ALLREDUCE, "MPI_Allreduce on host buffers", 0,
     TCOMM_MPI_ANY_SIZE, tcomm_mpi_any_order, mpi_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_all_reduce_table, TCOMM_COLL_ALL_REDUCE, "all_reduce",
                "input bytes", tcomm_mpi_input_bytes);
