/* SPDX-License-Identifier: BSD-3-Clause */
/* The stream-ordered operations of the cuda space: asynchronous copies
 * and the kernel launches (cuda/reduce_kernels.cu,
 * cuda/reshape_kernels.cu), all on the graph's stream. */
#include "tcomm_cuda.h"
#include "tcomm_cuda_check.h"

/* A launcher's int result is a cudaError_t. */
#define TCOMM_LAUNCH_CHECK(call)                                            \
    TCOMM_TRY(tcomm_cuda_status((cudaError_t)(call), #call, __FILE__,       \
                                __LINE__))

tcomm_status_t tcomm_cuda_copy_async(void *ctx, void *dst, const void *src,
                                     size_t bytes)
{
    tcomm_cuda_ctx_t *c = ctx;
    if (bytes == 0)
        return TCOMM_SUCCESS;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                                     c->stream));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_cuda_reduce_op(void *ctx, tcomm_dtype_t dtype,
                                    tcomm_op_t op, void *acc, const void *x,
                                    size_t n)
{
    tcomm_cuda_ctx_t *c = ctx;
    if (n == 0)
        return TCOMM_SUCCESS;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_LAUNCH_CHECK(tcomm_cuda_reduce((int)dtype, (int)op, acc, x, n,
                                         c->stream));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_cuda_divide_op(void *ctx, tcomm_dtype_t dtype,
                                    void *buf, size_t n, double divisor)
{
    tcomm_cuda_ctx_t *c = ctx;
    if (n == 0)
        return TCOMM_SUCCESS;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_LAUNCH_CHECK(tcomm_cuda_divide((int)dtype, buf, n, divisor,
                                         c->stream));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_cuda_unpack_op(void *ctx, const void *src, void *dst,
                                    size_t elsize, size_t outer, int nranks,
                                    const size_t *seg)
{
    tcomm_cuda_ctx_t *c = ctx;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_LAUNCH_CHECK(tcomm_cuda_gather_unpack(src, dst, elsize, outer,
                                                nranks, seg, c->stream));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_cuda_pack_op(void *ctx, const void *src, void *dst,
                                  size_t elsize, size_t outer, int nranks,
                                  size_t chunk)
{
    tcomm_cuda_ctx_t *c = ctx;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_LAUNCH_CHECK(tcomm_cuda_scatter_pack(src, dst, elsize, outer,
                                               nranks, chunk, c->stream));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_cuda_split_op(void *ctx, const void *src, void *dst,
                                   size_t elsize, size_t outer, int nranks,
                                   const size_t *seg)
{
    tcomm_cuda_ctx_t *c = ctx;
    TCOMM_TRY(tcomm_cuda_use(c));
    TCOMM_LAUNCH_CHECK(tcomm_cuda_split_pack(src, dst, elsize, outer, nranks,
                                             seg, c->stream));
    return TCOMM_SUCCESS;
}
