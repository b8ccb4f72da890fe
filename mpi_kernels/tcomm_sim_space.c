/* SPDX-License-Identifier: BSD-3-Clause */
/* The sim memory space: host memory standing in for device memory.
 *
 * It behaves like the cuda space where that matters for correctness:
 * - stream work (async copies, reduce, divide, pack/unpack) is queued and
 *   runs only at wait/synchronize (or before a synchronous call), so a
 *   missing synchronization gives a wrong result instead of passing;
 * - new allocations are poisoned (0xA5), so reading scratch that nobody
 *   wrote shows up;
 * - tagged graphs hand out pointers that fault on any host access, so
 *   the staged path is proven to reach device memory only through the
 *   space's copies.
 * The "kernels" are the host kernels (mpi_kernels/). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_sim.h"

/* A sim pointer with this bit set is non-canonical on x86-64 and outside
 * user space on arm64 (bit 55, below the top byte that TBI ignores). */
#define SIM_TAG ((uintptr_t)1 << 55)

typedef enum {
    OP_COPY, OP_REDUCE, OP_DIVIDE, OP_UNPACK, OP_PACK, OP_SPLIT
} op_kind_t;

typedef struct {
    op_kind_t kind;
    void *dst;
    const void *src;
    size_t n; /* bytes for copies, elements otherwise */
    tcomm_dtype_t dtype;
    tcomm_op_t op;
    double divisor;
    size_t elsize, outer, chunk;
    int nranks;
    size_t *seg; /* OP_UNPACK, OP_SPLIT: a copy of the caller's array */
} sim_op_t;

typedef struct {
    int index;
    uintptr_t tag;
    pthread_mutex_t lock;
    sim_op_t *ops;
    size_t len, cap, done; /* ops[done..len) are pending */
    size_t mark[TCOMM_MEMSPACE_SLOTS];
    void *staging;
    size_t staging_bytes;
} sim_ctx_t;

static void *untag(const sim_ctx_t *c, const void *p)
{
    return p ? (void *)((uintptr_t)p & ~c->tag) : NULL;
}

static void run_op(sim_op_t *o)
{
    switch (o->kind) {
    case OP_COPY:
        if (o->n)
            memmove(o->dst, o->src, o->n);
        break;
    case OP_REDUCE:
        tcomm_host_reduce(o->dtype, o->op, o->dst, o->src, o->n);
        break;
    case OP_DIVIDE:
        tcomm_host_divide(o->dtype, o->dst, o->n, o->divisor);
        break;
    case OP_UNPACK:
        tcomm_host_gather_unpack(o->src, o->dst, o->elsize, o->outer,
                                 o->nranks, o->seg);
        break;
    case OP_PACK:
        tcomm_host_scatter_pack(o->src, o->dst, o->elsize, o->outer,
                                o->nranks, o->chunk);
        break;
    case OP_SPLIT:
        tcomm_host_split_pack(o->src, o->dst, o->elsize, o->outer,
                              o->nranks, o->seg);
        break;
    }
    free(o->seg);
    o->seg = NULL;
}

/* Run the queued work up to (not including) index end. */
static void run_until(sim_ctx_t *c, size_t end)
{
    pthread_mutex_lock(&c->lock);
    while (c->done < end && c->done < c->len)
        run_op(&c->ops[c->done++]);
    if (c->done == c->len) {
        c->done = c->len = 0;
        memset(c->mark, 0, sizeof c->mark);
    }
    pthread_mutex_unlock(&c->lock);
}

static void run_all(sim_ctx_t *c)
{
    run_until(c, (size_t)-1);
}

static tcomm_status_t enqueue(sim_ctx_t *c, const sim_op_t *o)
{
    pthread_mutex_lock(&c->lock);
    if (c->len == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        sim_op_t *ops = realloc(c->ops, cap * sizeof *ops);
        if (!ops) {
            pthread_mutex_unlock(&c->lock);
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "sim stream: cannot grow the queue to %zu "
                               "operations (free memory)", cap);
        }
        c->ops = ops;
        c->cap = cap;
    }
    c->ops[c->len++] = *o;
    pthread_mutex_unlock(&c->lock);
    return TCOMM_SUCCESS;
}

static tcomm_status_t sim_alloc(void *ctx, size_t bytes, void **ptr)
{
    sim_ctx_t *c = ctx;
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "sim space: cannot allocate %zu bytes of device "
                           "memory (free memory or use smaller tensors)",
                           bytes);
    memset(p, 0xA5, bytes);
    *ptr = (void *)((uintptr_t)p | c->tag);
    return TCOMM_SUCCESS;
}

