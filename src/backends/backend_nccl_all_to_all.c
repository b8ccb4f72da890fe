/* SPDX-License-Identifier: BSD-3-Clause */
/* The NCCL backend's all_to_all, all_to_all_v and reduce_scatter_v, on
 * the stream of the input's graph and synchronous, as the others. The
 * exchanges are grouped ncclSend/ncclRecv (one pair per peer with data;
 * this rank's own piece is a device copy). Along a split dim > 0 each
 * rank's piece is packed contiguous first (the cuda space's scatter_pack
 * for equal pieces, one 2-D copy per rank for uneven ones); along a
 * concat dim > 0 the space's gather_unpack interleaves the received
 * pieces. reduce_scatter_v: ncclReduceScatter for equal chunks, else an
 * ncclReduce of chunk r to rank r for every r in one group; where
 * reduce_scatter gathers and folds (deterministic mode, float MIN/MAX),
 * each rank receives every rank's copy of its chunk and folds them in
 * rank order. */
#include <limits.h>
#include <stdlib.h>

#include "backend_nccl.h"
#include "cuda_space.h"
#include "tcomm_host_kernels.h"
#include "tcomm_log.h"

/* Per-rank arrays of one call: sizes in elements along the dim (seg:
 * per row, cnt: in all) on the send and the receive side. */
typedef struct {
    size_t *seg_s, *cnt_s, *seg_c, *cnt_c;
} plan_t;

static tcomm_status_t plan_new(int n, const char *fn, plan_t *p)
{
    size_t *all = calloc(4 * (size_t)n, sizeof *all);
    if (!all)
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory", fn);
    *p = (plan_t){all, all + n, all + 2 * (size_t)n, all + 3 * (size_t)n};
    return TCOMM_SUCCESS;
}

/* src is [outer][sum seg]; dst holds block r = [outer][seg[r]] back to
 * back (tcomm_host_split_pack on the device). Equal blocks: the space's
 * kernel; uneven: a 2-D copy per block, or a copy per row where a row is
 * longer than a 2-D copy's pitch may be (cudaDevAttrMaxPitch, 2^31 - 1
 * bytes on current devices). */
static tcomm_status_t pack(const nccl_state_t *s, tcomm_cuda_ctx_t *ctx,
                           const tcomm_memspace_t *sp, const char *src,
                           char *dst, size_t es, size_t outer,
                           const size_t *seg)
{
    int equal = 1;
    size_t total = 0;
    for (int r = 0; r < s->size; r++) {
        equal &= seg[r] == seg[0];
        total += seg[r];
    }
    if (equal)
        return sp->scatter_pack(ctx, src, dst, es, outer, s->size, seg[0]);
    size_t pitch = total * es;
    for (int r = 0; r < s->size; r++) {
        size_t w = seg[r] * es;
        if (w && pitch <= INT_MAX)
            TCOMM_CUDA_CHECK(cudaMemcpy2DAsync(dst, w, src, pitch, w, outer,
                                               cudaMemcpyDeviceToDevice,
                                               ctx->stream));
        else if (w)
            for (size_t o = 0; o < outer; o++)
                TCOMM_CUDA_CHECK(cudaMemcpyAsync(dst + o * w, src + o * pitch,
                                                 w, cudaMemcpyDeviceToDevice,
                                                 ctx->stream));
        dst += w * outer;
        src += w;
    }
    return TCOMM_SUCCESS;
}

/* Rank r gets cnt_s[r] elements of src (blocks back to back); the
 * cnt_c[r] from rank r land back to back in dst. One group. */
static tcomm_status_t exchange(const nccl_state_t *s, tcomm_cuda_ctx_t *ctx,
                               tcomm_dtype_t d, const char *src, char *dst,
                               const plan_t *p)
{
    size_t es = tcomm_dtype_size(d), soff = 0, roff = 0, self_s = 0;
    size_t self_r = 0;
    ncclDataType_t t = nccl_type(d);
    tcomm_status_t st = TCOMM_SUCCESS;
    NCCL_CHECK_GOTO(ncclGroupStart(), st, ret);
    for (int r = 0; r < s->size; r++) {
        if (r == s->rank) {
            self_s = soff;
            self_r = roff;
        } else {
            if (p->cnt_s[r])
                NCCL_CHECK_GOTO(ncclSend(src + soff * es, p->cnt_s[r], t, r,
                                         s->nccl, ctx->stream),
                                st, end);
            if (p->cnt_c[r])
                NCCL_CHECK_GOTO(ncclRecv(dst + roff * es, p->cnt_c[r], t, r,
                                         s->nccl, ctx->stream),
                                st, end);
        }
        soff += p->cnt_s[r];
        roff += p->cnt_c[r];
    }
end:
    if (st != TCOMM_SUCCESS) {
        (void)ncclGroupEnd();
        return st;
    }
    NCCL_CHECK_GOTO(ncclGroupEnd(), st, ret);
    if (p->cnt_s[s->rank])
        st = tcomm_memspace_cuda.copy_async(
            ctx, dst + self_r * es, src + self_s * es, p->cnt_s[s->rank] * es);
ret:
    return st;
}

