/* SPDX-License-Identifier: BSD-3-Clause */
/* The Gloo backend: one thin C++ file behind the C vtable, written against
 * the public backend interface (include/tcomm_backend.h), as a backend
 * outside tcomm would be. The ranks meet through Gloo's file store and
 * talk over its TCP transport; host tensors only. Reductions use Gloo's
 * ring allreduce with tcomm's host kernels as the element function (so
 * every dtype and op, NaN-propagating MIN/MAX, f16/bf16 in f32); in
 * deterministic mode the inputs are gathered and folded in rank order.
 * Gloo reports failures as exceptions: each becomes a status and a
 * sentence here, never an exception across the C boundary. The
 * all_to_all pair and reduce_scatter_v are in backend_gloo_all_to_all.cc. */
#include <sys/stat.h>

#include <cstring>
#include <new>

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include "backend_gloo.h"
#include "tcomm_gloo.h"
extern "C" {
#include "tcomm_config.h"
#include "tcomm_host_kernels.h"
}
#include "tcomm_log.h"

namespace tcomm_gloo {

tcomm_status_t fail(const std::exception &e, const char *what)
{
    int timed_out = std::strstr(e.what(), "imed out") != nullptr;
    return tcomm_backend_error(
        timed_out ? TCOMM_ERR_TIMEOUT : TCOMM_ERR_COMM_FAILED,
        "tcomm: Gloo %s failed: %s (the communicator is unusable: destroy "
        "it)",
        what, e.what());
}

const char *bytes(const tcomm_tensor_t *t)
{
    return static_cast<const char *>(tcomm_tensor_data(t));
}

size_t nbytes(const tcomm_tensor_t *t)
{
    return tcomm_tensor_numel(t) * tcomm_dtype_size(tcomm_tensor_dtype(t));
}

tcomm_status_t host_only(const tcomm_tensor_t *in, const char *fn)
{
    tcomm_device_t dev = tcomm_graph_device(tcomm_tensor_graph(in));
    if (dev.kind == TCOMM_DEVICE_HOST)
        return TCOMM_SUCCESS;
    return tcomm_backend_error(TCOMM_ERR_UNSUPPORTED,
                               "%s: the Gloo backend moves host tensors "
                               "only (use a host graph, or the MPI or "
                               "NCCL backend for CUDA graphs)",
                               fn);
}

int deterministic(const gloo_state *st)
{
    int v = 0;
    tcomm_comm_get_attr(st->owner, TCOMM_ATTR_DETERMINISTIC, &v);
    return v;
}

void gather_all(gloo_state *st, const void *mine, size_t len, char *all)
{
    gloo::AllgatherOptions o(st->ctx);
    o.setInput(const_cast<char *>(static_cast<const char *>(mine)), len);
    o.setOutput(all, len * static_cast<size_t>(st->size));
    gloo::allgather(o);
}

template <typename T>
void set_buffers(gloo::AllreduceOptions &o, char *buf, size_t n)
{
    o.setOutput(reinterpret_cast<T *>(buf), n);
}

void ring_allreduce(gloo_state *st, tcomm_dtype_t d, tcomm_op_t op,
                    char *buf, size_t n)
{
    gloo::AllreduceOptions o(st->ctx);
    switch (tcomm_dtype_size(d)) {
    case 1: set_buffers<uint8_t>(o, buf, n); break;
    case 2: set_buffers<uint16_t>(o, buf, n); break;
    case 4: set_buffers<uint32_t>(o, buf, n); break;
    default: set_buffers<uint64_t>(o, buf, n); break;
    }
    size_t es = tcomm_dtype_size(d);
    o.setReduceFunction([d, op, es](void *c, const void *a, const void *b,
                                    size_t k) {
        if (c == b) { /* every op is commutative */
            tcomm_host_reduce(d, op, c, a, k);
            return;
        }
        if (c != a)
            std::memcpy(c, a, k * es);
        tcomm_host_reduce(d, op, c, b, k);
    });
    gloo::allreduce(o);
}

tcomm_status_t fold(const gloo_state *st, tcomm_dtype_t d, tcomm_op_t op,
                    const char *all, size_t stride, size_t at, char *dst,
                    size_t n)
{
    size_t es = tcomm_dtype_size(d);
    return tcomm_host_fold_strided(d, op, dst, all + at * es, stride * es,
                                   st->size, n);
}

tcomm_status_t finish(const gloo_state *st, tcomm_dtype_t d, tcomm_op_t op,
                      char *dst, size_t n)
{
    return tcomm_host_finish(d, op, dst, n, st->size);
}

} /* namespace tcomm_gloo */

