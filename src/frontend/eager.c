/* SPDX-License-Identifier: BSD-3-Clause */
/* Small calls completed in the agreement's exchange. Where the backend
 * carries bytes with that round (the MPI backend on one node: its
 * shared-memory round), each rank offers its input there, and once the
 * ranks agree every rank computes its output from the inputs it was
 * handed: the same fold in rank order, the same rows, as the backends'
 * algorithms. A checked call below TCOMM_EAGER_LIMIT then costs one round
 * instead of the round and the backend's collective. What a rank does
 * not offer (an input on a device, too large, a call it rejected) makes
 * every rank dispatch as usual: the backend tells each the same. */
#include <stdatomic.h>
#include <string.h>

#include "tcomm_frontend.h"
#include "tcomm_host_kernels.h"
#include "tcomm_log.h"
#include "tcomm_test_hooks.h"

/* Inputs below this are offered: there one round of shared cache lines
 * beats the round and the backend's collective; from it the backend's
 * single-copy paths win (doc/performance.md). all_to_all's input of
 * exactly this size is offered too: its strided single copies start
 * slower. */
#define TCOMM_EAGER_LIMIT 4096

static atomic_uint_fast64_t eager_calls;

uint64_t tcomm_eager_calls(void)
{
    return atomic_load_explicit(&eager_calls, memory_order_relaxed);
}

static int eager_kind(tcomm_coll_kind_t kind)
{
    switch (kind) {
    case TCOMM_COLL_ALL_REDUCE:
    case TCOMM_COLL_ALL_GATHER:
    case TCOMM_COLL_REDUCE_SCATTER:
    case TCOMM_COLL_BROADCAST:
    case TCOMM_COLL_ALL_TO_ALL:
    case TCOMM_COLL_REDUCE_SCATTER_V:
        return 1;
    default: /* barrier is its round already; all_to_all_v exchanges more */
        return 0;
    }
}

static int small_enough(const tcomm_call_t *c)
{
    return c->in->nbytes < TCOMM_EAGER_LIMIT ||
           (c->in->nbytes == TCOMM_EAGER_LIMIT &&
            c->kind == TCOMM_COLL_ALL_TO_ALL);
}

int tcomm_eager_offer(const tcomm_comm_t *comm, const tcomm_call_t *c,
                      tcomm_status_t local, const void **data, size_t *bytes)
{
    const tcomm_tensor_t *in = c->in;
    *data = NULL;
    *bytes = 0;
    if (local != TCOMM_SUCCESS || !comm->check || !eager_kind(c->kind) ||
        comm->world_size > TCOMM_STACK_RANKS || !in->graph->space->is_host ||
        !small_enough(c) || tcomm_test_hook(TCOMM_HOOK_NO_EAGER))
        return 0;
    *data = in->data ? in->data : (const void *)in; /* 0 bytes: any */
    if (c->kind == TCOMM_COLL_BROADCAST && c->root != comm->rank)
        return 1; /* only the root's bytes are read */
    *bytes = in->nbytes;
    return 1;
}

/* The rank-order fold of every rank's count elements at offset (bytes)
 * into dst, then AVG's finish. */
static void fold(const tcomm_call_t *c, int n, const void *const *blocks,
                 size_t offset, size_t count, void *dst)
{
    const void *src[TCOMM_STACK_RANKS];
    for (int r = 0; r < n; r++)
        src[r] = (const char *)blocks[r] + offset;
    (void)tcomm_space_fold(&tcomm_memspace_host, NULL, c->in->dtype, c->op,
                           dst, src, n, count);
    tcomm_host_finish(c->in->dtype, c->op, dst, count, n);
}

/* reduce_scatter(_v): this rank's rows along dim, [offset, offset + len).
 * Several rows are packed first, rank by rank, and folded whole in the
 * same order: a fold per row costs more than the row where rows are
 * short (dim 1 of [64][8]). */
static void reduce_scatter(const tcomm_call_t *c, int n, int me,
                           const void *const *blocks, tcomm_tensor_t *out)
{
    const tcomm_tensor_t *in = c->in;
    size_t es = tcomm_dtype_size(in->dtype), outer, inner;
    size_t len = out->shape[c->dim], offset = (size_t)me * len;
    tcomm_dim_split(in, c->dim, &outer, &inner);
    if (c->kind == TCOMM_COLL_REDUCE_SCATTER_V) {
        offset = 0;
        for (int r = 0; r < me; r++)
            offset += c->vsizes[r];
    }
    offset *= inner * es;
    if (outer == 1) {
        fold(c, n, blocks, offset, len * inner, out->data);
        return;
    }
    size_t row_in = in->shape[c->dim] * inner * es, row = len * inner * es;
    char rows[TCOMM_EAGER_LIMIT]; /* out->nbytes <= in->nbytes */
    tcomm_host_copy_rows(out->data, row, (const char *)blocks[0] + offset,
                         row_in, row, outer);
    for (int r = 1; r < n; r++) {
        tcomm_host_copy_rows(rows, row, (const char *)blocks[r] + offset,
                             row_in, row, outer);
        tcomm_host_reduce(in->dtype, c->op, out->data, rows, out->numel);
    }
    tcomm_host_finish(in->dtype, c->op, out->data, out->numel, n);
}

