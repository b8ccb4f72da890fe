/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend's collectives. Each rank shows its input in its slot,
 * waits for everyone, computes its own result from the others' inputs
 * (reductions are the left fold in rank order, so every rank gets the
 * same bits by construction), and waits again before anyone may reuse
 * an input. Tensors on device spaces (sim, cuda) are staged through host
 * buffers with the space's own copies. */
#include <stdlib.h>
#include <string.h>

#include "backend_local_world.h"
#include "tcomm_host_kernels.h"
#include "tcomm_log.h"

static tcomm_status_t no_memory(size_t bytes)
{
    return tcomm_error(TCOMM_ERR_NO_MEMORY,
                       "tcomm: out of host memory staging %zu bytes", bytes);
}

tcomm_status_t tcomm_local_stage_in(const tcomm_tensor_t *in, int read_in,
                                    tcomm_tensor_t *out, local_bufs_t *b)
{
    memset(b, 0, sizeof *b);
    const tcomm_memspace_t *sp = in->graph->space;
    TCOMM_TRACE_PATH(sp->is_host ? "local_shared" : "local_staged");
    if (sp->is_host) {
        b->in = in->data;
        b->out = out->data;
        return TCOMM_SUCCESS;
    }
    b->hin = malloc(in->nbytes + 1);
    b->hout = malloc(out->nbytes + 1);
    if (!b->hin || !b->hout)
        return no_memory(in->nbytes + out->nbytes);
    b->in = b->hin;
    b->out = b->hout;
    if (!read_in)
        return TCOMM_SUCCESS;
    return sp->to_host(in->graph->space_ctx, b->hin, in->data, in->nbytes);
}

tcomm_status_t tcomm_local_stage_out(tcomm_status_t st, tcomm_tensor_t *out,
                                     local_bufs_t *b)
{
    if (st == TCOMM_SUCCESS && b->hout) {
        const tcomm_memspace_t *sp = out->graph->space;
        st = sp->from_host(out->graph->space_ctx, out->data, b->hout,
                           out->nbytes);
    }
    free(b->hin);
    free(b->hout);
    return st;
}

/* dst = slot[0][at..] op slot[1][at..] op ... (n elements), rank order;
 * the ranks' buffers, or their host copies, are host memory. */
