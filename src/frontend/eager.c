/* SPDX-License-Identifier: BSD-3-Clause */
/* Small calls completed in the agreement's exchange. Where the backend
 * carries bytes with that round (the MPI backend on one node: its
 * shared-memory round), each rank offers its input there, and once the
 * ranks agree every rank computes its output from the inputs it was
 * handed: the same fold in rank order, the same rows, as the backends'
 * algorithms. A checked call below TCOMM_EAGER_BYTES then costs one round
 * instead of the round and the backend's collective. What a rank does
 * not offer (an input on a device, too large, a call it rejected) makes
 * every rank dispatch as usual: the backend tells each the same. */
#include <string.h>

#include "tcomm_frontend.h"
#include "tcomm_host_kernels.h"
#include "tcomm_test_hooks.h"

/* Inputs below TCOMM_EAGER_BYTES are offered: there one round of shared
 * cache lines beats the round and the backend's collective; from it the
 * backend's single-copy paths win (doc/performance.md). all_to_all's and
 * reduce_scatter's inputs of exactly this size are offered too: the
 * strided single copies and the tier's fold of short rows start slower.
 * all_to_all_v's goes with its sizes. */

static int eager_kind(tcomm_coll_kind_t kind)
{
    switch (kind) {
    case TCOMM_COLL_ALL_REDUCE:
    case TCOMM_COLL_ALL_GATHER:
    case TCOMM_COLL_REDUCE_SCATTER:
    case TCOMM_COLL_BROADCAST:
    case TCOMM_COLL_ALL_TO_ALL:
    case TCOMM_COLL_REDUCE_SCATTER_V:
    case TCOMM_COLL_ALL_TO_ALL_V:
    case TCOMM_COLL_REDUCE:
        return 1;
    default: /* barrier is its round already */
        return 0;
    }
}

static size_t header_bytes(const tcomm_comm_t *comm, const tcomm_call_t *c)
{
    return c->kind == TCOMM_COLL_ALL_TO_ALL_V
               ? ((size_t)comm->world_size + 1) * sizeof(int64_t)
               : 0;
}

static int small_enough(const tcomm_comm_t *comm, const tcomm_call_t *c)
{
    size_t bytes = header_bytes(comm, c) + c->in->nbytes;
    return bytes < TCOMM_EAGER_BYTES ||
           (bytes == TCOMM_EAGER_BYTES &&
            (c->kind == TCOMM_COLL_ALL_TO_ALL ||
             c->kind == TCOMM_COLL_REDUCE_SCATTER));
}

void tcomm_eager_v_header(const tcomm_comm_t *comm, const tcomm_call_t *c,
                          int64_t *row)
{
    row[0] = (int64_t)c->in->shape[c->concat_dim];
    for (int j = 0; j < comm->world_size; j++)
        row[1 + j] = (int64_t)c->vsizes[j];
}

int tcomm_eager_offer(const tcomm_comm_t *comm, const tcomm_call_t *c,
                      tcomm_status_t local, tcomm_eager_t *e,
                      const void **data, size_t *bytes)
{
    const tcomm_tensor_t *in = c->in;
    *data = NULL;
    *bytes = 0;
    if (local != TCOMM_SUCCESS || !comm->check || !eager_kind(c->kind) ||
        comm->world_size > TCOMM_STACK_RANKS ||
        tcomm_test_hook(TCOMM_HOOK_NO_EAGER))
        return 0;
    int whole = in->graph->space->is_host && small_enough(comm, c);
    if (c->kind == TCOMM_COLL_ALL_TO_ALL_V) { /* the sizes, then the input */
        size_t head = header_bytes(comm, c);
        tcomm_eager_v_header(comm, c, e->offer);
        if (whole && in->nbytes)
            memcpy((char *)e->offer + head, in->data, in->nbytes);
        *data = e->offer;
        *bytes = head + (whole ? in->nbytes : 0);
        return 1;
    }
    if (!whole)
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
    char rows[TCOMM_EAGER_BYTES]; /* out->nbytes <= in->nbytes */
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

/* A piece of rows_s rows of chunk bytes, s_stride apart at from, into
 * rows_c rows of along bytes, c_stride apart at to (the same bytes, cut
 * otherwise): one row copy where either side is packed, else two
 * through a packed copy. */
static void move_piece(char *to, size_t c_stride, size_t along,
                       size_t rows_c, const char *from, size_t s_stride,
                       size_t chunk, size_t rows_s)
{
    char piece[TCOMM_EAGER_BYTES]; /* an input's bytes at most */
    if (rows_s == 1) {
        tcomm_host_copy_rows(to, c_stride, from, along, along, rows_c);
    } else if (rows_c == 1) {
        tcomm_host_copy_rows(to, chunk, from, s_stride, chunk, rows_s);
    } else {
        tcomm_host_copy_rows(piece, chunk, from, s_stride, chunk, rows_s);
        tcomm_host_copy_rows(to, c_stride, piece, along, along, rows_c);
    }
}

/* Rank r's piece for this rank (its chunk me along split_dim) lands at
 * r's place along concat_dim. */
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
    for (int r = 0; r < n; r++)
        move_piece((char *)out->data + (size_t)r * along, along * (size_t)n,
                   along, c_outer,
                   (const char *)blocks[r] + (size_t)me * chunk,
                   chunk * (size_t)n, chunk, s_outer);
}