/* The general exchange: this rank sends send[j] along split to rank j;
 * the piece from rank r has recv[r] along concat in out. */
static tcomm_status_t all_to_all_v(nccl_state_t *s, const tcomm_tensor_t *in,
                                   int split, const size_t *send, int concat,
                                   const size_t *recv, tcomm_tensor_t *out,
                                   const char *fn)
{
    tcomm_cuda_ctx_t *ctx;
    TCOMM_TRY(tcomm_nccl_device_ctx(s, in, fn, &ctx));
    const tcomm_memspace_t *sp = in->graph->space;
    size_t es = tcomm_dtype_size(in->dtype), outer_s, inner_s, outer_c;
    size_t inner_c;
    tcomm_dim_split(in, split, &outer_s, &inner_s);
    tcomm_dim_split(out, concat, &outer_c, &inner_c);
    plan_t p;
    TCOMM_TRY(plan_new(s->size, fn, &p));
    for (int r = 0; r < s->size; r++) {
        p.seg_s[r] = send[r] * inner_s;
        p.cnt_s[r] = p.seg_s[r] * outer_s;
        p.seg_c[r] = recv[r] * inner_c;
        p.cnt_c[r] = p.seg_c[r] * outer_c;
    }
    size_t pack_bytes = outer_s > 1 ? in->nbytes : 0;
    size_t land_bytes = outer_c > 1 ? out->nbytes : 0;
    void *tmp = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    if (pack_bytes + land_bytes)
        TCOMM_CHECK_GOTO(sp->alloc(ctx, pack_bytes + land_bytes, &tmp), st,
                         done);
    const char *src = in->data;
    char *land = land_bytes ? (char *)tmp + pack_bytes : out->data;
    if (pack_bytes) {
        TCOMM_CHECK_GOTO(pack(s, ctx, sp, in->data, tmp, es, outer_s, p.seg_s),
                         st, done);
        src = tmp;
    }
    static const char *const path[2][2] = {
        {"nccl_sendrecv", "nccl_sendrecv+unpack"},
        {"nccl_sendrecv+pack", "nccl_sendrecv+pack+unpack"}};
    TCOMM_TRACE_PATH(path[pack_bytes != 0][land_bytes != 0]);
    TCOMM_CHECK_GOTO(exchange(s, ctx, in->dtype, src, land, &p), st, done);
    if (land_bytes)
        st = sp->gather_unpack(ctx, land, out->data, es, outer_c, s->size,
                               p.seg_c);
done:
    free(p.seg_s);
    return tcomm_nccl_finish(st, ctx, tmp);
}

tcomm_status_t tcomm_nccl_all_to_all_v(void *state, const tcomm_tensor_t *in,
                                       int split_dim, const size_t *send_sizes,
                                       int concat_dim, const size_t *recv_sizes,
                                       tcomm_tensor_t *out)
{
    return all_to_all_v(state, in, split_dim, send_sizes, concat_dim,
                        recv_sizes, out, "tcomm_all_to_all_v");
}

tcomm_status_t tcomm_nccl_all_to_all(void *state, const tcomm_tensor_t *in,
                                     int split_dim, int concat_dim,
                                     tcomm_tensor_t *out)
{
    static const char fn[] = "tcomm_all_to_all";
    nccl_state_t *s = state;
    size_t *sizes = malloc(2 * (size_t)s->size * sizeof *sizes);
    if (!sizes)
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory", fn);
    size_t c = in->shape[split_dim] / (size_t)s->size;
    for (int r = 0; r < s->size; r++) {
        sizes[r] = c;
        sizes[s->size + r] =
            split_dim == concat_dim ? c : in->shape[concat_dim];
    }
    tcomm_status_t st = all_to_all_v(s, in, split_dim, sizes, concat_dim,
                                     sizes + s->size, out, fn);
    free(sizes);
    return st;
}

