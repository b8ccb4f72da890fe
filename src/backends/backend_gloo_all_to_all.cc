/* SPDX-License-Identifier: BSD-3-Clause */
/* The Gloo backend's all_to_all, all_to_all_v and reduce_scatter_v, host
 * tensors only. The exchanges are Gloo's alltoall (equal blocks) and
 * alltoallv; along a split dim > 0 the host kernel packs each rank's
 * piece contiguous first, along a concat dim > 0 it interleaves the
 * received pieces after. reduce_scatter_v packs the uneven chunks the
 * same way and either reduces the whole with Gloo's ring (tcomm's element
 * kernels) and keeps this rank's chunk, or in deterministic mode sends
 * chunk r to rank r (alltoallv) and folds the copies it receives in rank
 * order; reduce_scatter is the same with equal chunks. */
#include <cstring>
#include <new>

#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>

#include "backend_gloo.h"
extern "C" {
#include "tcomm_host_kernels.h"
}
#include "tcomm_log.h"

namespace tcomm_gloo
{

namespace
{

/* A tensor seen around dim: the product of the dims before, after. */
void around(const tcomm_tensor_t *t, int dim, size_t *outer, size_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < dim; i++)
        *outer *= tcomm_tensor_dim(t, i);
    for (int i = dim + 1; i < tcomm_tensor_ndim(t); i++)
        *inner *= tcomm_tensor_dim(t, i);
}

tcomm_status_t no_memory(const char *fn)
{
    return tcomm_backend_error(TCOMM_ERR_NO_MEMORY,
                               "%s: out of host memory for the Gloo "
                               "backend's buffers",
                               fn);
}

/* A non-null address for an empty buffer (Gloo keeps the pointer). */
char *nonnull(char *p)
{
    static char none;
    return p ? p : &none;
}

/* Gloo's alltoallv on bytes: cnt_s[r] from src to rank r, cnt_c[r] from
 * rank r into dst, both back to back. Throws as Gloo does. */
void alltoallv_bytes(gloo_state *st, const char *src,
                     std::vector<int64_t> &cnt_s, char *dst,
                     std::vector<int64_t> &cnt_c)
{
    gloo::AlltoallvOptions o(st->ctx);
    o.setInput(nonnull(const_cast<char *>(src)), cnt_s);
    o.setOutput(nonnull(dst), cnt_c);
    gloo::alltoallv(o);
}

/* This rank sends send[j] along split to rank j; the piece from rank r
 * has recv[r] along concat. @p equal: every block is the same size
 * (Gloo's alltoall; else alltoallv). */
tcomm_status_t exchange(gloo_state *st, const tcomm_tensor_t *in, int split,
                        const size_t *send, int concat, const size_t *recv,
                        tcomm_tensor_t *out, int equal, const char *fn)
{
    size_t n = static_cast<size_t>(st->size);
    size_t es = tcomm_dtype_size(tcomm_tensor_dtype(in));
    size_t outer_s, inner_s, outer_c, inner_c;
    around(in, split, &outer_s, &inner_s);
    around(out, concat, &outer_c, &inner_c);
    std::vector<size_t> seg_s(n), seg_c(n);
    std::vector<int64_t> cnt_s(n), cnt_c(n); /* bytes, for Gloo */
    std::vector<char> packed;
    char *src = const_cast<char *>(bytes(in));
    char *dst = static_cast<char *>(tcomm_tensor_data(out)), *land = dst;
    try {
        for (size_t r = 0; r < n; r++) {
            seg_s[r] = send[r] * inner_s; /* elements per row */
            seg_c[r] = recv[r] * inner_c;
            cnt_s[r] = static_cast<int64_t>(outer_s * seg_s[r] * es);
            cnt_c[r] = static_cast<int64_t>(outer_c * seg_c[r] * es);
        }
        if (outer_s > 1 && nbytes(in)) {
            packed.resize(nbytes(in));
            tcomm_host_split_pack(src, packed.data(), es, outer_s, st->size,
                                  seg_s.data());
            src = packed.data();
        }
        if (outer_c > 1 && nbytes(out)) {
            st->tmp.resize(nbytes(out));
            land = st->tmp.data();
        }
    } catch (const std::bad_alloc &) {
        return no_memory(fn);
    }
    static const char *const path[2][2][2] = {
        {{"gloo_alltoallv", "gloo_alltoallv+unpack"},
         {"gloo_alltoallv+pack", "gloo_alltoallv+pack+unpack"}},
        {{"gloo_alltoall", "gloo_alltoall+unpack"},
         {"gloo_alltoall+pack", "gloo_alltoall+pack+unpack"}}};
    TCOMM_TRACE_PATH(path[equal != 0][src != bytes(in)][land != dst]);
    if (equal) {
        if (nbytes(in) == 0) /* the same on every rank */
            return TCOMM_SUCCESS;
        GLOO_TRY("alltoall", {
            gloo::AlltoallOptions o(st->ctx);
            o.setInput(src, nbytes(in));
            o.setOutput(land, nbytes(out));
            gloo::alltoall(o);
        });
    } else {
        GLOO_TRY("alltoallv", alltoallv_bytes(st, src, cnt_s, land, cnt_c));
    }
    if (land != dst)
        tcomm_host_gather_unpack(land, dst, es, outer_c, st->size,
                                 seg_c.data());
    return TCOMM_SUCCESS;
}

} /* namespace */

