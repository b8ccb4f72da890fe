/* SPDX-License-Identifier: BSD-3-Clause */
/* The device path's entry points, called by the MPI backend for tensors
 * whose graph space is not host memory (cuda, sim). Each collective
 * takes the direct path (device pointers to MPI) where MPI is CUDA-aware
 * and the space allows it, else the staged path (pinned host buffers).
 * Concatenation along dim > 0 is a pack or unpack on the device, before
 * or after either path, through device scratch. */
#include <stdlib.h>

#include "device_path.h"
#include "tcomm_config.h"

void tcomm_dev_init(tcomm_dev_t *d, tcomm_mpi_state_t *st,
                    const tcomm_tensor_t *t)
{
    d->st = st;
    d->sp = t->graph->space;
    d->ctx = t->graph->space_ctx;
    d->dtype = t->dtype;
    d->el = tcomm_dtype_size(t->dtype);
    d->det = st->owner ? st->owner->deterministic
                       : tcomm_config()->deterministic;
}

size_t *tcomm_dev_counts(const tcomm_dev_t *d, int k)
{
    size_t *a = malloc((size_t)k * (size_t)d->st->size * sizeof *a);
    if (!a)
        tcomm_error(TCOMM_ERR_NO_MEMORY,
                    "tcomm: out of host memory for %d arrays of the %d "
                    "ranks' counts",
                    k, d->st->size);
    return a;
}

tcomm_status_t tcomm_dev_scratch(const tcomm_dev_t *d, size_t bytes,
                                 void **ptr)
{
    return d->sp->alloc(d->ctx, bytes, ptr);
}

int tcomm_dev_mpi_builtin(const tcomm_dev_t *d, tcomm_op_t op,
                          MPI_Op *mpi_op)
{
    if (d->det || d->dtype == TCOMM_F16 || d->dtype == TCOMM_BF16)
        return 0;
    switch (op) {
    case TCOMM_SUM: *mpi_op = MPI_SUM; return 1;
    case TCOMM_PROD: *mpi_op = MPI_PROD; return 1;
    case TCOMM_MIN: *mpi_op = MPI_MIN; return !tcomm_dtype_is_float(d->dtype);
    case TCOMM_MAX: *mpi_op = MPI_MAX; return !tcomm_dtype_is_float(d->dtype);
    default: return 0; /* AVG: SUM and a division */
    }
}

int tcomm_dev_use_direct(const tcomm_dev_t *d)
{
    return d->st->cuda_aware && d->sp->mpi_direct;
}

void tcomm_dev_note(const tcomm_dev_t *d, tcomm_coll_kind_t coll,
                    const char *name, int pack, int unpack, int fold,
                    size_t bytes)
{
    int direct = tcomm_dev_use_direct(d);
    tcomm_note_path(
        d->st->owner, coll, tcomm_path_device(direct, pack, unpack, fold),
        "%s: %s path on %s memory (%s, %zu bytes)%s%s%s", name,
        direct ? "direct (device pointers to MPI)"
               : "staged (pinned host buffers, in chunks)",
        d->sp->name, tcomm_dtype_name(d->dtype), bytes,
        pack ? ", pack kernel" : "", unpack ? ", unpack kernel" : "",
        fold ? ", all-to-all + rank-order fold" : "");
}

tcomm_status_t tcomm_device_all_reduce(tcomm_mpi_state_t *st,
                                       const tcomm_tensor_t *in,
                                       tcomm_op_t op, tcomm_tensor_t *out)
{
    tcomm_dev_t d;
    MPI_Op mop;
    tcomm_dev_init(&d, st, in);
    tcomm_dev_note(&d, TCOMM_COLL_ALL_REDUCE, "all_reduce", 0, 0,
                   !tcomm_dev_mpi_builtin(&d, op, &mop), in->nbytes);
    if (tcomm_dev_use_direct(&d))
        return tcomm_direct_all_reduce(&d, in->data, out->data, in->numel,
                                       op);
    return tcomm_staged_all_reduce(&d, in->data, out->data, in->numel, op);
}

tcomm_status_t tcomm_device_broadcast(tcomm_mpi_state_t *st,
                                      const tcomm_tensor_t *in, int root,
                                      tcomm_tensor_t *out)
{
    tcomm_dev_t d;
    tcomm_dev_init(&d, st, in);
    tcomm_dev_note(&d, TCOMM_COLL_BROADCAST, "broadcast", 0, 0, 0, in->nbytes);
    if (tcomm_dev_use_direct(&d))
        return tcomm_direct_broadcast(&d, in->data, out->data, in->numel,
                                      root);
    return tcomm_staged_broadcast(&d, in->data, out->data, in->numel, root);
}

