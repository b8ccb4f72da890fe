/* SPDX-License-Identifier: BSD-3-Clause */
/* The host space's memory (its table and element ops, which run the host
 * kernels, are in mpi_kernels/tcomm_host_space.c): alloc and free with a
 * small cache of large blocks, over the shared arena (host_arena.c),
 * and the plain copies. The cache is state, so it lives in core. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_arena.h"
#include "tcomm_internal.h"

/* Host memory: cache-line aligned so that vector loops and MPI run at
 * full speed; large blocks (LARGE and up) page aligned, as MPI libraries
 * and OSU's buffers are, and kept in a small cache when freed: an
 * allocating collective run in a loop (tcomm_all_to_all_v has no _into
 * form) would otherwise get fresh pages from the kernel on every call
 * (glibc maps blocks this large anew each time) and pay a page fault per
 * 4 KiB, three times the exchange itself at 16 MiB (doc/performance.md).
 * Every block has its capacity in the word before it and, where malloc
 * served it, malloc's own pointer in the word before that, in a header of
 * one alignment at least: aligned_alloc would split and free the slack
 * around every block (570 instructions a call, a fifth of a small
 * allocating collective's). A cached block serves requests of half its
 * size and more.
 * Blocks of TCOMM_ARENA_MIN and more come from the shared arena where it
 * can serve them (tcomm_host_arena.h: the node's peers map it); a child
 * after fork() never reuses the arena blocks it inherited. */
#define LARGE ((size_t)1 << 20)
#define PAGE ((size_t)4096)
#define CACHED 8                      /* blocks */
#define CACHE_BYTES ((size_t)1 << 28) /* 256 MiB in all */

static struct {
    pthread_mutex_t lock;
    void *ptr[CACHED]; /* user pointers */
    size_t total;
} cache = {PTHREAD_MUTEX_INITIALIZER, {NULL}, 0};

static size_t capacity(const void *ptr)
{
    return ((const size_t *)ptr)[-1];
}

static size_t header(size_t cap)
{
    return cap >= LARGE ? PAGE : TCOMM_CACHE_LINE;
}

static void *cache_take(size_t bytes)
{
    void *ptr = NULL;
    pthread_mutex_lock(&cache.lock);
    for (int i = 0; i < CACHED && !ptr; i++) {
        void *p = cache.ptr[i];
        if (p && capacity(p) >= bytes && capacity(p) / 2 <= bytes &&
            !tcomm_arena_foreign(p)) {
            ptr = p;
            cache.ptr[i] = NULL;
            cache.total -= capacity(p);
        }
    }
    pthread_mutex_unlock(&cache.lock);
    return ptr;
}

static int cache_put(void *ptr)
{
    int kept = 0;
    pthread_mutex_lock(&cache.lock);
    for (int i = 0; i < CACHED && !kept; i++)
        if (!cache.ptr[i] && cache.total + capacity(ptr) <= CACHE_BYTES) {
            cache.ptr[i] = ptr;
            cache.total += capacity(ptr);
            kept = 1;
        }
    pthread_mutex_unlock(&cache.lock);
    return kept;
}

tcomm_status_t tcomm_host_mem_alloc(void *ctx, size_t bytes, void **ptr)
{
    (void)ctx;
    if (bytes == 0) {
        *ptr = NULL;
        return TCOMM_SUCCESS;
    }
    size_t cap = (bytes + TCOMM_CACHE_LINE - 1) & ~(TCOMM_CACHE_LINE - 1);
    if (cap >= LARGE)
        cap = (cap + PAGE - 1) & ~(PAGE - 1);
    size_t align = header(cap);
    char *base = NULL;
    if (cap >= bytes && cap <= SIZE_MAX - align) {
        if (cap >= LARGE && (*ptr = cache_take(cap)))
            return TCOMM_SUCCESS;
        base = tcomm_arena_alloc(cap + align, align);
        if (base) {
            *ptr = base + align;
        } else if (cap <= SIZE_MAX - 2 * align &&
                   (base = malloc(cap + 2 * align))) {
            /* the first aligned address a header past malloc's */
            *ptr = base + align +
                   (-(uintptr_t)(base + align) & (uintptr_t)(align - 1));
            ((void **)*ptr)[-2] = base;
        }
    }
    if (!base)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm: cannot allocate %zu bytes of host memory "
                           "(free memory or use smaller tensors)",
                           bytes);
    ((size_t *)*ptr)[-1] = cap;
    return TCOMM_SUCCESS;
}

void tcomm_host_mem_free(void *ctx, void *ptr)
{
    (void)ctx;
    if (!ptr || tcomm_arena_foreign(ptr) ||
        (capacity(ptr) >= LARGE && cache_put(ptr)))
        return;
    size_t cap = capacity(ptr);
    if (!tcomm_arena_free((char *)ptr - header(cap), cap + header(cap)))
        free(((void **)ptr)[-2]);
}

tcomm_status_t tcomm_host_mem_copy(void *ctx, void *dst, const void *src,
                                   size_t bytes)
{
    (void)ctx;
    if (bytes && dst != src)
        memcpy(dst, src, bytes);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_host_mem_memset0(void *ctx, void *dst, size_t bytes)
{
    (void)ctx;
    if (bytes)
        memset(dst, 0, bytes);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_host_grow(void **buf, size_t *bytes, size_t want,
                               const char *what)
{
    if (want <= *bytes)
        return TCOMM_SUCCESS;
    void *p = realloc(*buf, want);
    if (!p)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm: out of host memory for %zu bytes of %s "
                           "(free memory)",
                           want, what);
    *buf = p;
    *bytes = want;
    return TCOMM_SUCCESS;
}
