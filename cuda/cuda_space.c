/* SPDX-License-Identifier: BSD-3-Clause */
/* The cuda memory space: a graph's device, stream, events, caching
 * allocator and pinned staging buffer, and the classification of a
 * caller's buffer for tcomm_tensor_wrap. */
#include <stdlib.h>

#include "cuda_space.h"
#include "tcomm_cuda_check.h"

tcomm_status_t tcomm_cuda_status(cudaError_t rc, const char *call,
                                 const char *file, int line)
{
    if (rc == cudaSuccess)
        return TCOMM_SUCCESS;
    (void)cudaGetLastError(); /* clear a non-sticky error */
    return tcomm_error(TCOMM_ERR_CUDA,
                       "%s failed: %s (%s) at %s:%d (check the device, the "
                       "driver and the pointers passed)",
                       call, cudaGetErrorString(rc), cudaGetErrorName(rc),
                       file, line);
}

int tcomm_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

tcomm_status_t tcomm_cuda_use(const tcomm_cuda_ctx_t *c)
{
    TCOMM_CUDA_CHECK(cudaSetDevice(c->device));
    return TCOMM_SUCCESS;
}

static void cuda_close(void *ctx)
{
    tcomm_cuda_ctx_t *c = ctx;
    if (!c)
        return;
    if (cudaSetDevice(c->device) == cudaSuccess) {
        if (c->stream)
            cudaStreamSynchronize(c->stream);
        tcomm_cuda_alloc_fini(&c->alloc);
        if (c->staging)
            cudaFreeHost(c->staging);
        for (int i = 0; i < TCOMM_MEMSPACE_SLOTS; i++)
            if (c->events[i])
                cudaEventDestroy(c->events[i]);
        if (c->stream)
            cudaStreamDestroy(c->stream);
    }
    (void)cudaGetLastError();
    free(c);
}

tcomm_status_t tcomm_cuda_space_open(int index, void **ctx)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                           "tcomm_graph_create: no CUDA device is usable "
                           "here (%s; check the driver and "
                           "CUDA_VISIBLE_DEVICES, or use TCOMM_DEVICE_HOST)",
                           rc != cudaSuccess ? cudaGetErrorString(rc)
                                             : "0 devices");
    }
    if (index >= count)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_graph_create: CUDA device %d does not "
                           "exist (this process sees %d: use 0..%d)",
                           index, count, count - 1);
    tcomm_cuda_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_graph_create: out of host memory");
    c->device = index;
    tcomm_status_t st = tcomm_cuda_alloc_init(&c->alloc);
    if (st == TCOMM_SUCCESS)
        st = tcomm_cuda_status(cudaSetDevice(index), "cudaSetDevice",
                               __FILE__, __LINE__);
    if (st == TCOMM_SUCCESS)
        st = tcomm_cuda_status(
            cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags", __FILE__, __LINE__);
    for (int i = 0; i < TCOMM_MEMSPACE_SLOTS && st == TCOMM_SUCCESS; i++)
        st = tcomm_cuda_status(
            cudaEventCreateWithFlags(&c->events[i], cudaEventDisableTiming),
            "cudaEventCreateWithFlags", __FILE__, __LINE__);
    if (st != TCOMM_SUCCESS) {
        cuda_close(c);
        return st;
    }
    *ctx = c;
    return TCOMM_SUCCESS;
}

static tcomm_status_t cuda_alloc(void *ctx, size_t bytes, void **ptr)
{
    tcomm_cuda_ctx_t *c = ctx;
    TCOMM_TRY(tcomm_cuda_use(c));
    return tcomm_cuda_alloc_get(&c->alloc, bytes, ptr);
}

static void cuda_free(void *ctx, void *ptr)
{
    tcomm_cuda_ctx_t *c = ctx;
    tcomm_cuda_alloc_put(&c->alloc, ptr);
}

/* Synchronous copies: queued on the graph's stream (after its work),
 * then waited for. */
static tcomm_status_t copy_sync(tcomm_cuda_ctx_t *c, void *dst,
                                const void *src, size_t bytes)
{
    if (bytes == 0)
        return TCOMM_SUCCESS;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                                     c->stream));
    TCOMM_CUDA_CHECK(cudaStreamSynchronize(c->stream));
    return TCOMM_SUCCESS;
}

static tcomm_status_t cuda_copy(void *ctx, void *dst, const void *src,
                                size_t bytes)
{
    return copy_sync(ctx, dst, src, bytes);
}

static tcomm_status_t cuda_memset0(void *ctx, void *dst, size_t bytes)
{
    tcomm_cuda_ctx_t *c = ctx;
    if (bytes == 0)
        return TCOMM_SUCCESS;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, c->stream));
    TCOMM_CUDA_CHECK(cudaStreamSynchronize(c->stream));
    return TCOMM_SUCCESS;
}