namespace {

using namespace tcomm_gloo;

tcomm_status_t gloo_all_reduce(void *s, const tcomm_tensor_t *in,
                               tcomm_op_t op, tcomm_tensor_t *out)
{
    gloo_state *st = static_cast<gloo_state *>(s);
    if (host_only(in, "tcomm_all_reduce") != TCOMM_SUCCESS)
        return TCOMM_ERR_UNSUPPORTED;
    tcomm_dtype_t d = tcomm_tensor_dtype(in);
    size_t n = tcomm_tensor_numel(in), len = nbytes(in);
    char *dst = static_cast<char *>(tcomm_tensor_data(out));
    if (n == 0)
        return TCOMM_SUCCESS;
    tcomm_status_t folded = TCOMM_SUCCESS;
    GLOO_TRY("allreduce", {
        if (deterministic(st)) {
            TCOMM_TRACE_PATH("gloo_ordered_fold");
            st->tmp.resize(len * static_cast<size_t>(st->size));
            gather_all(st, bytes(in), len, st->tmp.data());
            folded = fold(st, d, op, st->tmp.data(), n, 0, dst, n);
        } else {
            TCOMM_TRACE_PATH("gloo_ring_allreduce");
            if (dst != bytes(in))
                std::memcpy(dst, bytes(in), len);
            ring_allreduce(st, d, op, dst, n);
        }
    });
    if (folded != TCOMM_SUCCESS)
        return folded;
    return finish(st, d, op, dst, n);
}

/* out is [outer][sum sizes][inner]: Gloo gathers the ranks' blocks back
 * to back, and the host kernel interleaves them along dim. */
tcomm_status_t gloo_all_gather(void *s, const tcomm_tensor_t *in, int dim,
                               const size_t *sizes, tcomm_tensor_t *out)
{
    gloo_state *st = static_cast<gloo_state *>(s);
    if (host_only(in, "tcomm_all_gather") != TCOMM_SUCCESS)
        return TCOMM_ERR_UNSUPPORTED;
    int nd = tcomm_tensor_ndim(in);
    size_t es = tcomm_dtype_size(tcomm_tensor_dtype(in));
    size_t outer = 1, inner = 1;
    for (int i = 0; i < dim; i++)
        outer *= tcomm_tensor_dim(in, i);
    for (int i = dim + 1; i < nd; i++)
        inner *= tcomm_tensor_dim(in, i);
    std::vector<size_t> seg(static_cast<size_t>(st->size));
    std::vector<size_t> counts(seg.size());
    for (int r = 0; r < st->size; r++) {
        seg[r] = sizes[r] * inner;            /* elements per row */
        counts[r] = seg[r] * outer * es;      /* bytes from rank r */
    }
    char *dst = static_cast<char *>(tcomm_tensor_data(out));
    if (nbytes(out) == 0)
        return TCOMM_SUCCESS;
    char *land = dst;
    if (outer > 1) {
        st->tmp.resize(nbytes(out));
        land = st->tmp.data();
    }
    TCOMM_TRACE_PATH(outer > 1 ? "gloo_allgatherv+unpack"
                               : "gloo_allgatherv");
    GLOO_TRY("allgatherv", {
        gloo::AllgathervOptions o(st->ctx);
        o.setInput(const_cast<char *>(bytes(in)), nbytes(in));
        o.setOutput(land, counts);
        gloo::allgatherv(o);
    });
    if (outer > 1)
        tcomm_host_gather_unpack(land, dst, es, outer, st->size, seg.data());
    return TCOMM_SUCCESS;
}

/* reduce_scatter_v with equal chunks. */
tcomm_status_t gloo_reduce_scatter(void *s, const tcomm_tensor_t *in,
                                   tcomm_op_t op, int dim,
                                   tcomm_tensor_t *out)
{
    gloo_state *st = static_cast<gloo_state *>(s);
    std::vector<size_t> sizes;
    try {
        sizes.assign(static_cast<size_t>(st->size), tcomm_tensor_dim(out, dim));
    } catch (const std::bad_alloc &) {
        return tcomm_backend_error(TCOMM_ERR_NO_MEMORY,
                                   "tcomm_reduce_scatter: out of host memory");
    }
    return reduce_scatter_v(s, in, op, dim, sizes.data(), out);
}

tcomm_status_t gloo_broadcast(void *s, const tcomm_tensor_t *in, int root,
                              tcomm_tensor_t *out)
{
    gloo_state *st = static_cast<gloo_state *>(s);
    if (host_only(in, "tcomm_broadcast") != TCOMM_SUCCESS)
        return TCOMM_ERR_UNSUPPORTED;
    char *dst = static_cast<char *>(tcomm_tensor_data(out));
    size_t len = nbytes(in);
    if (len == 0)
        return TCOMM_SUCCESS;
    if (st->rank == root && dst != bytes(in))
        std::memcpy(dst, bytes(in), len);
    TCOMM_TRACE_PATH("gloo_broadcast");
    GLOO_TRY("broadcast", {
        gloo::BroadcastOptions o(st->ctx);
        o.setOutput(dst, len);
        o.setRoot(root);
        gloo::broadcast(o);
    });
    return TCOMM_SUCCESS;
}

tcomm_status_t gloo_barrier(void *s)
{
    gloo_state *st = static_cast<gloo_state *>(s);
    TCOMM_TRACE_PATH("gloo_barrier");
    GLOO_TRY("barrier", {
        gloo::BarrierOptions o(st->ctx);
        gloo::barrier(o);
    });
    return TCOMM_SUCCESS;
}

tcomm_status_t gloo_allgather_bytes(void *s, const void *mine, void *all,
                                    size_t len)
{
    gloo_state *st = static_cast<gloo_state *>(s);
    GLOO_TRY("agreement", gather_all(st, mine, len, static_cast<char *>(all)));
    return TCOMM_SUCCESS;
}

tcomm_status_t gloo_query(void *s, int *rank, int *size, int *cuda_aware)
{
    gloo_state *st = static_cast<gloo_state *>(s);
    *rank = st->rank;
    *size = st->size;
    *cuda_aware = 0;
    return TCOMM_SUCCESS;
}

void gloo_destroy(void *s)
{
    delete static_cast<gloo_state *>(s);
}

/* Designated initializers, in declaration order (a GNU extension before
 * C++20): the table's size field comes first. */
const tcomm_backend_ops_t gloo_ops = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "gloo",
    .query = gloo_query,
    .allgather_bytes = gloo_allgather_bytes,
    .allreduce_min_i64 = nullptr,
    .all_reduce = gloo_all_reduce,
    .all_gather = gloo_all_gather,
    .reduce_scatter = gloo_reduce_scatter,
    .broadcast = gloo_broadcast,
    .barrier = gloo_barrier,
    .destroy = gloo_destroy,
    .all_to_all = tcomm_gloo::all_to_all,
    .all_to_all_v = tcomm_gloo::all_to_all_v,
    .reduce_scatter_v = tcomm_gloo::reduce_scatter_v,
    .allreduce_min_i64_carry = nullptr,
    .collective = nullptr,
};

