/* SPDX-License-Identifier: BSD-3-Clause */
/* The sim space's memory and stream: host memory standing in for device
 * memory (contract in tcomm_sim_stream.h; the space's table and its
 * "kernels" are mpi_kernels/tcomm_sim_space.c).
 *
 * It behaves like the cuda space where that matters for correctness:
 * - stream work (async copies, reduce, divide, pack/unpack) is queued and
 *   runs only at wait/synchronize (or before a synchronous call), so a
 *   missing synchronization gives a wrong result instead of passing;
 * - new allocations are poisoned (0xA5), so reading scratch that nobody
 *   wrote shows up;
 * - tagged graphs hand out pointers that fault on any host access, so
 *   the staged path is proven to reach device memory only through the
 *   space's copies. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_sim_stream.h"

/* A sim pointer with this bit set is non-canonical on x86-64 and outside
 * user space on arm64 (bit 55, below the top byte that TBI ignores). */
#define SIM_TAG ((uintptr_t)1 << 55)

typedef struct {
    int index;
    uintptr_t tag;
    pthread_mutex_t lock;
    tcomm_sim_op_t *ops;
    size_t len, cap, done; /* ops[done..len) are pending */
    size_t mark[TCOMM_MEMSPACE_SLOTS];
    void *staging;
    size_t staging_bytes;
} sim_ctx_t;

void *tcomm_sim_untag(void *ctx, const void *ptr)
{
    const sim_ctx_t *c = ctx;
    return ptr ? (void *)((uintptr_t)ptr & ~c->tag) : NULL;
}

static void run_op(tcomm_sim_op_t *o)
{
    if (o->run)
        o->run(o);
    else if (o->n)
        memmove(o->dst, o->src, o->n);
    free((void *)o->seg);
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

static tcomm_status_t push(sim_ctx_t *c, const tcomm_sim_op_t *o)
{
    tcomm_status_t s = TCOMM_SUCCESS;
    pthread_mutex_lock(&c->lock);
    if (c->len == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        size_t bytes = c->cap * sizeof *c->ops;
        s = tcomm_host_grow((void **)&c->ops, &bytes, cap * sizeof *c->ops,
                            "the sim stream's queue");
        if (s == TCOMM_SUCCESS)
            c->cap = cap;
    }
    if (s == TCOMM_SUCCESS)
        c->ops[c->len++] = *o;
    pthread_mutex_unlock(&c->lock);
    return s;
}

tcomm_status_t tcomm_sim_enqueue(void *ctx, const tcomm_sim_op_t *o)
{
    tcomm_sim_op_t q = *o;
    if (o->seg) {
        size_t *copy = malloc((size_t)o->nranks * sizeof *copy);
        if (!copy)
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "sim space: out of memory for %d segments "
                               "(free memory)",
                               o->nranks);
        memcpy(copy, o->seg, (size_t)o->nranks * sizeof *copy);
        q.seg = copy;
    }
    tcomm_status_t st = push(ctx, &q);
    if (st != TCOMM_SUCCESS)
        free((void *)q.seg);
    return st;
}

tcomm_status_t tcomm_sim_alloc(void *ctx, size_t bytes, void **ptr)
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

void tcomm_sim_free(void *ctx, void *ptr)
{
    run_all(ctx); /* queued work may still use ptr */
    free(tcomm_sim_untag(ctx, ptr));
}

tcomm_status_t tcomm_sim_copy_sync(void *ctx, void *dst, const void *src,
                                   size_t bytes)
{
    run_all(ctx);
    if (bytes)
        memmove(tcomm_sim_untag(ctx, dst), tcomm_sim_untag(ctx, src), bytes);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_sim_memset0(void *ctx, void *dst, size_t bytes)
{
    run_all(ctx);
    memset(tcomm_sim_untag(ctx, dst), 0, bytes);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_sim_register(void *ctx, const void *ptr, size_t bytes)
{
    sim_ctx_t *c = ctx;
    (void)bytes;
    if (c->tag && !((uintptr_t)ptr & c->tag))
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_tensor_wrap: buffer %p is host memory, "
                           "not memory of sim device %d (wrap it on a "
                           "TCOMM_DEVICE_HOST graph, or pass a pointer of "
                           "this graph's device)",
                           ptr, c->index);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_sim_open(int index, int tagged, void **ctx)
{
    sim_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_graph_create_sim: out of memory");
    c->index = index;
    c->tag = tagged ? SIM_TAG : 0;
    pthread_mutex_init(&c->lock, NULL);
    *ctx = c;
    return TCOMM_SUCCESS;
}

void tcomm_sim_close(void *ctx)
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

tcomm_status_t tcomm_sim_staging(void *ctx, size_t bytes, void **ptr)
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

tcomm_status_t tcomm_sim_copy_async(void *ctx, void *dst, const void *src,
                                    size_t bytes)
{
    tcomm_sim_op_t o = {.dst = tcomm_sim_untag(ctx, dst),
                        .src = tcomm_sim_untag(ctx, src),
                        .n = bytes};
    return push(ctx, &o);
}

static tcomm_status_t check_slot(int slot)
{
    if (slot < 0 || slot >= TCOMM_MEMSPACE_SLOTS)
        return tcomm_error(TCOMM_ERR_INTERNAL,
                           "sim stream: event slot %d out of range", slot);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_sim_record(void *ctx, int slot)
{
    sim_ctx_t *c = ctx;
    TCOMM_TRY(check_slot(slot));
    pthread_mutex_lock(&c->lock);
    c->mark[slot] = c->len;
    pthread_mutex_unlock(&c->lock);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_sim_wait(void *ctx, int slot)
{
    sim_ctx_t *c = ctx;
    TCOMM_TRY(check_slot(slot));
    pthread_mutex_lock(&c->lock);
    size_t end = c->mark[slot];
    pthread_mutex_unlock(&c->lock);
    run_until(c, end);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_sim_synchronize(void *ctx)
{
    run_all(ctx);
    return TCOMM_SUCCESS;
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
    return tcomm_sim_untag(graph->space_ctx, ptr);
}
