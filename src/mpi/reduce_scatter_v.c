/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_scatter_v on host tensors: rank r gets the reduction over ranks
 * of its chunk, sizes[r] along dim at offset sum(sizes[<r]).
 *
 *   deterministic: the rank-order fold of src/mpi/ordered.c;
 *   dim 0 (or only size-1 dims before it): one MPI_Reduce_scatter on the
 *     tensors' own buffers, counts sizes[r] * inner (the chunks are
 *     contiguous and rank-major already), or MPI_Reduce_scatter_block
 *     for equal sizes (reduce_scatter's own call); from
 *     TCOMM_RSV_PIPE_FROM bytes the pipeline below instead, whose
 *     groups stay in cache (see there);
 *   dim > 0, equal sizes: reduce_scatter's own reshaping algorithm
 *     (src/mpi/reduce_scatter_dim.c, pipelined);
 *   dim > 0, uneven: split_pack into a rank-major temporary, then the
 *     dim-0 form, whose result lands in out directly (block r of the
 *     temporary is [outer][sizes[r] * inner], out's layout on rank r);
 *     in pipelined groups (reduce_scatter_v_pipe.c) where there are at
 *     least two, whole otherwise.
 * The op is tcomm_mpi_op's (MPI's built-in where exact, tcomm's user ops
 * for f16/bf16 and NaN-propagating MIN/MAX); AVG is SUM and one division.
 * Counts above the MPI limit go through tcomm_mpi_reduce_scatter_counts. */
#include <stdlib.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_mpi_reshape.h"

/* From here on dim 0 is pipelined too. Measured on 2 ranks (f32 SUM,
 * [n/64][64], 40 calls interleaved with the one-call forms, lower
 * quartile, shared 2-core machine at load 7): 1 MiB equal 0.36 ms
 * against 0.48 (Reduce_scatter_block) and 1.0 (Reduce_scatter), uneven
 * 0.26 against 0.17; 4 MiB equal 3.9 against 6.0, uneven 7.2 against
 * 17; 16 MiB equal 29 against 32, uneven 11 against 28. Hence 2 MiB,
 * between the sizes where one call and the pipeline won. */
#ifndef TCOMM_RSV_PIPE_FROM
#define TCOMM_RSV_PIPE_FROM ((size_t)2 << 20)
#endif

static int all_equal(const size_t *sizes, int n)
{
    for (int r = 1; r < n; r++)
        if (sizes[r] != sizes[0])
            return 0;
    return 1;
}

/* The non-deterministic forms; seg[r] = sizes[r] * inner, count[r] =
 * outer * seg[r]. Returns an MPI error code. */
static int reduce_scatter_v_mpi(tcomm_mpi_state_t *st,
                                const tcomm_tensor_t *in, MPI_Op mop,
                                size_t outer, const size_t *sizes,
                                const size_t *seg, const size_t *count,
                                tcomm_tensor_t *out)
{
    int n = st->size, done, rc;
    if (outer <= 1 && in->nbytes >= TCOMM_RSV_PIPE_FROM) {
        rc = tcomm_mpi_reduce_scatter_v_pipe(in->data, out->data, in->dtype,
                                             mop, 1, seg, st->comm, &done);
        if (rc != MPI_SUCCESS || done) {
            TCOMM_MPI_NOTE(st, REDUCE_SCATTER_V, MPI_REDUCE_SCATTER_PIPE,
                           "reduce_scatter_v: large along dim 0: pipelined "
                           "MPI_Ireduce_scatter");
            return rc;
        }
    }
    if (outer <= 1 && all_equal(sizes, n)) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER_V, MPI_REDUCE_SCATTER_BLOCK,
                       "reduce_scatter_v: equal chunks along dim 0: "
                       "MPI_Reduce_scatter_block");
        return tcomm_mpi_reduce_scatter_block(in->data, out->data, count[0],
                                              in->dtype, mop, st->comm);
    }
    if (outer <= 1) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER_V, MPI_REDUCE_SCATTER,
                       "reduce_scatter_v: MPI_Reduce_scatter on host buffers");
        return tcomm_mpi_reduce_scatter_counts(in->data, out->data, count,
                                               in->dtype, mop, st->comm);
    }
    if (all_equal(sizes, n)) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER_V, MPI_REDUCE_SCATTER_RESHAPE,
                       "reduce_scatter_v: equal chunks along dim > 0: "
                       "reduce_scatter's reshaping");
        return tcomm_mpi_reduce_scatter_dim(in->data, out->data, in->dtype,
                                            mop, outer, seg[0], st->comm);
    }
    rc = tcomm_mpi_reduce_scatter_v_pipe(in->data, out->data, in->dtype, mop,
                                         outer, seg, st->comm, &done);
    if (rc != MPI_SUCCESS || done) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER_V, MPI_REDUCE_SCATTER_PIPE,
                       "reduce_scatter_v: uneven chunks along dim > 0: "
                       "pipelined split_pack + MPI_Ireduce_scatter");
        return rc;
    }
    TCOMM_MPI_NOTE(st, REDUCE_SCATTER_V, MPI_REDUCE_SCATTER_PACK,
                   "reduce_scatter_v: uneven chunks along dim > 0: "
                   "split_pack + MPI_Reduce_scatter");
    char stack[TCOMM_RS_STACK], *tmp;
    rc = tcomm_rs_alloc(in->nbytes, stack, &tmp, st->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_host_split_pack(in->data, tmp, tcomm_dtype_size(in->dtype), outer,
                          n, seg);
    rc = tcomm_mpi_reduce_scatter_counts(tmp, out->data, count, in->dtype,
                                         mop, st->comm);
    tcomm_rs_free(tmp, stack);
    return rc;
}

tcomm_status_t tcomm_mpi_reduce_scatter_v(void *state,
                                          const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          const size_t *sizes,
                                          tcomm_tensor_t *out)
{
    tcomm_mpi_state_t *st = state;
    int n = st->size;
    if (st->owner->deterministic) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER_V, MPI_ORDERED_FOLD,
                       "reduce_scatter_v: rank-order fold (deterministic)");
        TCOMM_TRY(tcomm_mpi_reduce_scatter_v_ordered(st, in, op, dim, sizes,
                                                     out));
    } else {
        MPI_Op mop;
        TCOMM_MPI_CHECK(tcomm_mpi_op(in->dtype, op, &mop));
        size_t outer, inner;
        tcomm_dim_split(in, dim, &outer, &inner);
        size_t stack[2 * TCOMM_STACK_RANKS], *seg = stack;
        if (n > TCOMM_STACK_RANKS &&
            !(seg = malloc(2 * (size_t)n * sizeof *seg)))
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "tcomm_reduce_scatter_v: out of host memory "
                               "for %d ranks' counts", n);
        size_t *count = seg + n;
        for (int r = 0; r < n; r++) {
            seg[r] = sizes[r] * inner;
            count[r] = outer * seg[r];
        }
        int rc = reduce_scatter_v_mpi(st, in, mop, outer, sizes, seg, count,
                                      out);
        if (seg != stack)
            free(seg);
        TCOMM_TRY(tcomm_mpi_status(rc, "tcomm_reduce_scatter_v", __FILE__,
                                   __LINE__));
    }
    return tcomm_space_finish(&tcomm_memspace_host, NULL, out->dtype, op,
                              out->data, out->numel, n);
}