tcomm_status_t check_options(const tcomm_gloo_options_t *o,
                             tcomm_comm_t **comm, const char *fn)
{
    struct stat sb;
    if (!o || !comm)
        return tcomm_backend_error(TCOMM_ERR_INVALID_ARG,
                                   "%s: %s is NULL (pass options and the "
                                   "address of a tcomm_comm_t pointer)",
                                   fn, !o ? "options" : "comm");
    if (!o->store_dir || stat(o->store_dir, &sb) || !S_ISDIR(sb.st_mode))
        return tcomm_backend_error(TCOMM_ERR_INVALID_ARG,
                                   "%s: store_dir %s is not a directory "
                                   "(pass one that every rank can reach)",
                                   fn, o->store_dir ? o->store_dir : "NULL");
    if (o->world_size < 1 || o->rank < 0 || o->rank >= o->world_size)
        return tcomm_backend_error(TCOMM_ERR_INVALID_ARG,
                                   "%s: rank %d of world size %d (use a "
                                   "world size >= 1 and a rank below it)",
                                   fn, o->rank, o->world_size);
    return TCOMM_SUCCESS;
}

} /* namespace */

extern "C" tcomm_status_t tcomm_comm_create_gloo(
    const tcomm_gloo_options_t *o, tcomm_comm_t **comm)
{
    static const char fn[] = "tcomm_comm_create_gloo";
    tcomm_status_t s = check_options(o, comm, fn);
    if (s != TCOMM_SUCCESS)
        return s;
    double timeout_s = tcomm_config()->timeout_s;
    std::unique_ptr<gloo_state> st(new (std::nothrow) gloo_state);
    if (!st)
        return tcomm_backend_error(TCOMM_ERR_NO_MEMORY,
                                   "%s: out of host memory", fn);
    st->rank = o->rank;
    st->size = o->world_size;
    try {
        gloo::transport::tcp::attr attr(o->hostname ? o->hostname
                                                    : "127.0.0.1");
        auto dev = gloo::transport::tcp::CreateDevice(attr);
        gloo::rendezvous::FileStore files(o->store_dir);
        gloo::rendezvous::PrefixStore store(o->prefix ? o->prefix : "tcomm",
                                            files);
        auto ctx = std::make_shared<gloo::rendezvous::Context>(o->rank,
                                                               o->world_size);
        /* Meeting is bounded (TCOMM_TIMEOUT, else 30 s); collectives wait
         * as long as TCOMM_TIMEOUT says, a week when it is 0 (Gloo's
         * transport takes its "no timeout" for zero milliseconds). */
        auto ms = std::chrono::milliseconds(
            static_cast<long long>(timeout_s > 0 ? timeout_s * 1000 : 30000));
        ctx->setTimeout(ms);
        ctx->connectFullMesh(store, dev);
        if (timeout_s <= 0)
            ctx->setTimeout(std::chrono::hours(24 * 7));
        st->ctx = ctx;
    } catch (const std::exception &e) {
        return tcomm_backend_error(
            TCOMM_ERR_COMM_FAILED,
            "%s: rank %d of %d could not meet the others through %s: %s "
            "(start every rank with the same store_dir, prefix and "
            "world_size, in a fresh store_dir)",
            fn, o->rank, o->world_size, o->store_dir, e.what());
    }
    s = tcomm_comm_create_custom(&gloo_ops, st.get(), comm);
    if (s != TCOMM_SUCCESS)
        return s;
    st.release()->owner = *comm;
    return TCOMM_SUCCESS;
}
