/* SPDX-License-Identifier: BSD-3-Clause */
/* The element step of the CUDA reduction kernels, as __host__ __device__
 * helpers so that test/check_device_kernels.c compiles the very same code
 * on the host and checks it bit for bit against tcomm_host_reduce and
 * tcomm_host_divide (mpi_kernels/tcomm_host_reduce.c):
 *
 * - integers wrap like C unsigned arithmetic;
 * - float MIN/MAX propagate NaN: u if u < v or u is NaN, else v;
 * - f16/bf16 combine in f32 and round to nearest even (tcomm_half.h);
 *   MIN/MAX return one operand's bits unchanged;
 * - AVG folds as SUM; division is f32 for f32/f16/bf16, f64 for f64.
 *
 * Plain C (no CUDA header) so that host tests include it. */
#ifndef TCOMM_REDUCE_ELEM_H
#define TCOMM_REDUCE_ELEM_H

#include <stdint.h>

#include "tcomm_half.h"

#define TCOMM_ELEM_INT_OPS(T, UT, pfx)                                      \
    TCOMM_HD static inline T tcomm_elem_##pfx##_sum(T u, T v)               \
    {                                                                       \
        return (T)((UT)u + (UT)v);                                          \
    }                                                                       \
    TCOMM_HD static inline T tcomm_elem_##pfx##_prod(T u, T v)              \
    {                                                                       \
        return (T)((UT)((UT)u * (UT)v));                                    \
    }                                                                       \
    TCOMM_HD static inline T tcomm_elem_##pfx##_min(T u, T v)               \
    {                                                                       \
        return u < v ? u : v;                                               \
    }                                                                       \
    TCOMM_HD static inline T tcomm_elem_##pfx##_max(T u, T v)               \
    {                                                                       \
        return u > v ? u : v;                                               \
    }

TCOMM_ELEM_INT_OPS(uint8_t, uint8_t, u8)
TCOMM_ELEM_INT_OPS(int8_t, uint8_t, i8)
TCOMM_ELEM_INT_OPS(int32_t, uint32_t, i32)
TCOMM_ELEM_INT_OPS(uint32_t, uint32_t, u32)
TCOMM_ELEM_INT_OPS(int64_t, uint64_t, i64)

#define TCOMM_ELEM_FLT_OPS(T, pfx)                                          \
    TCOMM_HD static inline T tcomm_elem_##pfx##_sum(T u, T v)               \
    {                                                                       \
        return u + v;                                                       \
    }                                                                       \
    TCOMM_HD static inline T tcomm_elem_##pfx##_prod(T u, T v)              \
    {                                                                       \
        return u * v;                                                       \
    }                                                                       \
    TCOMM_HD static inline T tcomm_elem_##pfx##_min(T u, T v)               \
    {                                                                       \
        return ((u < v) | (u != u)) ? u : v;                                \
    }                                                                       \
    TCOMM_HD static inline T tcomm_elem_##pfx##_max(T u, T v)               \
    {                                                                       \
        return ((u > v) | (u != u)) ? u : v;                                \
    }

TCOMM_ELEM_FLT_OPS(float, f32)
TCOMM_ELEM_FLT_OPS(double, f64)

#define TCOMM_ELEM_HALF_OPS(pfx, TO, FROM)                                  \
    TCOMM_HD static inline uint16_t tcomm_elem_##pfx##_sum(uint16_t u,      \
                                                           uint16_t v)      \
    {                                                                       \
        return FROM(TO(u) + TO(v));                                         \
    }                                                                       \
    TCOMM_HD static inline uint16_t tcomm_elem_##pfx##_prod(uint16_t u,     \
                                                            uint16_t v)     \
    {                                                                       \
        return FROM(TO(u) * TO(v));                                         \
    }                                                                       \
    TCOMM_HD static inline uint16_t tcomm_elem_##pfx##_min(uint16_t u,      \
                                                           uint16_t v)      \
    {                                                                       \
        float a = TO(u), b = TO(v);                                         \
        return ((a < b) | (a != a)) ? u : v;                                \
    }                                                                       \
    TCOMM_HD static inline uint16_t tcomm_elem_##pfx##_max(uint16_t u,      \
                                                           uint16_t v)      \
    {                                                                       \
        float a = TO(u), b = TO(v);                                         \
        return ((a > b) | (a != a)) ? u : v;                                \
    }

TCOMM_ELEM_HALF_OPS(f16, tcomm_f16_to_f32, tcomm_f32_to_f16)
TCOMM_ELEM_HALF_OPS(bf16, tcomm_bf16_to_f32, tcomm_f32_to_bf16)

/* AVG's final step, x / divisor. */
TCOMM_HD static inline float tcomm_elem_f32_div(float x, float d)
{
    return x / d;
}
TCOMM_HD static inline double tcomm_elem_f64_div(double x, double d)
{
    return x / d;
}
TCOMM_HD static inline uint16_t tcomm_elem_f16_div(uint16_t x, float d)
{
    return tcomm_f32_to_f16(tcomm_f16_to_f32(x) / d);
}
TCOMM_HD static inline uint16_t tcomm_elem_bf16_div(uint16_t x, float d)
{
    return tcomm_f32_to_bf16(tcomm_bf16_to_f32(x) / d);
}

#endif /* TCOMM_REDUCE_ELEM_H */
