/* SPDX-License-Identifier: BSD-3-Clause */
/* Element-wise reduction kernels: acc[i] = acc[i] op x[i] for the nine
 * dtypes and five ops (AVG folds as SUM), and AVG's division. The element
 * step is the __host__ __device__ code of tcomm_reduce_elem.h, which the
 * host tests check bit for bit against the host kernels. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "tcomm.h"
#include "tcomm_cuda.h"
#include "tcomm_cuda_launch.h"
#include "tcomm_reduce_elem.h"

namespace {

using tcomm_launch::blocks_for;
using tcomm_launch::kThreads;

template <typename T, T (*F)(T, T)>
__global__ void reduce_kernel(T *__restrict__ acc, const T *__restrict__ x,
                              size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        acc[i] = F(acc[i], x[i]);
}

template <typename T, typename D, T (*F)(T, D)>
__global__ void divide_kernel(T *buf, size_t n, D d)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        buf[i] = F(buf[i], d);
}

template <typename T, T (*F)(T, T)>
int launch(void *acc, const void *x, size_t n, cudaStream_t s)
{
    reduce_kernel<T, F><<<blocks_for(n), kThreads, 0, s>>>(
        (T *)acc, (const T *)x, n);
    return (int)cudaGetLastError();
}

} /* namespace */

#define TCOMM_REDUCE_CASE(DT, T, pfx)                                       \
    case DT:                                                                \
        switch (op) {                                                       \
        case TCOMM_SUM:                                                     \
        case TCOMM_AVG:                                                     \
            return launch<T, tcomm_elem_##pfx##_sum>(acc, x, n, s);         \
        case TCOMM_PROD:                                                    \
            return launch<T, tcomm_elem_##pfx##_prod>(acc, x, n, s);        \
        case TCOMM_MIN:                                                     \
            return launch<T, tcomm_elem_##pfx##_min>(acc, x, n, s);         \
        case TCOMM_MAX:                                                     \
            return launch<T, tcomm_elem_##pfx##_max>(acc, x, n, s);         \
        }                                                                   \
        break;

extern "C" int tcomm_cuda_reduce(int dtype, int op, void *acc, const void *x,
                                 size_t n, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (n == 0)
        return (int)cudaSuccess;
    switch (dtype) {
        TCOMM_REDUCE_CASE(TCOMM_U8, uint8_t, u8)
        TCOMM_REDUCE_CASE(TCOMM_I8, int8_t, i8)
        TCOMM_REDUCE_CASE(TCOMM_I32, int32_t, i32)
        TCOMM_REDUCE_CASE(TCOMM_U32, uint32_t, u32)
        TCOMM_REDUCE_CASE(TCOMM_I64, int64_t, i64)
        TCOMM_REDUCE_CASE(TCOMM_F16, uint16_t, f16)
        TCOMM_REDUCE_CASE(TCOMM_BF16, uint16_t, bf16)
        TCOMM_REDUCE_CASE(TCOMM_F32, float, f32)
        TCOMM_REDUCE_CASE(TCOMM_F64, double, f64)
    }
    return (int)cudaErrorInvalidValue;
}

extern "C" int tcomm_cuda_divide(int dtype, void *buf, size_t n,
                                 double divisor, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    unsigned b = blocks_for(n);
    float fd = (float)divisor;
    if (n == 0)
        return (int)cudaSuccess;
    switch (dtype) {
    case TCOMM_F32:
        divide_kernel<float, float, tcomm_elem_f32_div>
            <<<b, kThreads, 0, s>>>((float *)buf, n, fd);
        break;
    case TCOMM_F64:
        divide_kernel<double, double, tcomm_elem_f64_div>
            <<<b, kThreads, 0, s>>>((double *)buf, n, divisor);
        break;
    case TCOMM_F16:
        divide_kernel<uint16_t, float, tcomm_elem_f16_div>
            <<<b, kThreads, 0, s>>>((uint16_t *)buf, n, fd);
        break;
    case TCOMM_BF16:
        divide_kernel<uint16_t, float, tcomm_elem_bf16_div>
            <<<b, kThreads, 0, s>>>((uint16_t *)buf, n, fd);
        break;
    default:
        return (int)cudaSuccess; /* integers: AVG is floating only */
    }
    return (int)cudaGetLastError();
}
