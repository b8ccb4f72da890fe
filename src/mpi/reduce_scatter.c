/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_scatter on host tensors: its named algorithms, in the order they
 * are tried (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one
 * first). The byte ranges count the input's bytes. */
#include <stdlib.h>

#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_mpi_reshape.h"
#include "tcomm_node_call.h"
#include "tcomm_node_reduce.h"
#include "tcomm_user_ops.h"

/* Open MPI 4.1 runs MPI_Reduce_scatter with equal counts through a
 * faster algorithm than MPI_Reduce_scatter_block from about this size
 * (figures in doc/performance.md, "The baseline"); below, they are even. */
#define TCOMM_MPI_REDUCE_SCATTER_COUNTS_MIN ((size_t)256 << 10)

static size_t rows(const tcomm_coll_args_t *a)
{
    return tcomm_shape_prod(a->in->shape, 0, a->dim);
}

/* Single copies, the rank-order fold (deterministic mode takes it too);
 * the tier is the node code's (from 8 KiB along dim 0, 256 KiB along
 * dim > 0). */
static tcomm_status_t node_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    size_t outer = rows(a);
    size_t chunk = a->out->numel / (outer ? outer : 1);
    int tier = tcomm_node_reduce_applies(st, TCOMM_NODE_REDUCE_SCATTER, outer,
                                         in->nbytes);
    int done = 0;
    if (tier == TCOMM_NODE_MPI)
        return TCOMM_MPI_NOT_APPLIED;
    TCOMM_MPI_CHECK(tcomm_node_reduce_scatter(st, in->data, a->out->data,
                                              outer ? outer : 1, chunk, a->dim,
                                              in->dtype, a->op, tier, &done));
    return done ? TCOMM_SUCCESS : TCOMM_MPI_NOT_APPLIED; /* AVG divided */
}

static tcomm_status_t ordered_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    return tcomm_mpi_reduce_scatter_ordered(st, a->in, a->op, a->dim, a->out);
}

/* One MPI call on the buffers as they are: along dim 0, or an empty
 * output; not in deterministic mode. */
static int flat(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return !tcomm_mpi_deterministic(st, a) &&
           (rows(a) == 1 || a->out->numel == 0);
}

static int strided(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return !tcomm_mpi_deterministic(st, a) && !flat(st, a);
}

/* MPI's reduction on every rank's block, then AVG's division. */
static tcomm_status_t finish(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a,
                             int rc)
{
    TCOMM_TRY(tcomm_mpi_status(rc, "tcomm_reduce_scatter", __FILE__, __LINE__));
    return tcomm_mpi_finish_avg(st, a->op, a->out);
}

static tcomm_status_t counts_run(tcomm_mpi_state_t *st,
                                 const tcomm_coll_args_t *a)
{
    size_t stack[TCOMM_STACK_RANKS] = {0}, *count = stack;
    int n = st->size;
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(a->in->dtype, a->op, &mop));
    if (n > TCOMM_STACK_RANKS && !(count = malloc((size_t)n * sizeof *count)))
        return finish(st, a, MPI_ERR_NO_MEM);
    for (int r = 0; r < n; r++)
        count[r] = a->out->numel;
    int rc = tcomm_mpi_reduce_scatter_counts(a->in->data, a->out->data, count,
                                             a->in->dtype, mop, st->comm);
    if (count != stack)
        free(count);
    return finish(st, a, rc);
}

static tcomm_status_t block_run(tcomm_mpi_state_t *st,
                                const tcomm_coll_args_t *a)
{
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(a->in->dtype, a->op, &mop));
    return finish(st, a,
                  tcomm_mpi_reduce_scatter_block(a->in->data, a->out->data,
                                                 a->out->numel, a->in->dtype,
                                                 mop, st->comm));
}

static tcomm_status_t reshape_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    size_t outer = rows(a);
    MPI_Op mop;
    TCOMM_MPI_CHECK(tcomm_mpi_op(a->in->dtype, a->op, &mop));
    return finish(st, a,
                  tcomm_mpi_reduce_scatter_dim(
                      a->in->data, a->out->data, a->in->dtype, mop, outer,
                      a->out->numel / outer, st->comm));
}

static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_NODE_REDUCE_SCATTER, "single copies on one node",
     TCOMM_NODE_MAPPED_MIN, TCOMM_MPI_ANY_SIZE, tcomm_mpi_one_node, node_run},
    {TCOMM_PATH_HIER_REDUCE_SCATTER, "two levels, node rank by node rank "
     "across nodes", 0, TCOMM_MPI_ANY_SIZE, tcomm_hier_reduce_scatter_applies,
     tcomm_hier_reduce_scatter_run},
    {TCOMM_PATH_MPI_ORDERED_FOLD, "rank-order fold (deterministic)", 0,
     TCOMM_MPI_ANY_SIZE, tcomm_mpi_deterministic, ordered_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER, "MPI_Reduce_scatter, equal counts",
     TCOMM_MPI_REDUCE_SCATTER_COUNTS_MIN, TCOMM_MPI_ANY_SIZE, flat, counts_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block", 0,
     TCOMM_MPI_ANY_SIZE, flat, block_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER_RESHAPE, "reshaping along dim > 0", 0,
     TCOMM_MPI_ANY_SIZE, strided, reshape_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_reduce_scatter_table, TCOMM_COLL_REDUCE_SCATTER,
                "reduce_scatter", "input bytes", tcomm_mpi_input_bytes);
