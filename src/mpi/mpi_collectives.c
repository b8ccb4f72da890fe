/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI backend's collectives on host tensors. Along dim 0 (or when
 * every dim before it has size 1) each maps onto one MPI call on the
 * tensors' own buffers; along dim > 0 the reshaping algorithms of
 * src/mpi/ run. Tensors on device spaces never come here: the backend
 * hands them to src/mpi/device/. */
#include <stdlib.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_hier.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_mpi_reshape.h"
#include "tcomm_node_gather.h"
#include "tcomm_node_reduce.h"
#include "tcomm_shm_bcast.h"

static tcomm_status_t finish_avg(tcomm_mpi_state_t *st, tcomm_op_t op,
                                 tcomm_tensor_t *out)
{
    return tcomm_space_finish(&tcomm_memspace_host, NULL, out->dtype, op,
                              out->data, out->numel, st->size);
}

static tcomm_status_t reduction_op(tcomm_dtype_t dtype, tcomm_op_t op,
                                   MPI_Op *mop)
{
    TCOMM_MPI_CHECK(tcomm_mpi_op(dtype, op, mop));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_mpi_all_reduce(void *state, const tcomm_tensor_t *in,
                                    tcomm_op_t op, tcomm_tensor_t *out)
{
    tcomm_mpi_state_t *st = state;
    if (tcomm_hier_reduces(st))
        return tcomm_hier_all_reduce(st, in, op, out);
    /* the rank-order fold, so deterministic mode takes it too */
    int tier = tcomm_node_reduce_applies(st, TCOMM_NODE_ALL_REDUCE, 1,
                                         in->nbytes);
    if (tier != TCOMM_NODE_MPI) {
        int done = 0;
        TCOMM_MPI_NOTE(st, ALL_REDUCE, NODE_ALLREDUCE,
                       "all_reduce: single copies on one node");
        TCOMM_MPI_CHECK(tcomm_node_all_reduce(st, in->data, out->data,
                                              in->numel, in->dtype, op, tier,
                                              &done));
        if (done) /* AVG divided already */
            return TCOMM_SUCCESS;
    }
    if (st->owner->deterministic) {
        TCOMM_MPI_NOTE(st, ALL_REDUCE, MPI_ORDERED_FOLD,
                       "all_reduce: rank-order fold (deterministic)");
        TCOMM_TRY(tcomm_mpi_all_reduce_ordered(st, in, op, out));
        return finish_avg(st, op, out);
    }
    TCOMM_MPI_NOTE(st, ALL_REDUCE, MPI_ALLREDUCE,
                   "all_reduce: MPI_Allreduce on host buffers");
    MPI_Op mop;
    TCOMM_TRY(reduction_op(in->dtype, op, &mop));
    const void *send = out == in ? MPI_IN_PLACE : in->data;
    TCOMM_MPI_CHECK(tcomm_mpi_allreduce(send, out->data, in->numel,
                                        in->dtype, mop, st->comm));
    return finish_avg(st, op, out);
}

tcomm_status_t tcomm_mpi_all_gather(void *state, const tcomm_tensor_t *in,
                                    int dim, const size_t *sizes,
                                    tcomm_tensor_t *out)
{
    tcomm_mpi_state_t *st = state;
    int n = st->size;
    size_t outer, inner, es = tcomm_dtype_size(in->dtype);
    tcomm_dim_split(in, dim, &outer, &inner);
    if (tcomm_hier_all_gather_applies(st, outer))
        return tcomm_hier_all_gather(st, in, sizes, inner, out);
    size_t stack[3 * TCOMM_STACK_RANKS], *seg = stack;
    if (n > TCOMM_STACK_RANKS && !(seg = malloc(3 * (size_t)n * sizeof *seg)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_all_gather: out of host memory");
    size_t *displs = seg + n, *rb = displs + n, off = 0;
    for (int r = 0; r < n; r++) {
        seg[r] = sizes[r] * inner;
        rb[r] = seg[r] * es;
        displs[r] = off;
        off += seg[r];
    }
    int rc = MPI_SUCCESS, done = 0;
    /* on one node, each rank reads its peers' inputs into place
     * (src/mpi/node/node_gather.c); MPI where it does not apply or did
     * not copy (it rewrites out whole) */
    if (tcomm_node_gather_applies(st, outer * off * es)) {
        rc = tcomm_node_all_gather(st, in->data, out->data, outer, rb,
                                   (int)in->dtype, &done);
        if (done)
            TCOMM_MPI_NOTE(st, ALL_GATHER, NODE_ALLGATHER,
                           "all_gather: single copies on one node");
    }
    if (rc == MPI_SUCCESS && !done) {
        if (outer == 1) {
            TCOMM_MPI_NOTE(st, ALL_GATHER, MPI_ALLGATHERV,
                           "all_gather: MPI_Allgatherv in place");
            rc = tcomm_mpi_allgatherv(in->data, seg[st->rank], out->data,
                                      seg, displs, in->dtype, st->comm);
        } else {
            TCOMM_MPI_NOTE(st, ALL_GATHER, MPI_ALLGATHER_RESHAPE,
                           "all_gather: reshaping along dim > 0");
            rc = tcomm_mpi_allgather_dim(in->data, out->data, in->dtype,
                                         outer, seg, st->comm);
        }
    }
    if (seg != stack)
        free(seg);
    return tcomm_mpi_status(rc, "tcomm_all_gather", __FILE__, __LINE__);
}

/* Open MPI 4.1 runs MPI_Reduce_scatter with equal counts through a
 * faster algorithm than MPI_Reduce_scatter_block from about this size
 * (figures in doc/performance.md, "The baseline"); below, they are even. */
#define TCOMM_MPI_REDUCE_SCATTER_COUNTS_MIN ((size_t)256 << 10)

static int equal_counts(tcomm_mpi_state_t *st, const tcomm_tensor_t *in,
                        tcomm_tensor_t *out, MPI_Op mop)
{
    size_t stack[TCOMM_STACK_RANKS] = {0}, *count = stack;
    int n = st->size, rc;
    if (n > TCOMM_STACK_RANKS && !(count = malloc((size_t)n * sizeof *count)))
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < n; r++)
        count[r] = out->numel;
    rc = tcomm_mpi_reduce_scatter_counts(in->data, out->data, count,
                                         in->dtype, mop, st->comm);
    if (count != stack)
        free(count);
    return rc;
}

tcomm_status_t tcomm_mpi_reduce_scatter(void *state,
                                        const tcomm_tensor_t *in,
                                        tcomm_op_t op, int dim,
                                        tcomm_tensor_t *out)
{
    tcomm_mpi_state_t *st = state;
    size_t outer = tcomm_shape_prod(in->shape, 0, dim);
    size_t chunk = out->numel / (outer ? outer : 1);
    if (out->numel && tcomm_hier_reduce_scatter_applies(st, outer))
        return tcomm_hier_reduce_scatter(st, in, op, out);
    int tier = tcomm_node_reduce_applies(st, TCOMM_NODE_REDUCE_SCATTER,
                                         outer, in->nbytes);
    if (tier != TCOMM_NODE_MPI) {
        int done = 0;
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER, NODE_REDUCE_SCATTER,
                       "reduce_scatter: single copies on one node");
        TCOMM_MPI_CHECK(tcomm_node_reduce_scatter(st, in->data, out->data,
                                                  outer ? outer : 1, chunk,
                                                  dim, in->dtype, op, tier,
                                                  &done));
        if (done) /* AVG divided already */
            return TCOMM_SUCCESS;
    }
    if (st->owner->deterministic) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER, MPI_ORDERED_FOLD,
                       "reduce_scatter: rank-order fold (deterministic)");
        TCOMM_TRY(tcomm_mpi_reduce_scatter_ordered(st, in, op, dim, out));
        return finish_avg(st, op, out);
    }
    MPI_Op mop;
    TCOMM_TRY(reduction_op(in->dtype, op, &mop));
    int rc;
    if ((outer == 1 || out->numel == 0) &&
        in->nbytes >= TCOMM_MPI_REDUCE_SCATTER_COUNTS_MIN) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER, MPI_REDUCE_SCATTER,
                       "reduce_scatter: MPI_Reduce_scatter, equal counts");
        rc = equal_counts(st, in, out, mop);
    } else if (outer == 1 || out->numel == 0) {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER, MPI_REDUCE_SCATTER_BLOCK,
                       "reduce_scatter: MPI_Reduce_scatter_block");
        rc = tcomm_mpi_reduce_scatter_block(in->data, out->data, out->numel,
                                            in->dtype, mop, st->comm);
    } else {
        TCOMM_MPI_NOTE(st, REDUCE_SCATTER, MPI_REDUCE_SCATTER_RESHAPE,
                       "reduce_scatter: reshaping along dim > 0");
        rc = tcomm_mpi_reduce_scatter_dim(in->data, out->data, in->dtype,
                                          mop, outer, chunk, st->comm);
    }
    TCOMM_TRY(tcomm_mpi_status(rc, "tcomm_reduce_scatter", __FILE__,
                               __LINE__));
    return finish_avg(st, op, out);
}