/* Rank r's input, shaped as its header says: this rank's shape with
 * rank r's sizes along split_dim (the sum of its send_sizes) and
 * concat_dim. */
static void shape_of(const tcomm_call_t *c, int n, const int64_t *h,
                     size_t *shape)
{
    memcpy(shape, c->in->shape, sizeof(size_t) * (size_t)c->in->ndim);
    size_t along = 0;
    for (int j = 0; j < n; j++)
        along += (size_t)h[1 + j];
    shape[c->dim] = along;
    if (c->concat_dim != c->dim)
        shape[c->concat_dim] = (size_t)h[0];
}

/* The piece rank r sends here (its send_sizes[me] along split_dim at the
 * sum of the earlier ones) lands at recv[0] + ... + recv[r-1] along
 * concat_dim. */
static void all_to_all_v(const tcomm_call_t *c, int n, int me,
                         const tcomm_eager_t *e, const size_t *recv,
                         tcomm_tensor_t *out)
{
    int nd = c->in->ndim, s = c->dim;
    size_t es = tcomm_dtype_size(c->in->dtype), head = ((size_t)n + 1) * 8;
    size_t c_outer, c_inner, shape[TCOMM_MAX_DIMS], at = 0;
    tcomm_dim_split(out, c->concat_dim, &c_outer, &c_inner);
    size_t c_row = out->shape[c->concat_dim] * c_inner * es;
    for (int r = 0; r < n; r++) {
        const int64_t *h = e->blocks[r];
        size_t off = 0;
        for (int j = 0; j < me; j++)
            off += (size_t)h[1 + j];
        shape_of(c, n, h, shape);
        size_t s_outer = tcomm_shape_prod(shape, 0, s);
        size_t s_inner = tcomm_shape_prod(shape, s + 1, nd) * es;
        size_t along = recv[r] * c_inner * es;
        move_piece((char *)out->data + at, c_row, along, c_outer,
                   (const char *)e->blocks[r] + head + off * s_inner,
                   shape[s] * s_inner, (size_t)h[1 + me] * s_inner, s_outer);
        at += along;
    }
}

int tcomm_eager_v_table(const tcomm_comm_t *comm, const tcomm_call_t *c,
                        const tcomm_eager_t *e, int64_t *all)
{
    int n = comm->world_size;
    size_t head = header_bytes(comm, c), row = (size_t)n + 1;
    for (int r = 0; r < n; r++) {
        const int64_t *h = e->blocks[r];
        if (e->lens[r] < head)
            return 0;
        memcpy(all + (size_t)r * row, h, head);
        /* the bytes its sizes imply, each bounded first: no overflow */
        size_t shape[TCOMM_MAX_DIMS], bytes = tcomm_dtype_size(c->in->dtype);
        for (size_t i = 0; i < row; i++)
            if (h[i] < 0 || h[i] > TCOMM_EAGER_BYTES)
                return 0;
        shape_of(c, n, h, shape);
        for (int d = 0; d < c->in->ndim; d++)
            if (__builtin_mul_overflow(bytes, shape[d], &bytes))
                return 0;
        if (head + bytes != e->lens[r] ||
            (c->dim == c->concat_dim && shape[c->dim] != (size_t)h[0]))
            return 0;
    }
    return 1;
}

int tcomm_eager_v_sizes(const tcomm_comm_t *comm, const tcomm_call_t *c,
                        const tcomm_eager_t *e, int64_t *all)
{
    size_t head = header_bytes(comm, c);
    for (int r = 0; r < comm->world_size; r++) {
        if (e->lens[r] < head)
            return 0;
        memcpy(all + (size_t)r * ((size_t)comm->world_size + 1),
               e->blocks[r], head);
    }
    return 1;
}

/* What every rank handed over must be what the agreed call implies;
 * every rank sees the same lengths, so all reach the same verdict. */
static int lengths_fit(const tcomm_call_t *c, int n, const size_t *lens,
                       const size_t *sizes)
{
    const tcomm_tensor_t *in = c->in;
    if (c->kind == TCOMM_COLL_BROADCAST)
        return lens[c->root] == in->nbytes;
    if (c->kind == TCOMM_COLL_ALL_TO_ALL_V) /* tcomm_eager_v_table did */
        return 1;
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

tcomm_status_t tcomm_eager_run(tcomm_comm_t *comm, const tcomm_call_t *c,
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
    tcomm_note_path(comm, c->kind, TCOMM_PATH_EAGER,
                    "%s: the inputs carried in the agreement's round (at "
                    "most %d bytes a rank)",
                    c->desc->name, TCOMM_EAGER_BYTES);
    if (!out || out->nbytes == 0) /* reduce off its root: no output */
        return TCOMM_SUCCESS;
    switch (c->kind) {
    case TCOMM_COLL_ALL_REDUCE:
    case TCOMM_COLL_REDUCE: /* on its root (a scratch output elsewhere) */
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
    case TCOMM_COLL_ALL_TO_ALL_V:
        all_to_all_v(c, n, me, e, sizes, out);
        break;
    default: /* reduce_scatter and its uneven form */
        reduce_scatter(c, n, me, e->blocks, out);
        break;
    }
    return TCOMM_SUCCESS;
}
