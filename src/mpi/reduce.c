/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce (MPI_Reduce's semantics: the result on the root only) on host
 * tensors: its named algorithms, in the order they are tried
 * (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one first). The
 * byte ranges count the input's bytes. Off the root, args->out is NULL. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_call.h"
#include "tcomm_node_reduce.h"
#include "tcomm_user_ops.h"

/* The root's output, or a scratch tensor like the input elsewhere, for
 * the algorithms that leave the result on every rank. */
static tcomm_status_t output(const tcomm_mpi_state_t *st,
                             const tcomm_coll_args_t *a, tcomm_tensor_t **out)
{
    const tcomm_tensor_t *in = a->in;
    if (st->rank == a->root) {
        *out = a->out;
        return TCOMM_SUCCESS;
    }
    return tcomm_tensor_alloc("tcomm_reduce_into", in->graph, in->dtype,
                              in->ndim, in->shape, out);
}

static void done_with(const tcomm_coll_args_t *a, tcomm_tensor_t *out)
{
    if (out != a->out)
        tcomm_tensor_release(out);
}

/* all_reduce's rank-order fold, the result kept on the root: bitwise the
 * same as tcomm_all_reduce in deterministic mode. */
static tcomm_status_t ordered_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    tcomm_tensor_t *out;
    TCOMM_TRY(output(st, a, &out));
    tcomm_status_t s = tcomm_mpi_all_reduce_ordered(st, a->in, a->op, out);
    done_with(a, out);
    return s;
}

/* all_reduce's single copies on one node (the rank-order fold, so
 * deterministic mode may take it), into a scratch output off the root:
 * each rank folds its 1/n of the tensor and writes it to every rank's
 * output. */
static tcomm_status_t node_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    int done = 0, tier = tcomm_node_reduce_applies(st, TCOMM_NODE_ALL_REDUCE, 1,
                                                   in->nbytes);
    if (tier == TCOMM_NODE_MPI)
        return TCOMM_MPI_NOT_APPLIED;
    tcomm_tensor_t *out;
    TCOMM_TRY(output(st, a, &out));
    int rc = tcomm_node_all_reduce(st, in->data, out->data, in->numel,
                                   in->dtype, a->op, tier, &done);
    done_with(a, out);
    TCOMM_MPI_CHECK(rc);
    return done ? TCOMM_SUCCESS : TCOMM_MPI_NOT_APPLIED; /* AVG divided */
}

/* MPI_Reduce (large-count safe). In place the root sends a copy of its
 * input, not MPI_IN_PLACE: MPICH 4.0's MPI_Reduce read through
 * MPI_IN_PLACE at a root other than 0 from a few KiB (a segmentation
 * fault at address -1; 3000 ints at 2 ranks). */
static tcomm_status_t mpi_run(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    int root = st->rank == a->root;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, a->op, &mop));
    void *copy = NULL;
    if (root && a->out == in && in->nbytes && !(copy = malloc(in->nbytes)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "tcomm_reduce_into: out of "
                           "host memory for a copy of the input");
    if (copy)
        memcpy(copy, in->data, in->nbytes);
    int rc = in->numel ? tcomm_mpi_reduce(copy ? copy : in->data,
                                          root ? a->out->data : NULL, in->numel,
                                          in->dtype, mop, a->root, st->comm)
                       : MPI_SUCCESS; /* empty: no MPI call */
    free(copy);
    TCOMM_TRY(tcomm_mpi_status(rc, "tcomm_reduce_into", __FILE__, __LINE__));
    return root ? tcomm_mpi_finish_avg(st, a->op, a->out) : TCOMM_SUCCESS;
}

static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_NODE_ALL_REDUCE, "single copies on one node (all_reduce's)",
     TCOMM_NODE_MAPPED_MIN, TCOMM_MPI_ANY_SIZE, tcomm_mpi_one_node, node_run},
    {TCOMM_PATH_HIER_REDUCE, "two levels, the root's node rank across nodes", 0,
     TCOMM_MPI_ANY_SIZE, tcomm_hier_reduce_applies, tcomm_hier_reduce_run},
    {TCOMM_PATH_MPI_ORDERED_FOLD, "rank-order fold (deterministic)", 0,
     TCOMM_MPI_ANY_SIZE, tcomm_mpi_deterministic, ordered_run},
    {TCOMM_PATH_MPI_REDUCE, "MPI_Reduce on host buffers", 0, TCOMM_MPI_ANY_SIZE,
     tcomm_mpi_any_order, mpi_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_reduce_table, TCOMM_COLL_REDUCE, "reduce",
                "input bytes", tcomm_mpi_input_bytes);