tcomm_status_t tcomm_mpi_broadcast(void *state, const tcomm_tensor_t *in,
                                   int root, tcomm_tensor_t *out)
{
    tcomm_mpi_state_t *st = state;
    /* The root sends from its input (only read by the copies), and
     * keeps a copy in out unless the call is in place. */
    void *buf = st->rank == root ? in->data : out->data;
    int done = 0;
    if (tcomm_hier_applies(st)) {
        TCOMM_TRY(tcomm_hier_broadcast(st, buf, in, root));
        done = 1;
    }
    int tier = done ? TCOMM_NODE_MPI : tcomm_shm_bcast_applies(st, in->nbytes);
    if (tier != TCOMM_NODE_MPI) {
        TCOMM_MPI_NOTE(st, BROADCAST, SHM_BCAST,
                       "broadcast: shared copy on one node");
        TCOMM_MPI_CHECK(
            tcomm_shm_bcast(st, buf, in->nbytes, root, tier, &done));
    }
    if (!done) {
        TCOMM_MPI_NOTE(st, BROADCAST, MPI_BCAST,
                       "broadcast: MPI_Bcast on host buffers");
        TCOMM_MPI_CHECK(tcomm_mpi_bcast(buf, in->numel, in->dtype, root,
                                        st->comm));
    }
    if (st->rank == root && out != in)
        return tcomm_tensor_copy(in, out);
    return TCOMM_SUCCESS;
}
