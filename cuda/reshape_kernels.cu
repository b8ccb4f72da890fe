/* SPDX-License-Identifier: BSD-3-Clause */
/* Reshaping kernels along a dim (gather_unpack, scatter_pack, split_pack),
 * one thread
 * per element, on the index arithmetic of cuda/tcomm_kernel_index.h and
 * mpi_kernels/tcomm_reshape_index.h, which the host kernels and tests
 * share. Elements of 1, 2, 4 or 8 bytes move as such; any other size
 * moves as bytes with every length scaled. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "tcomm_cuda.h"
#include "tcomm_cuda_launch.h"
#include "tcomm_kernel_index.h"

namespace {

using tcomm_launch::blocks_for;
using tcomm_launch::kThreads;

/* One rank's block (n = outer * w elements from src) to columns
 * [col, col + w) of the total-wide rows of dst. */
template <typename T>
__global__ void unpack_kernel(const T *__restrict__ src, T *__restrict__ dst,
                              size_t n, size_t col, size_t w, size_t total)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += stride)
        dst[tcomm_kernel_unpack_dst(j, col, w, total)] = src[j];
}

/* Columns [col, col + w) of the total-wide rows of src to one rank's
 * block (n = outer * w elements of dst). */
template <typename T>
__global__ void split_kernel(const T *__restrict__ src, T *__restrict__ dst,
                             size_t n, size_t col, size_t w, size_t total)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += stride)
        dst[j] = src[tcomm_kernel_split_src(j, col, w, total)];
}

template <typename T>
__global__ void pack_kernel(const T *__restrict__ src, T *__restrict__ dst,
                            size_t n, size_t outer, int nranks, size_t chunk)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += stride)
        dst[j] = src[tcomm_kernel_pack_src(j, outer, nranks, chunk)];
}

template <typename T>
int unpack(const void *src, void *dst, size_t outer, int nranks,
           const size_t *seg, size_t scale, cudaStream_t s)
{
    size_t total = 0, col = 0;
    for (int r = 0; r < nranks; r++)
        total += seg[r] * scale;
    for (int r = 0; r < nranks; r++) {
        size_t w = seg[r] * scale, n = outer * w;
        if (n > 0) {
            unpack_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(
                (const T *)src + outer * col, (T *)dst, n, col, w, total);
            cudaError_t rc = cudaGetLastError();
            if (rc != cudaSuccess)
                return (int)rc;
        }
        col += w;
    }
    return (int)cudaSuccess;
}

template <typename T>
int split(const void *src, void *dst, size_t outer, int nranks,
          const size_t *seg, size_t scale, cudaStream_t s)
{
    size_t total = 0, col = 0;
    for (int r = 0; r < nranks; r++)
        total += seg[r] * scale;
    for (int r = 0; r < nranks; r++) {
        size_t w = seg[r] * scale, n = outer * w;
        if (n > 0) {
            split_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(
                (const T *)src, (T *)dst + outer * col, n, col, w, total);
            cudaError_t rc = cudaGetLastError();
            if (rc != cudaSuccess)
                return (int)rc;
        }
        col += w;
    }
    return (int)cudaSuccess;
}

template <typename T>
int pack(const void *src, void *dst, size_t outer, int nranks, size_t chunk,
         cudaStream_t s)
{
    size_t n = outer * (size_t)nranks * chunk;
    if (n == 0)
        return (int)cudaSuccess;
    pack_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(
        (const T *)src, (T *)dst, n, outer, nranks, chunk);
    return (int)cudaGetLastError();
}

} /* namespace */

extern "C" int tcomm_cuda_gather_unpack(const void *src, void *dst,
                                        size_t elsize, size_t outer,
                                        int nranks, const size_t *seg,
                                        void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t scale = tcomm_kernel_scale(elsize);
    switch (tcomm_kernel_word(elsize)) {
    case 2: return unpack<uint16_t>(src, dst, outer, nranks, seg, scale, s);
    case 4: return unpack<uint32_t>(src, dst, outer, nranks, seg, scale, s);
    case 8: return unpack<uint64_t>(src, dst, outer, nranks, seg, scale, s);
    default: return unpack<uint8_t>(src, dst, outer, nranks, seg, scale, s);
    }
}

extern "C" int tcomm_cuda_scatter_pack(const void *src, void *dst,
                                       size_t elsize, size_t outer,
                                       int nranks, size_t chunk,
                                       void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t c = chunk * tcomm_kernel_scale(elsize);
    switch (tcomm_kernel_word(elsize)) {
    case 2: return pack<uint16_t>(src, dst, outer, nranks, c, s);
    case 4: return pack<uint32_t>(src, dst, outer, nranks, c, s);
    case 8: return pack<uint64_t>(src, dst, outer, nranks, c, s);
    default: return pack<uint8_t>(src, dst, outer, nranks, c, s);
    }
}

extern "C" int tcomm_cuda_split_pack(const void *src, void *dst,
                                     size_t elsize, size_t outer, int nranks,
                                     const size_t *seg, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t scale = tcomm_kernel_scale(elsize);
    switch (tcomm_kernel_word(elsize)) {
    case 2: return split<uint16_t>(src, dst, outer, nranks, seg, scale, s);
    case 4: return split<uint32_t>(src, dst, outer, nranks, seg, scale, s);
    case 8: return split<uint64_t>(src, dst, outer, nranks, seg, scale, s);
    default: return split<uint8_t>(src, dst, outer, nranks, seg, scale, s);
    }
}
