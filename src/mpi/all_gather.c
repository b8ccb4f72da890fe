/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather on host tensors: its named algorithms, in the order they
 * are tried (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one
 * first). The byte ranges count the output's bytes per rank. */
#include <stdlib.h>

#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_mpi_reshape.h"
#include "tcomm_node_call.h"
#include "tcomm_node_gather.h"

/* The call seen as MPI sees it: outer rows, and per rank its elements
 * (seg), their offset (displs) and bytes (rb) in a row of the output. */
typedef struct {
    size_t outer, inner, es, total; /* total: a row's elements */
    size_t stack[3 * TCOMM_STACK_RANKS], *seg, *displs, *rb;
} layout_t;

static tcomm_status_t layout(const tcomm_mpi_state_t *st,
                             const tcomm_coll_args_t *a, layout_t *l)
{
    int n = st->size;
    l->es = tcomm_dtype_size(a->in->dtype);
    tcomm_dim_split(a->in, a->dim, &l->outer, &l->inner);
    l->seg = l->stack;
    if (n > TCOMM_STACK_RANKS &&
        !(l->seg = malloc(3 * (size_t)n * sizeof *l->seg)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_all_gather: out of host memory");
    l->displs = l->seg + n;
    l->rb = l->displs + n;
    l->total = 0;
    for (int r = 0; r < n; r++) {
        l->seg[r] = a->recv_sizes[r] * l->inner;
        l->rb[r] = l->seg[r] * l->es;
        l->displs[r] = l->total;
        l->total += l->seg[r];
    }
    return TCOMM_SUCCESS;
}

static tcomm_status_t done_with(layout_t *l, int rc)
{
    if (l->seg != l->stack)
        free(l->seg);
    if (rc == (int)TCOMM_MPI_NOT_APPLIED)
        return TCOMM_MPI_NOT_APPLIED;
    return tcomm_mpi_status(rc, "tcomm_all_gather", __FILE__, __LINE__);
}

static size_t bytes_per_rank(const tcomm_mpi_state_t *st,
                             const tcomm_coll_args_t *a)
{
    return a->out->nbytes / (size_t)st->size;
}

static int one_node(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return tcomm_node_gather_applies(st, a->out->nbytes);
}

/* Each rank reads its peers' inputs into place in its output
 * (src/mpi/node/node_gather.c); where a rank could not, every rank goes
 * on to the next row, which rewrites out whole. */
static tcomm_status_t node_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    layout_t l;
    int done = 0;
    TCOMM_TRY(layout(st, a, &l));
    int rc = tcomm_node_all_gather(st, a->in->data, a->out->data, l.outer, l.rb,
                                   (int)a->in->dtype, &done);
    return done_with(&l, rc == MPI_SUCCESS && !done ? (int)TCOMM_MPI_NOT_APPLIED
                                                    : rc);
}

static int along_dim0(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    (void)st;
    return tcomm_shape_prod(a->in->shape, 0, a->dim) == 1;
}

static tcomm_status_t allgatherv_run(tcomm_mpi_state_t *st,
                                     const tcomm_coll_args_t *a)
{
    layout_t l;
    TCOMM_TRY(layout(st, a, &l));
    return done_with(&l, tcomm_mpi_allgatherv(a->in->data, l.seg[st->rank],
                                              a->out->data, l.seg, l.displs,
                                              a->in->dtype, st->comm));
}

static tcomm_status_t reshape_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    layout_t l;
    TCOMM_TRY(layout(st, a, &l));
    return done_with(&l, tcomm_mpi_all_gather_dim(a->in->data, a->out->data,
                                                  a->in->dtype, l.outer, l.seg,
                                                  st->comm));
}

static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_NODE_ALL_GATHER, "single copies on one node",
     TCOMM_NODE_GATHER_MIN, TCOMM_MPI_ANY_SIZE, one_node, node_run},
    {TCOMM_PATH_HIER_ALL_GATHER,
     "two levels, the nodes' first ranks across "
     "nodes",
     0, TCOMM_MPI_ANY_SIZE, tcomm_hier_all_gather_applies,
     tcomm_hier_all_gather_run},
    {TCOMM_PATH_MPI_ALLGATHERV, "MPI_Allgatherv in place", 0,
     TCOMM_MPI_ANY_SIZE, along_dim0, allgatherv_run},
    {TCOMM_PATH_MPI_ALLGATHER_RESHAPE, "reshaping along dim > 0", 0,
     TCOMM_MPI_ANY_SIZE, NULL, reshape_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_all_gather_table, TCOMM_COLL_ALL_GATHER, "all_gather",
                "output bytes per rank", bytes_per_rank);
