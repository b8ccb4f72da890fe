/* SPDX-License-Identifier: BSD-3-Clause */
/* The caching device allocator of a cuda graph.
 *
 * Sizes are rounded up (512 B below 1 MiB, 2 MiB above) and a freed
 * block goes to a cache instead of cudaFree; an allocation takes the
 * smallest cached block that fits and wastes at most a quarter of it,
 * and calls cudaMalloc only when none does. When cudaMalloc runs out of
 * memory the cache is released and the call retried once. Blocks are
 * reused on the graph's stream only, whose order makes reuse safe. */
#include <stdint.h>
#include <stdlib.h>

#include "tcomm_cuda_check.h"

#define SMALL_LIMIT ((size_t)1 << 20)
#define SMALL_ROUND ((size_t)512)
#define LARGE_ROUND ((size_t)2 << 20)

static size_t round_bytes(size_t bytes)
{
    size_t r = bytes <= SMALL_LIMIT ? SMALL_ROUND : LARGE_ROUND;
    if (bytes == 0)
        return SMALL_ROUND;
    if (bytes > SIZE_MAX - r)
        return 0;
    return (bytes + r - 1) / r * r;
}

static size_t bucket_of(const tcomm_cuda_alloc_t *a, const void *ptr)
{
    uintptr_t p = (uintptr_t)ptr >> 9;
    p ^= p >> 17;
    p *= (uintptr_t)0x9e3779b97f4a7c15ull;
    return (size_t)(p >> 7) & (a->nbuckets - 1);
}

tcomm_status_t tcomm_cuda_alloc_init(tcomm_cuda_alloc_t *a)
{
    a->nbuckets = 256;
    a->live = calloc(a->nbuckets, sizeof *a->live);
    a->cached = NULL;
    a->cached_bytes = 0;
    if (!a->live)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "cuda allocator: out of host memory");
    pthread_mutex_init(&a->lock, NULL);
    return TCOMM_SUCCESS;
}

/* Take the best cached block for bytes (rounded), or NULL. */
static tcomm_cuda_block_t *take_cached(tcomm_cuda_alloc_t *a, size_t bytes)
{
    tcomm_cuda_block_t **best = NULL;
    for (tcomm_cuda_block_t **b = &a->cached; *b; b = &(*b)->next) {
        size_t have = (*b)->bytes;
        if (have < bytes || have - bytes > have / 4)
            continue;
        if (!best || have < (*best)->bytes)
            best = b;
        if (have == bytes)
            break;
    }
    if (!best)
        return NULL;
    tcomm_cuda_block_t *blk = *best;
    *best = blk->next;
    a->cached_bytes -= blk->bytes;
    return blk;
}

static void release_cached(tcomm_cuda_alloc_t *a)
{
    while (a->cached) {
        tcomm_cuda_block_t *b = a->cached;
        a->cached = b->next;
        cudaFree(b->ptr);
        free(b);
    }
    a->cached_bytes = 0;
}

tcomm_status_t tcomm_cuda_alloc_get(tcomm_cuda_alloc_t *a, size_t bytes,
                                    void **ptr)
{
    size_t want = round_bytes(bytes);
    if (want == 0)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "cuda allocator: %zu bytes cannot be allocated "
                           "(use smaller tensors)", bytes);
    pthread_mutex_lock(&a->lock);
    tcomm_cuda_block_t *blk = take_cached(a, want);
    tcomm_status_t st = TCOMM_SUCCESS;
    if (!blk) {
        blk = malloc(sizeof *blk);
        if (!blk) {
            st = tcomm_error(TCOMM_ERR_NO_MEMORY,
                             "cuda allocator: out of host memory");
            goto out;
        }
        blk->bytes = want;
        cudaError_t rc = cudaMalloc(&blk->ptr, want);
        if (rc == cudaErrorMemoryAllocation && a->cached) {
            (void)cudaGetLastError();
            release_cached(a);
            rc = cudaMalloc(&blk->ptr, want);
        }
        if (rc != cudaSuccess) {
            (void)cudaGetLastError();
            free(blk);
            st = rc == cudaErrorMemoryAllocation
                     ? tcomm_error(TCOMM_ERR_NO_MEMORY,
                                   "cudaMalloc(%zu bytes) failed: out of "
                                   "device memory (free tensors or use "
                                   "smaller ones)", want)
                     : tcomm_cuda_status(rc, "cudaMalloc", __FILE__,
                                         __LINE__);
            goto out;
        }
    }
    size_t h = bucket_of(a, blk->ptr);
    blk->next = a->live[h];
    a->live[h] = blk;
    *ptr = blk->ptr;
out:
    pthread_mutex_unlock(&a->lock);
    return st;
}

void tcomm_cuda_alloc_put(tcomm_cuda_alloc_t *a, void *ptr)
{
    if (!ptr)
        return;
    pthread_mutex_lock(&a->lock);
    for (tcomm_cuda_block_t **b = &a->live[bucket_of(a, ptr)]; *b;
         b = &(*b)->next) {
        if ((*b)->ptr != ptr)
            continue;
        tcomm_cuda_block_t *blk = *b;
        *b = blk->next;
        blk->next = a->cached;
        a->cached = blk;
        a->cached_bytes += blk->bytes;
        break;
    }
    pthread_mutex_unlock(&a->lock);
}

void tcomm_cuda_alloc_fini(tcomm_cuda_alloc_t *a)
{
    if (!a->live)
        return;
    release_cached(a);
    for (size_t i = 0; i < a->nbuckets; i++) {
        while (a->live[i]) {
            tcomm_cuda_block_t *b = a->live[i];
            a->live[i] = b->next;
            cudaFree(b->ptr);
            free(b);
        }
    }
    free(a->live);
    a->live = NULL;
    pthread_mutex_destroy(&a->lock);
}