/* tcomm_tensor_wrap: device memory of this graph's device, managed
 * memory and mapped pinned host memory are accepted; pageable host
 * memory and another device's memory are not. */
static tcomm_status_t cuda_register(void *ctx, const void *ptr,
                                    size_t bytes)
{
    tcomm_cuda_ctx_t *c = ctx;
    struct cudaPointerAttributes a;
    TCOMM_TRY(tcomm_cuda_use(c));
    cudaError_t rc = cudaPointerGetAttributes(&a, ptr);
    if (rc == cudaErrorInvalidValue) { /* pre-11 runtimes: unregistered */
        (void)cudaGetLastError();
        a.type = cudaMemoryTypeUnregistered;
    } else if (rc != cudaSuccess) {
        return tcomm_cuda_status(rc, "cudaPointerGetAttributes", __FILE__,
                                 __LINE__);
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:
        if (a.device != c->device)
            return tcomm_error(TCOMM_ERR_INVALID_ARG,
                               "tcomm_tensor_wrap: buffer %p is memory of "
                               "CUDA device %d, but the graph is on device "
                               "%d (wrap it on a graph of device %d)",
                               ptr, a.device, c->device, a.device);
        return TCOMM_SUCCESS;
    case cudaMemoryTypeManaged:
        return TCOMM_SUCCESS;
    case cudaMemoryTypeHost:
        if (a.devicePointer != ptr)
            return tcomm_error(TCOMM_ERR_INVALID_ARG,
                               "tcomm_tensor_wrap: pinned host buffer %p "
                               "has a different device address %p (wrap "
                               "the device address, or allocate it with "
                               "cudaMallocHost)", ptr, a.devicePointer);
        return TCOMM_SUCCESS;
    default:
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_tensor_wrap: buffer %p (%zu bytes) is "
                           "pageable host memory, which CUDA device %d "
                           "cannot reach (wrap it on a TCOMM_DEVICE_HOST "
                           "graph, or allocate it with cudaMalloc or "
                           "cudaMallocHost)", ptr, bytes, c->device);
    }
}

static tcomm_status_t cuda_staging(void *ctx, size_t bytes, void **ptr)
{
    tcomm_cuda_ctx_t *c = ctx;
    if (bytes > c->staging_bytes) {
        TCOMM_TRY(tcomm_cuda_use(c));
        /* queued copies may still use the old buffer */
        TCOMM_CUDA_CHECK(cudaStreamSynchronize(c->stream));
        if (c->staging)
            cudaFreeHost(c->staging);
        c->staging = NULL;
        c->staging_bytes = 0;
        cudaError_t rc = cudaHostAlloc(&c->staging, bytes,
                                       cudaHostAllocPortable);
        if (rc != cudaSuccess) {
            c->staging = NULL;
            return tcomm_cuda_status(rc, "cudaHostAlloc (staging buffer; "
                                     "lower TCOMM_STAGING_CHUNK)",
                                     __FILE__, __LINE__);
        }
        c->staging_bytes = bytes;
    }
    *ptr = c->staging;
    return TCOMM_SUCCESS;
}

static tcomm_status_t cuda_record(void *ctx, int slot)
{
    tcomm_cuda_ctx_t *c = ctx;
    TCOMM_CUDA_CHECK(cudaEventRecord(c->events[slot], c->stream));
    return TCOMM_SUCCESS;
}

static tcomm_status_t cuda_wait(void *ctx, int slot)
{
    tcomm_cuda_ctx_t *c = ctx;
    TCOMM_CUDA_CHECK(cudaEventSynchronize(c->events[slot]));
    return TCOMM_SUCCESS;
}

static tcomm_status_t cuda_synchronize(void *ctx)
{
    tcomm_cuda_ctx_t *c = ctx;
    TCOMM_CUDA_CHECK(cudaStreamSynchronize(c->stream));
    return TCOMM_SUCCESS;
}

const tcomm_memspace_t tcomm_memspace_cuda = {
    .name = "cuda",
    .is_host = 0,
    .mpi_direct = 1,
    .open = tcomm_cuda_space_open,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .to_host = cuda_copy,
    .from_host = cuda_copy,
    .copy = cuda_copy,
    .memset0 = cuda_memset0,
    .register_buffer = cuda_register,
    .close = cuda_close,
    .staging = cuda_staging,
    .to_host_async = tcomm_cuda_copy_async,
    .from_host_async = tcomm_cuda_copy_async,
    .copy_async = tcomm_cuda_copy_async,
    .reduce = tcomm_cuda_reduce_op,
    .divide = tcomm_cuda_divide_op,
    .gather_unpack = tcomm_cuda_unpack_op,
    .scatter_pack = tcomm_cuda_pack_op,
    .split_pack = tcomm_cuda_split_op,
    .record = cuda_record,
    .wait = cuda_wait,
    .synchronize = cuda_synchronize,
};
