/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_scatter_v on host tensors: rank r gets the reduction over ranks
 * of its chunk, sizes[r] along dim at offset sum(sizes[<r]). Its named
 * algorithms, in the order they are tried (src/mpi/algo_select.c
 * chooses; TCOMM_TUNE may put one first); the byte ranges count the
 * input's bytes (the same tensor shape on every rank). Along dim 0 (or
 * only size-1 dims before it) the chunks are contiguous and rank-major
 * already: one MPI call on the tensors' own buffers, counts sizes[r] *
 * inner. The op is tcomm_mpi_op's (MPI's built-in where exact, tcomm's
 * user ops for f16/bf16 and NaN-propagating MIN/MAX); AVG is SUM and one
 * division. Counts above the MPI limit go through
 * tcomm_mpi_reduce_scatter_counts. */
#include <stdlib.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_mpi_reshape.h"
#include "tcomm_user_ops.h"

/* The call as MPI sees it: outer rows; per rank its elements in a row
 * (seg) and in all (count). */
typedef struct {
    size_t outer, stack[2 * TCOMM_STACK_RANKS], *seg, *count;
    MPI_Op op;
} layout_t;

static tcomm_status_t layout(const tcomm_mpi_state_t *st,
                             const tcomm_coll_args_t *a, layout_t *l)
{
    int n = st->size;
    size_t inner;
    TCOMM_MPI_CHECK(tcomm_mpi_op(a->in->dtype, a->op, &l->op));
    tcomm_dim_split(a->in, a->dim, &l->outer, &inner);
    l->seg = l->stack;
    if (n > TCOMM_STACK_RANKS &&
        !(l->seg = malloc(2 * (size_t)n * sizeof *l->seg)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_reduce_scatter_v: out of host memory for "
                           "%d ranks' counts", n);
    l->count = l->seg + n;
    for (int r = 0; r < n; r++) {
        l->seg[r] = a->send_sizes[r] * inner;
        l->count[r] = l->outer * l->seg[r];
    }
    return TCOMM_SUCCESS;
}

/* The layout freed; MPI's rc (TCOMM_MPI_NOT_APPLIED as it is), then
 * AVG's division. */
static tcomm_status_t finish(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a,
                             layout_t *l, int rc)
{
    if (l->seg != l->stack)
        free(l->seg);
    if (rc == (int)TCOMM_MPI_NOT_APPLIED)
        return TCOMM_MPI_NOT_APPLIED;
    TCOMM_TRY(tcomm_mpi_status(rc, "tcomm_reduce_scatter_v", __FILE__,
                               __LINE__));
    return tcomm_mpi_finish_avg(st, a->op, a->out);
}

static int equal_sizes(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    for (int r = 1; r < st->size; r++)
        if (a->send_sizes[r] != a->send_sizes[0])
            return 0;
    return 1;
}

static int along_dim0(const tcomm_coll_args_t *a)
{
    return tcomm_shape_prod(a->in->shape, 0, a->dim) <= 1;
}

static int dim0(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return tcomm_mpi_any_order(st, a) && along_dim0(a);
}

static int dim0_equal(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return dim0(st, a) && equal_sizes(st, a);
}

static int strided_equal(const tcomm_mpi_state_t *st,
                         const tcomm_coll_args_t *a)
{
    return tcomm_mpi_any_order(st, a) && !along_dim0(a) && equal_sizes(st, a);
}

static tcomm_status_t ordered_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    return tcomm_mpi_reduce_scatter_v_ordered(st, a->in, a->op, a->dim,
                                              a->send_sizes, a->out);
}

/* One MPI call on the buffers: MPI_Reduce_scatter_block, or
 * MPI_Reduce_scatter, or reduce_scatter's own reshaping algorithm
 * (reduce_scatter_dim.c). */
enum { BLOCK, COUNTS, RESHAPE };

static tcomm_status_t one_call(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a, int kind)
{
    const void *in = a->in->data;
    void *out = a->out->data;
    tcomm_dtype_t d = a->in->dtype;
    layout_t l;
    TCOMM_TRY(layout(st, a, &l));
    int rc = kind == BLOCK ? tcomm_mpi_reduce_scatter_block(
                                 in, out, l.count[0], d, l.op, st->comm)
             : kind == COUNTS
                 ? tcomm_mpi_reduce_scatter_counts(in, out, l.count, d, l.op,
                                                   st->comm)
                 : tcomm_mpi_reduce_scatter_dim(in, out, d, l.op, l.outer,
                                                l.seg[0], st->comm);
    return finish(st, a, &l, rc);
}