tcomm_status_t all_to_all(void *s, const tcomm_tensor_t *in, int split_dim,
                          int concat_dim, tcomm_tensor_t *out)
{
    static const char fn[] = "tcomm_all_to_all";
    gloo_state *st = static_cast<gloo_state *>(s);
    if (host_only(in, fn) != TCOMM_SUCCESS)
        return TCOMM_ERR_UNSUPPORTED;
    size_t c = tcomm_tensor_dim(in, split_dim) / static_cast<size_t>(st->size);
    size_t from =
        split_dim == concat_dim ? c : tcomm_tensor_dim(in, concat_dim);
    std::vector<size_t> send, recv;
    try {
        send.assign(static_cast<size_t>(st->size), c);
        recv.assign(static_cast<size_t>(st->size), from);
    } catch (const std::bad_alloc &) {
        return no_memory(fn);
    }
    return exchange(st, in, split_dim, send.data(), concat_dim, recv.data(),
                    out, 1, fn);
}

tcomm_status_t all_to_all_v(void *s, const tcomm_tensor_t *in, int split_dim,
                            const size_t *send_sizes, int concat_dim,
                            const size_t *recv_sizes, tcomm_tensor_t *out)
{
    static const char fn[] = "tcomm_all_to_all_v";
    gloo_state *st = static_cast<gloo_state *>(s);
    if (host_only(in, fn) != TCOMM_SUCCESS)
        return TCOMM_ERR_UNSUPPORTED;
    return exchange(st, in, split_dim, send_sizes, concat_dim, recv_sizes, out,
                    0, fn);
}

tcomm_status_t reduce_scatter_v(void *s, const tcomm_tensor_t *in,
                                tcomm_op_t op, int dim, const size_t *sizes,
                                tcomm_tensor_t *out)
{
    static const char fn[] = "tcomm_reduce_scatter_v";
    gloo_state *st = static_cast<gloo_state *>(s);
    if (host_only(in, fn) != TCOMM_SUCCESS)
        return TCOMM_ERR_UNSUPPORTED;
    tcomm_dtype_t d = tcomm_tensor_dtype(in);
    size_t es = tcomm_dtype_size(d), n = tcomm_tensor_numel(in);
    size_t mine = tcomm_tensor_numel(out), len = n * es;
    size_t outer, inner, at = 0;
    around(in, dim, &outer, &inner);
    for (int r = 0; r < st->rank; r++)
        at += sizes[r];
    at *= outer * inner; /* this rank's chunk in the packed input */
    char *dst = static_cast<char *>(tcomm_tensor_data(out));
    if (n == 0) /* the same on every rank: the shapes agree */
        return TCOMM_SUCCESS;
    int det = deterministic(st);
    std::vector<char> packed;
    std::vector<int64_t> cnt_s, cnt_c; /* deterministic: chunk r to r */
    try {
        packed.resize(len);
        if (det) {
            st->tmp.resize(mine * es * static_cast<size_t>(st->size));
            cnt_c.assign(static_cast<size_t>(st->size),
                         static_cast<int64_t>(mine * es));
            for (int r = 0; r < st->size; r++)
                cnt_s.push_back(
                    static_cast<int64_t>(outer * sizes[r] * inner * es));
        }
        if (outer > 1) {
            std::vector<size_t> seg(static_cast<size_t>(st->size));
            for (int r = 0; r < st->size; r++)
                seg[r] = sizes[r] * inner;
            tcomm_host_split_pack(bytes(in), packed.data(), es, outer, st->size,
                                  seg.data());
        } else {
            std::memcpy(packed.data(), bytes(in), len);
        }
    } catch (const std::bad_alloc &) {
        return no_memory(fn);
    }
    tcomm_status_t folded = TCOMM_SUCCESS;
    GLOO_TRY("reduce_scatter", {
        if (det) { /* every rank's copy of our chunk, in rank order */
            TCOMM_TRACE_PATH("gloo_ordered_fold");
            alltoallv_bytes(st, packed.data(), cnt_s, st->tmp.data(), cnt_c);
            if (mine)
                folded = fold(st, d, op, st->tmp.data(), mine, 0, dst, mine);
        } else {
            TCOMM_TRACE_PATH("gloo_ring_allreduce");
            ring_allreduce(st, d, op, packed.data(), n);
            if (mine)
                std::memcpy(dst, packed.data() + at * es, mine * es);
        }
    });
    if (folded != TCOMM_SUCCESS)
        return folded;
    return finish(st, d, op, dst, mine);
}

} /* namespace tcomm_gloo */