static tcomm_status_t fold(const tcomm_local_world_t *w, tcomm_dtype_t dtype,
                           tcomm_op_t op, void *dst, size_t at, size_t n)
{
    size_t off = at * tcomm_dtype_size(dtype);
    const void *stack[TCOMM_STACK_RANKS], **src = stack;
    if (w->size > TCOMM_STACK_RANKS &&
        !(src = malloc((size_t)w->size * sizeof *src)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "tcomm: out of host memory");
    for (int r = 0; r < w->size; r++)
        src[r] = (const char *)w->slot[r] + off;
    tcomm_status_t st = tcomm_space_fold(&tcomm_memspace_host, NULL, dtype,
                                         op, dst, src, w->size, n);
    if (src != stack)
        free(src);
    return st;
}

/* Stage the input in, write into scratch where out is the input (the
 * others still read our input while we write: in place), and show the
 * input to the peers. */
static tcomm_status_t share_in(tcomm_local_rank_t *me,
                               const tcomm_tensor_t *in, tcomm_tensor_t *out,
                               local_bufs_t *b, void **dst)
{
    tcomm_status_t st = tcomm_local_stage_in(in, 1, out, b);
    *dst = b->out;
    if (st == TCOMM_SUCCESS && b->out == b->in && out->nbytes)
        st = tcomm_local_scratch(me, out->nbytes, dst);
    return tcomm_local_share(me, b->in, st);
}

/* After this rank's fold into dst: wait for the peers, which read our
 * input even when the fold failed; then the result into out (n
 * elements; NULL when empty) and AVG's finish. */
static tcomm_status_t fold_done(tcomm_local_rank_t *me, tcomm_status_t folded,
                                tcomm_op_t op, tcomm_dtype_t dtype,
                                const void *dst, void *out, size_t n)
{
    tcomm_status_t st = tcomm_local_sync(me);
    if (st != TCOMM_SUCCESS || folded != TCOMM_SUCCESS)
        return st != TCOMM_SUCCESS ? st : folded;
    if (dst != out && n)
        memcpy(out, dst, n * tcomm_dtype_size(dtype));
    return tcomm_space_finish(&tcomm_memspace_host, NULL, dtype, op, out, n,
                              me->world->size);
}

tcomm_status_t tcomm_local_all_reduce(void *state, const tcomm_tensor_t *in,
                                      tcomm_op_t op, tcomm_tensor_t *out)
{
    tcomm_local_rank_t *me = state;
    tcomm_local_world_t *w = me->world;
    local_bufs_t b;
    void *dst;
    tcomm_status_t st = share_in(me, in, out, &b, &dst);
    if (st != TCOMM_SUCCESS)
        return tcomm_local_stage_out(st, out, &b);
    st = fold_done(me, fold(w, in->dtype, op, dst, 0, in->numel), op,
                   in->dtype, dst, b.out, in->numel);
    return tcomm_local_stage_out(st, out, &b);
}

tcomm_status_t tcomm_local_all_gather(void *state, const tcomm_tensor_t *in,
                                      int dim, const size_t *sizes,
                                      tcomm_tensor_t *out)
{
    tcomm_local_rank_t *me = state;
    tcomm_local_world_t *w = me->world;
    size_t es = tcomm_dtype_size(in->dtype), outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    inner *= es;
    size_t total = 0;
    for (int r = 0; r < w->size; r++)
        total += sizes[r];
    local_bufs_t b;
    void *dst;
    tcomm_status_t st = share_in(me, in, out, &b, &dst);
    if (st != TCOMM_SUCCESS)
        return tcomm_local_stage_out(st, out, &b);
    /* out is [outer][total][inner]; rank r's rows land at column off. */
    size_t off = 0;
    for (int r = 0; r < w->size; r++) {
        size_t row = sizes[r] * inner;
        const char *src = w->slot[r];
        for (size_t o = 0; o < outer && row; o++)
            memcpy((char *)dst + (o * total + off) * inner, src + o * row,
                   row);
        off += sizes[r];
    }
    st = tcomm_local_sync(me);
    if (st == TCOMM_SUCCESS && dst != b.out)
        memcpy(b.out, dst, out->nbytes);
    return tcomm_local_stage_out(st, out, &b);
}

/* This rank's chunk along dim: @p len rows of the dim from row @p at,
 * folded over the ranks (reduce_scatter's equal chunk and the uneven
 * chunk of reduce_scatter_v alike). */
static tcomm_status_t reduce_chunk(tcomm_local_rank_t *me,
                                   const tcomm_tensor_t *in, tcomm_op_t op,
                                   int dim, size_t at, size_t len,
                                   tcomm_tensor_t *out)
{
    tcomm_local_world_t *w = me->world;
    size_t es = tcomm_dtype_size(in->dtype), outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    /* in is [outer][shape[dim] * inner]; this rank keeps columns
     * [at * inner, (at + len) * inner) of every row */
    size_t chunk = len * inner, rowlen = in->shape[dim] * inner;
    local_bufs_t b;
    void *dst;
    tcomm_status_t st = share_in(me, in, out, &b, &dst);
    if (st != TCOMM_SUCCESS)
        return tcomm_local_stage_out(st, out, &b);
    tcomm_status_t folded = TCOMM_SUCCESS;
    for (size_t o = 0; o < outer && chunk && folded == TCOMM_SUCCESS; o++)
        folded = fold(w, in->dtype, op, (char *)dst + o * chunk * es,
                      o * rowlen + at * inner, chunk);
    st = fold_done(me, folded, op, in->dtype, dst, b.out, out->numel);
    return tcomm_local_stage_out(st, out, &b);
}

tcomm_status_t tcomm_local_reduce_scatter(void *state,
                                          const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          tcomm_tensor_t *out)
{
    tcomm_local_rank_t *me = state;
    size_t c = in->shape[dim] / (size_t)me->world->size;
    return reduce_chunk(me, in, op, dim, (size_t)me->rank * c, c, out);
}

tcomm_status_t tcomm_local_reduce_scatter_v(void *state,
                                            const tcomm_tensor_t *in,
                                            tcomm_op_t op, int dim,
                                            const size_t *sizes,
                                            tcomm_tensor_t *out)
{
    tcomm_local_rank_t *me = state;
    size_t at = 0;
    for (int r = 0; r < me->rank; r++)
        at += sizes[r];
    return reduce_chunk(me, in, op, dim, at, sizes[me->rank], out);
}

tcomm_status_t tcomm_local_broadcast(void *state, const tcomm_tensor_t *in,
                                     int root, tcomm_tensor_t *out)
{
    tcomm_local_rank_t *me = state;
    tcomm_local_world_t *w = me->world;
    int is_root = me->rank == root;
    local_bufs_t b;
    tcomm_status_t st = tcomm_local_stage_in(in, is_root, out, &b);
    st = tcomm_local_share(me, is_root ? b.in : NULL, st);
    if (st != TCOMM_SUCCESS)
        return tcomm_local_stage_out(st, out, &b);
    /* Only the root's input is read, so out == in is safe elsewhere. */
    if (b.out != w->slot[root] && in->nbytes)
        memcpy(b.out, w->slot[root], in->nbytes);
    st = tcomm_local_sync(me);
    return tcomm_local_stage_out(st, out, &b);
}