static void all_gather(const tcomm_call_t *c, int n, const void *const *blocks,
                       const size_t *sizes, tcomm_tensor_t *out)
{
    size_t es = tcomm_dtype_size(c->in->dtype), outer, inner;
    tcomm_dim_split(c->in, c->dim, &outer, &inner);
    size_t row = out->shape[c->dim] * inner * es, at = 0;
    for (int r = 0; r < n; r++) {
        size_t piece = sizes[r] * inner * es;
        tcomm_host_copy_rows((char *)out->data + at, row, blocks[r], piece,
                             piece, outer);
        at += piece;
    }
}

/* Rank r's piece for this rank (its chunk me along split_dim) lands at
 * r's place along concat_dim: one row copy where the piece or its place
 * is packed, else two through a packed copy of the piece. */
static void all_to_all(const tcomm_call_t *c, int n, int me,
                       const void *const *blocks, tcomm_tensor_t *out)
{
    const tcomm_tensor_t *in = c->in;
    size_t es = tcomm_dtype_size(in->dtype), s_outer, s_inner, c_outer,
           c_inner;
    tcomm_dim_split(in, c->dim, &s_outer, &s_inner);
    tcomm_dim_split(out, c->concat_dim, &c_outer, &c_inner);
    size_t chunk = in->shape[c->dim] / (size_t)n * s_inner * es;
    size_t along = out->shape[c->concat_dim] / (size_t)n * c_inner * es;
    char piece[TCOMM_EAGER_LIMIT]; /* in->nbytes / n at most */
    for (int r = 0; r < n; r++) {
        const char *from = (const char *)blocks[r] + (size_t)me * chunk;
        char *to = (char *)out->data + (size_t)r * along;
        if (s_outer == 1) { /* the piece is packed in the block already */
            tcomm_host_copy_rows(to, along * (size_t)n, from, along, along,
                                 c_outer);
        } else if (c_outer == 1) { /* its place in out is packed */
            tcomm_host_copy_rows(to, chunk, from, chunk * (size_t)n, chunk,
                                 s_outer);
        } else {
            tcomm_host_copy_rows(piece, chunk, from, chunk * (size_t)n,
                                 chunk, s_outer);
            tcomm_host_copy_rows(to, along * (size_t)n, piece, along, along,
                                 c_outer);
        }
    }
}

/* What every rank handed over must be what the agreed call implies;
 * every rank sees the same lengths, so all reach the same verdict. */
static int lengths_fit(const tcomm_call_t *c, int n, const size_t *lens,
                       const size_t *sizes)
{
    const tcomm_tensor_t *in = c->in;
    if (c->kind == TCOMM_COLL_BROADCAST)
        return lens[c->root] == in->nbytes;
    size_t each = in->nbytes, outer, inner;
    tcomm_dim_split(in, c->dim, &outer, &inner);
    for (int r = 0; r < n; r++) {
        if (c->kind == TCOMM_COLL_ALL_GATHER)
            each = outer * sizes[r] * inner * tcomm_dtype_size(in->dtype);
        if (lens[r] != each)
            return 0;
    }
    return 1;
}

tcomm_status_t tcomm_eager_run(const tcomm_comm_t *comm,
                               const tcomm_call_t *c,
                               const tcomm_eager_t *e, const size_t *sizes,
                               tcomm_tensor_t *out)
{
    int n = comm->world_size, me = comm->rank;
    if (!lengths_fit(c, n, e->lens, sizes))
        return tcomm_error(TCOMM_ERR_MISMATCH,
                           "%s: a rank handed over another number of bytes "
                           "than the agreed call implies (a corrupted "
                           "agreement round)",
                           c->fn);
    TCOMM_TRACE_PATH("eager");
    atomic_fetch_add_explicit(&eager_calls, 1, memory_order_relaxed);
    if (out->nbytes == 0)
        return TCOMM_SUCCESS;
    switch (c->kind) {
    case TCOMM_COLL_ALL_REDUCE:
        fold(c, n, e->blocks, 0, c->in->numel, out->data);
        break;
    case TCOMM_COLL_BROADCAST:
        if (out->data != c->in->data || me != c->root)
            memcpy(out->data, e->blocks[c->root], out->nbytes);
        break;
    case TCOMM_COLL_ALL_GATHER:
        all_gather(c, n, e->blocks, sizes, out);
        break;
    case TCOMM_COLL_ALL_TO_ALL:
        all_to_all(c, n, me, e->blocks, out);
        break;
    default: /* reduce_scatter and its uneven form */
        reduce_scatter(c, n, me, e->blocks, out);
        break;
    }
    return TCOMM_SUCCESS;
}
