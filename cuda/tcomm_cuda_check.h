/* SPDX-License-Identifier: BSD-3-Clause */
/* CUDA error mapping and the cuda space's private context, for the C
 * files of cuda/ (which alone include CUDA headers). */
#ifndef TCOMM_CUDA_CHECK_H
#define TCOMM_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <pthread.h>

#include "tcomm_internal.h"

/* Map a cudaError_t to TCOMM_ERR_CUDA with CUDA's error text, the call
 * text, file and line; TCOMM_SUCCESS for cudaSuccess. TCOMM_CUDA_CHECK
 * keeps that first sentence and records the hop through TCOMM_TRY. */
tcomm_status_t tcomm_cuda_status(cudaError_t rc, const char *call,
                                 const char *file, int line);
#define TCOMM_CUDA_CHECK(call)                                              \
    TCOMM_TRY(tcomm_cuda_status((call), #call, __FILE__, __LINE__))

/* A block of device memory known to the caching allocator. */
typedef struct tcomm_cuda_block {
    void *ptr;
    size_t bytes;
    struct tcomm_cuda_block *next;
} tcomm_cuda_block_t;

/* The caching allocator of one graph (cuda/cuda_alloc.c): freed blocks
 * are kept for reuse on the graph's stream instead of being returned to
 * cudaFree, so that no collective calls cudaMalloc once warm. */
typedef struct {
    pthread_mutex_t lock;
    tcomm_cuda_block_t **live; /* hash of live blocks by pointer */
    size_t nbuckets;
    tcomm_cuda_block_t *cached; /* free blocks, any order */
    size_t cached_bytes;
} tcomm_cuda_alloc_t;

typedef struct {
    int device;
    cudaStream_t stream;
    cudaEvent_t events[TCOMM_MEMSPACE_SLOTS];
    tcomm_cuda_alloc_t alloc;
    void *staging; /* pinned host */
    size_t staging_bytes;
} tcomm_cuda_ctx_t;

tcomm_status_t tcomm_cuda_alloc_init(tcomm_cuda_alloc_t *a);
/* bytes rounded up; cudaMalloc only when no cached block fits. */
tcomm_status_t tcomm_cuda_alloc_get(tcomm_cuda_alloc_t *a, size_t bytes,
                                    void **ptr);
void tcomm_cuda_alloc_put(tcomm_cuda_alloc_t *a, void *ptr);
/* cudaFree every cached and every live block. */
void tcomm_cuda_alloc_fini(tcomm_cuda_alloc_t *a);

/* Make ctx's device current on this thread. */
tcomm_status_t tcomm_cuda_use(const tcomm_cuda_ctx_t *c);

/* The stream-ordered operations of the space (cuda/cuda_space_ops.c). */
tcomm_status_t tcomm_cuda_copy_async(void *ctx, void *dst, const void *src,
                                     size_t bytes);
tcomm_status_t tcomm_cuda_reduce_op(void *ctx, tcomm_dtype_t dtype,
                                    tcomm_op_t op, void *acc, const void *x,
                                    size_t n);
tcomm_status_t tcomm_cuda_divide_op(void *ctx, tcomm_dtype_t dtype,
                                    void *buf, size_t n, double divisor);
tcomm_status_t tcomm_cuda_unpack_op(void *ctx, const void *src, void *dst,
                                    size_t elsize, size_t outer, int nranks,
                                    const size_t *seg);
tcomm_status_t tcomm_cuda_pack_op(void *ctx, const void *src, void *dst,
                                  size_t elsize, size_t outer, int nranks,
                                  size_t chunk);
tcomm_status_t tcomm_cuda_split_op(void *ctx, const void *src, void *dst,
                                   size_t elsize, size_t outer, int nranks,
                                   const size_t *seg);

#endif /* TCOMM_CUDA_CHECK_H */