static void sim_free(void *ctx, void *ptr)
{
    sim_ctx_t *c = ctx;
    run_all(c); /* queued work may still use ptr */
    free(untag(c, ptr));
}

static tcomm_status_t sim_copy_sync(void *ctx, void *dst, const void *src,
                                    size_t bytes)
{
    sim_ctx_t *c = ctx;
    run_all(c);
    if (bytes)
        memmove(untag(c, dst), untag(c, src), bytes);
    return TCOMM_SUCCESS;
}

static tcomm_status_t sim_memset0(void *ctx, void *dst, size_t bytes)
{
    sim_ctx_t *c = ctx;
    run_all(c);
    memset(untag(c, dst), 0, bytes);
    return TCOMM_SUCCESS;
}

static tcomm_status_t sim_register(void *ctx, const void *ptr, size_t bytes)
{
    sim_ctx_t *c = ctx;
    if (c->tag && !((uintptr_t)ptr & c->tag))
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_tensor_wrap: buffer %p is host memory, "
                           "not memory of sim device %d (wrap it on a "
                           "TCOMM_DEVICE_HOST graph, or pass a pointer of "
                           "this graph's device)", ptr, c->index);
    return TCOMM_SUCCESS;
}

static void sim_close(void *ctx)
{
    sim_ctx_t *c = ctx;
    if (!c)
        return;
    run_all(c);
    free(c->ops);
    free(c->staging);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static tcomm_status_t sim_staging(void *ctx, size_t bytes, void **ptr)
{
    sim_ctx_t *c = ctx;
    if (bytes > c->staging_bytes) {
        run_all(c); /* queued copies may use the old buffer */
        void *p = malloc(bytes);
        if (!p)
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "sim space: cannot allocate %zu bytes of "
                               "staging memory (lower TCOMM_STAGING_CHUNK)",
                               bytes);
        free(c->staging);
        c->staging = p;
        c->staging_bytes = bytes;
    }
    *ptr = c->staging;
    return TCOMM_SUCCESS;
}

static tcomm_status_t sim_copy_async(void *ctx, void *dst, const void *src,
                                     size_t bytes)
{
    sim_ctx_t *c = ctx;
    sim_op_t o = { .kind = OP_COPY, .dst = untag(c, dst),
                   .src = untag(c, src), .n = bytes };
    return enqueue(c, &o);
}

static tcomm_status_t sim_reduce(void *ctx, tcomm_dtype_t dtype,
                                 tcomm_op_t op, void *acc, const void *x,
                                 size_t n)
{
    sim_ctx_t *c = ctx;
    sim_op_t o = { .kind = OP_REDUCE, .dst = untag(c, acc),
                   .src = untag(c, x), .n = n, .dtype = dtype, .op = op };
    return enqueue(c, &o);
}

static tcomm_status_t sim_divide(void *ctx, tcomm_dtype_t dtype, void *buf,
                                 size_t n, double divisor)
{
    sim_ctx_t *c = ctx;
    sim_op_t o = { .kind = OP_DIVIDE, .dst = untag(c, buf), .n = n,
                   .dtype = dtype, .divisor = divisor };
    return enqueue(c, &o);
}

/* gather_unpack or split_pack: the segments are copied, since the
 * caller's array may be gone when the queued work runs. */
static tcomm_status_t sim_segments(void *ctx, op_kind_t kind,
                                   const void *src, void *dst, size_t elsize,
                                   size_t outer, int nranks,
                                   const size_t *seg)
{
    sim_ctx_t *c = ctx;
    size_t *copy = malloc((size_t)nranks * sizeof *copy);
    if (!copy)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "sim space: out of memory for %d segments "
                           "(free memory)", nranks);
    memcpy(copy, seg, (size_t)nranks * sizeof *copy);
    sim_op_t o = { .kind = kind, .dst = untag(c, dst),
                   .src = untag(c, src), .elsize = elsize, .outer = outer,
                   .nranks = nranks, .seg = copy };
    tcomm_status_t st = enqueue(c, &o);
    if (st != TCOMM_SUCCESS)
        free(copy);
    return st;
}

static tcomm_status_t sim_unpack(void *ctx, const void *src, void *dst,
                                 size_t elsize, size_t outer, int nranks,
                                 const size_t *seg)
{
    return sim_segments(ctx, OP_UNPACK, src, dst, elsize, outer, nranks,
                        seg);
}