tcomm_status_t tcomm_device_all_gather(tcomm_mpi_state_t *st,
                                       const tcomm_tensor_t *in, int dim,
                                       const size_t *sizes,
                                       tcomm_tensor_t *out)
{
    tcomm_dev_t d;
    int n = st->size;
    size_t outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    size_t total = 0;
    void *scratch = NULL;
    tcomm_status_t rc;

    tcomm_dev_init(&d, st, in);
    tcomm_dev_note(&d, TCOMM_COLL_ALL_GATHER, "all_gather", 0, outer > 1, 0,
                   in->nbytes);
    size_t *a = tcomm_dev_counts(&d, 3);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    size_t *seg = a, *count = a + n, *off = a + 2 * n;
    for (int r = 0; r < n; r++) {
        seg[r] = sizes[r] * inner;
        count[r] = outer * seg[r];
        off[r] = total;
        total += count[r];
    }
    void *dst = out->data;
    if (outer > 1) {
        TCOMM_CHECK_GOTO(tcomm_dev_scratch(&d, total * d.el, &scratch), rc,
                         done);
        dst = scratch;
    }
    TCOMM_CHECK_GOTO(tcomm_dev_use_direct(&d)
                         ? tcomm_direct_all_gather(&d, in->data, dst, count,
                                                   off)
                         : tcomm_staged_all_gather(&d, in->data, dst, count,
                                                   off),
                     rc, done);
    if (outer > 1)
        TCOMM_CHECK_GOTO(d.sp->gather_unpack(d.ctx, scratch, out->data, d.el,
                                             outer, n, seg),
                         rc, done);
    rc = d.sp->synchronize(d.ctx);
done:
    if (scratch) {
        if (rc != TCOMM_SUCCESS)
            d.sp->synchronize(d.ctx);
        d.sp->free(d.ctx, scratch);
    }
    free(a);
    return rc;
}

tcomm_status_t tcomm_device_reduce_scatter(tcomm_mpi_state_t *st,
                                           const tcomm_tensor_t *in,
                                           tcomm_op_t op, int dim,
                                           tcomm_tensor_t *out)
{
    tcomm_dev_t d;
    MPI_Op mop;
    size_t outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    size_t chunk = in->shape[dim] / (size_t)st->size * inner;
    const void *src = in->data;
    void *scratch = NULL;
    tcomm_status_t rc = TCOMM_SUCCESS;

    tcomm_dev_init(&d, st, in);
    tcomm_dev_note(&d, TCOMM_COLL_REDUCE_SCATTER, "reduce_scatter", outer > 1,
                   0, !tcomm_dev_mpi_builtin(&d, op, &mop), in->nbytes);
    if (outer > 1) {
        TCOMM_TRY(tcomm_dev_scratch(&d, in->nbytes, &scratch));
        rc = d.sp->scatter_pack(d.ctx, in->data, scratch, d.el, outer,
                                st->size, chunk);
        src = scratch;
    }
    if (rc == TCOMM_SUCCESS)
        rc = tcomm_dev_use_direct(&d)
                 ? tcomm_direct_reduce_scatter(&d, src, out->data,
                                               outer * chunk, op)
                 : tcomm_staged_reduce_scatter(&d, src, out->data,
                                               outer * chunk, op);
    if (scratch) {
        d.sp->synchronize(d.ctx);
        d.sp->free(d.ctx, scratch);
    }
    return rc;
}

/* reduce: all_reduce's device path, the result kept on the root (a
 * scratch output on the other ranks). */
static tcomm_status_t device_reduce(tcomm_mpi_state_t *st,
                                    const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    tcomm_tensor_t *out = a->out;
    if (st->rank != a->root)
        TCOMM_TRY(tcomm_tensor_alloc("tcomm_reduce_into", in->graph,
                                     in->dtype, in->ndim, in->shape, &out));
    tcomm_status_t s = tcomm_device_all_reduce(st, in, a->op, out);
    if (out != a->out)
        tcomm_tensor_release(out);
    return s;
}

/* The backend's collective slot on device tensors (the barrier moves no
 * tensor and never comes here). */
tcomm_status_t tcomm_device_collective(tcomm_mpi_state_t *st,
                                       const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    tcomm_tensor_t *out = a->out;
    switch (a->coll) {
    case TCOMM_COLL_ALL_REDUCE:
        return tcomm_device_all_reduce(st, in, a->op, out);
    case TCOMM_COLL_ALL_GATHER:
        return tcomm_device_all_gather(st, in, a->dim, a->recv_sizes, out);
    case TCOMM_COLL_REDUCE_SCATTER:
        return tcomm_device_reduce_scatter(st, in, a->op, a->dim, out);
    case TCOMM_COLL_BROADCAST:
        return tcomm_device_broadcast(st, in, a->root, out);
    case TCOMM_COLL_ALL_TO_ALL:
        return tcomm_device_all_to_all(st, in, a->dim, a->concat_dim, out);
    case TCOMM_COLL_ALL_TO_ALL_V:
        return tcomm_device_all_to_all_v(st, in, a->dim, a->send_sizes,
                                         a->concat_dim, a->recv_sizes, out);
    case TCOMM_COLL_REDUCE_SCATTER_V:
        return tcomm_device_reduce_scatter_v(st, in, a->op, a->dim,
                                             a->send_sizes, out);
    case TCOMM_COLL_REDUCE:
        return device_reduce(st, a);
    default: /* a front end newer than the backend */
        return tcomm_backend_error(TCOMM_ERR_UNSUPPORTED,
                                   "the mpi backend has no collective %d "
                                   "on device tensors",
                                   (int)a->coll);
    }
}