static tcomm_status_t block_run(tcomm_mpi_state_t *st,
                                const tcomm_coll_args_t *a)
{
    return one_call(st, a, BLOCK);
}

static tcomm_status_t counts_run(tcomm_mpi_state_t *st,
                                 const tcomm_coll_args_t *a)
{
    return one_call(st, a, COUNTS);
}

static tcomm_status_t reshape_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a)
{
    return one_call(st, a, RESHAPE);
}

/* Pipelined groups (reduce_scatter_v_pipe.c), which stay in cache where
 * a whole packed input does not; fewer than two groups: the next row. */
static tcomm_status_t pipe_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    layout_t l;
    int done = 0;
    TCOMM_TRY(layout(st, a, &l));
    int rc = tcomm_mpi_reduce_scatter_v_pipe(
        a->in->data, a->out->data, a->in->dtype, l.op,
        l.outer ? l.outer : 1, l.seg, st->comm, &done);
    return finish(st, a, &l,
                  rc == MPI_SUCCESS && !done ? (int)TCOMM_MPI_NOT_APPLIED
                                             : rc);
}

/* split_pack into a rank-major temporary, then the dim-0 form, whose
 * result lands in out directly (block r of the temporary is
 * [outer][sizes[r] * inner], out's layout on rank r). */
static tcomm_status_t pack_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    layout_t l;
    TCOMM_TRY(layout(st, a, &l));
    char stack[TCOMM_RS_STACK], *tmp;
    int rc = tcomm_rs_alloc(a->in->nbytes, stack, &tmp, st->comm);
    if (rc == MPI_SUCCESS) {
        tcomm_host_split_pack(a->in->data, tmp, tcomm_dtype_size(a->in->dtype),
                              l.outer, st->size, l.seg);
        rc = tcomm_mpi_reduce_scatter_counts(tmp, a->out->data, l.count,
                                             a->in->dtype, l.op, st->comm);
        tcomm_rs_free(tmp, stack);
    }
    return finish(st, a, &l, rc);
}

/* Along dim 0 the pipeline takes over from 2 MiB. Measured on 2 ranks
 * (f32 SUM, [n/64][64], 40 calls interleaved with the one-call forms,
 * lower quartile, shared 2-core machine at load 7): 1 MiB equal 0.36 ms
 * against 0.48 (Reduce_scatter_block) and 1.0 (Reduce_scatter), uneven
 * 0.26 against 0.17; 4 MiB equal 3.9 against 6.0, uneven 7.2 against
 * 17; 16 MiB equal 29 against 32, uneven 11 against 28. Hence 2 MiB,
 * between the sizes where one call and the pipeline won. Along dim > 0
 * it takes uneven chunks at every size it can cut into two groups (equal
 * ones go to the reshaping before it). */
static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_MPI_ORDERED_FOLD, "rank-order fold (deterministic)", 0,
     TCOMM_MPI_ANY_SIZE, tcomm_mpi_deterministic, ordered_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER_BLOCK, "equal chunks along dim 0: "
     "MPI_Reduce_scatter_block", 0, (size_t)2 << 20, dim0_equal, block_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER, "along dim 0: MPI_Reduce_scatter", 0,
     (size_t)2 << 20, dim0, counts_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER_RESHAPE, "equal chunks along dim > 0: "
     "reduce_scatter's reshaping", 0, TCOMM_MPI_ANY_SIZE, strided_equal,
     reshape_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER_PIPE, "pipelined (split_pack +) "
     "MPI_Ireduce_scatter in groups", 0, TCOMM_MPI_ANY_SIZE,
     tcomm_mpi_any_order, pipe_run},
    {TCOMM_PATH_MPI_REDUCE_SCATTER_PACK, "uneven chunks along dim > 0: "
     "split_pack + MPI_Reduce_scatter", 0, TCOMM_MPI_ANY_SIZE,
     tcomm_mpi_any_order, pack_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_reduce_scatter_v_table, TCOMM_COLL_REDUCE_SCATTER_V,
                "reduce_scatter_v", "input bytes", tcomm_mpi_input_bytes);