static tcomm_status_t sim_split(void *ctx, const void *src, void *dst,
                                size_t elsize, size_t outer, int nranks,
                                const size_t *seg)
{
    return sim_segments(ctx, OP_SPLIT, src, dst, elsize, outer, nranks, seg);
}

static tcomm_status_t sim_pack(void *ctx, const void *src, void *dst,
                               size_t elsize, size_t outer, int nranks,
                               size_t chunk)
{
    sim_ctx_t *c = ctx;
    sim_op_t o = { .kind = OP_PACK, .dst = untag(c, dst),
                   .src = untag(c, src), .elsize = elsize, .outer = outer,
                   .nranks = nranks, .chunk = chunk };
    return enqueue(c, &o);
}

static tcomm_status_t sim_record(void *ctx, int slot)
{
    sim_ctx_t *c = ctx;
    if (slot < 0 || slot >= TCOMM_MEMSPACE_SLOTS)
        return tcomm_error(TCOMM_ERR_INTERNAL,
                           "sim stream: event slot %d out of range", slot);
    pthread_mutex_lock(&c->lock);
    c->mark[slot] = c->len;
    pthread_mutex_unlock(&c->lock);
    return TCOMM_SUCCESS;
}

static tcomm_status_t sim_wait(void *ctx, int slot)
{
    sim_ctx_t *c = ctx;
    if (slot < 0 || slot >= TCOMM_MEMSPACE_SLOTS)
        return tcomm_error(TCOMM_ERR_INTERNAL,
                           "sim stream: event slot %d out of range", slot);
    pthread_mutex_lock(&c->lock);
    size_t end = c->mark[slot];
    pthread_mutex_unlock(&c->lock);
    run_until(c, end);
    return TCOMM_SUCCESS;
}

static tcomm_status_t sim_synchronize(void *ctx)
{
    run_all(ctx);
    return TCOMM_SUCCESS;
}

#define SIM_SPACE_OPS                                                      \
    .alloc = sim_alloc, .free = sim_free, .to_host = sim_copy_sync,        \
    .from_host = sim_copy_sync, .copy = sim_copy_sync,                     \
    .memset0 = sim_memset0, .register_buffer = sim_register,               \
    .close = sim_close, .staging = sim_staging,                            \
    .to_host_async = sim_copy_async, .from_host_async = sim_copy_async,    \
    .copy_async = sim_copy_async, .reduce = sim_reduce,                    \
    .divide = sim_divide, .gather_unpack = sim_unpack,                     \
    .scatter_pack = sim_pack, .split_pack = sim_split,                     \
    .record = sim_record, .wait = sim_wait,                                \
    .synchronize = sim_synchronize

const tcomm_memspace_t tcomm_memspace_sim = {
    .name = "sim", .is_host = 0, .mpi_direct = 1, SIM_SPACE_OPS
};
const tcomm_memspace_t tcomm_memspace_sim_tagged = {
    .name = "sim-tagged", .is_host = 0, .mpi_direct = 0, SIM_SPACE_OPS
};

tcomm_status_t tcomm_graph_create_sim_flags(int index, int flags,
                                            tcomm_graph_t **graph)
{
    if (!graph || index < 0)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_graph_create_sim: graph is NULL or index "
                           "%d is negative (pass a graph pointer and an "
                           "index >= 0)", index);
    sim_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_graph_create_sim: out of memory");
    c->index = index;
    c->tag = (flags & TCOMM_SIM_TAGGED) ? SIM_TAG : 0;
    pthread_mutex_init(&c->lock, NULL);
    tcomm_device_t dev = { TCOMM_DEVICE_CUDA, index };
    const tcomm_memspace_t *sp =
        c->tag ? &tcomm_memspace_sim_tagged : &tcomm_memspace_sim;
    tcomm_status_t st = tcomm_graph_create_space(dev, sp, c, graph);
    if (st != TCOMM_SUCCESS)
        sim_close(c);
    return st;
}

tcomm_status_t tcomm_graph_create_sim(int index, tcomm_graph_t **graph)
{
    return tcomm_graph_create_sim_flags(index, 0, graph);
}

size_t tcomm_sim_pending(const tcomm_graph_t *graph)
{
    sim_ctx_t *c = graph->space_ctx;
    pthread_mutex_lock(&c->lock);
    size_t n = c->len - c->done;
    pthread_mutex_unlock(&c->lock);
    return n;
}

void *tcomm_sim_host_ptr(const tcomm_graph_t *graph, const void *ptr)
{
    return untag(graph->space_ctx, ptr);
}