/* Chunk r (cnt[r] elements at offset off) reduced to rank r, all in one
 * group; rank r's lands in out. */
static tcomm_status_t reduce_each(const nccl_state_t *s, tcomm_cuda_ctx_t *ctx,
                                  tcomm_dtype_t d, tcomm_op_t op,
                                  const char *src, const size_t *cnt, void *out)
{
    size_t es = tcomm_dtype_size(d), off = 0;
    tcomm_status_t st = TCOMM_SUCCESS;
    NCCL_CHECK_GOTO(ncclGroupStart(), st, ret);
    for (int r = 0; r < s->size; r++) {
        /* NCCL writes recvbuff only on the root, rank r (out there);
         * elsewhere out may be empty: the chunk itself stands in */
        void *recv = r == s->rank ? out : (void *)(src + off * es);
        if (cnt[r])
            NCCL_CHECK_GOTO(ncclReduce(src + off * es, recv, cnt[r],
                                       nccl_type(d), nccl_op(op), r, s->nccl,
                                       ctx->stream),
                            st, end);
        off += cnt[r];
    }
end:
    if (st != TCOMM_SUCCESS) {
        (void)ncclGroupEnd();
        return st;
    }
    NCCL_CHECK_GOTO(ncclGroupEnd(), st, ret);
ret:
    return st;
}

tcomm_status_t tcomm_nccl_reduce_scatter_v(void *state,
                                           const tcomm_tensor_t *in,
                                           tcomm_op_t op, int dim,
                                           const size_t *sizes,
                                           tcomm_tensor_t *out)
{
    static const char fn[] = "tcomm_reduce_scatter_v";
    nccl_state_t *s = state;
    tcomm_cuda_ctx_t *ctx;
    TCOMM_TRY(tcomm_nccl_device_ctx(s, in, fn, &ctx));
    const tcomm_memspace_t *sp = in->graph->space;
    size_t n = in->numel, mine = out->numel, es = tcomm_dtype_size(in->dtype);
    if (n == 0) /* the same on every rank: the shapes agree */
        return TCOMM_SUCCESS;
    size_t outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    plan_t p;
    TCOMM_TRY(plan_new(s->size, fn, &p));
    int equal = 1, fold = gather_fold(s, in->dtype, op);
    for (int r = 0; r < s->size; r++) {
        p.seg_s[r] = sizes[r] * inner;
        p.cnt_s[r] = p.seg_s[r] * outer; /* chunk r, to rank r */
        p.cnt_c[r] = mine;               /* every rank's copy of ours */
        equal &= sizes[r] == sizes[0];
    }
    size_t pack_bytes = outer > 1 ? in->nbytes : 0;
    size_t all_bytes = fold ? mine * es * (size_t)s->size : 0;
    void *tmp = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    if (pack_bytes + all_bytes)
        TCOMM_CHECK_GOTO(sp->alloc(ctx, pack_bytes + all_bytes, &tmp), st,
                         done);
    const char *src = in->data;
    if (pack_bytes) {
        TCOMM_CHECK_GOTO(pack(s, ctx, sp, in->data, tmp, es, outer, p.seg_s),
                         st, done);
        src = tmp;
    }
    static const char *const path[3][2] = {
        {"nccl_reduces", "nccl_reduces+pack"},
        {"nccl_reduce_scatter", "nccl_reduce_scatter+pack"},
        {"nccl_sendrecv+fold", "nccl_sendrecv+pack+fold"}};
    TCOMM_TRACE_PATH(path[fold ? 2 : equal][pack_bytes != 0]);
    if (fold) {
        char *all = (char *)tmp + pack_bytes;
        TCOMM_CHECK_GOTO(exchange(s, ctx, in->dtype, src, all, &p), st, done);
        if (mine)
            TCOMM_CHECK_GOTO(tcomm_nccl_fold_blocks(s, in, op, out->data, all,
                                                    mine, 0, mine),
                             st, done);
    } else if (equal) {
        NCCL_CHECK_GOTO(ncclReduceScatter(src, out->data, mine,
                                          nccl_type(in->dtype), nccl_op(op),
                                          s->nccl, ctx->stream),
                        st, done);
    } else {
        TCOMM_CHECK_GOTO(
            reduce_each(s, ctx, in->dtype, op, src, p.cnt_s, out->data), st,
            done);
    }
    st = tcomm_nccl_finish_avg(s, in, op, out, mine);
done:
    free(p.seg_s);
    return tcomm_nccl_finish(st, ctx, tmp);
}
