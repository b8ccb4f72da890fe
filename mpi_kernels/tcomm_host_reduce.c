/* SPDX-License-Identifier: BSD-3-Clause */
/* Element-wise host arithmetic: the reduction fold step, AVG's division
 * and tensor addition, for every dtype.
 *
 * Vectorization (gcc 12.2, x86-64 SSE2 baseline; this file is built with
 * -ftree-vectorize -fvect-cost-model=dynamic, see mpi_kernels/local.mk,
 * because -O2's "very cheap" cost model refuses loops that need an
 * epilogue or a runtime alias check, i.e. all of these): checked with
 * -fopt-info-vec-optimized, every loop below vectorizes ("loop
 * vectorized using 16 byte vectors", versioned for alias where acc and x
 * may overlap): SUM/MIN/MAX of all integer dtypes, PROD of u8/i8/i32/u32
 * (i64 PROD has no SSE2 multiply and stays scalar unless built for
 * AVX-512), SUM/PROD/MIN/MAX of f32/f64 including the NaN-propagating
 * MIN/MAX (cmpunord + blend), f16/bf16 for all ops (the branch-free
 * conversions of tcomm_half.h: integer shifts, compares and selects plus
 * one f32 add), divide and add. The f16/bf16 SUM runs at about memory
 * speed; bench numbers are in the commit message and the report.
 */
#include <stdint.h>

#include "tcomm_half.h"
#include "tcomm_host_kernels.h"

/* Integer ops wrap around like C unsigned arithmetic: signed dtypes are
 * combined in their unsigned type and converted back (gcc: modulo). */
#define TCOMM_DEF_INT_OPS(T, UT, pfx)                                         \
    static inline T pfx##_sum(T u, T v) { return (T)((UT)u + (UT)v); }        \
    static inline T pfx##_prod(T u, T v) { return (T)((UT)((UT)u * (UT)v)); } \
    static inline T pfx##_min(T u, T v) { return u < v ? u : v; }             \
    static inline T pfx##_max(T u, T v) { return u > v ? u : v; }

TCOMM_DEF_INT_OPS(uint8_t, uint8_t, u8)
TCOMM_DEF_INT_OPS(int8_t, uint8_t, i8)
TCOMM_DEF_INT_OPS(int32_t, uint32_t, i32)
TCOMM_DEF_INT_OPS(uint32_t, uint32_t, u32)
TCOMM_DEF_INT_OPS(int64_t, uint64_t, i64)

/* Floating MIN/MAX propagate NaN: u if u < v or u is NaN, else v (which
 * is then NaN if v is). Bitwise | keeps the condition branch-free. */
#define TCOMM_DEF_FLT_OPS(T, pfx)                                   \
    static inline T pfx##_sum(T u, T v) { return u + v; }           \
    static inline T pfx##_prod(T u, T v) { return u * v; }          \
    static inline T pfx##_min(T u, T v)                             \
    {                                                               \
        return ((u < v) | (u != u)) ? u : v;                        \
    }                                                               \
    static inline T pfx##_max(T u, T v)                             \
    {                                                               \
        return ((u > v) | (u != u)) ? u : v;                        \
    }

TCOMM_DEF_FLT_OPS(float, f32)
TCOMM_DEF_FLT_OPS(double, f64)

/* f16/bf16 combine in f32 and round to nearest even; MIN/MAX return one
 * of the operands' bits unchanged. */
#define TCOMM_DEF_HALF_OPS(pfx, TO, FROM)                               \
    static inline uint16_t pfx##_sum(uint16_t u, uint16_t v)            \
    {                                                                   \
        return FROM(TO(u) + TO(v));                                     \
    }                                                                   \
    static inline uint16_t pfx##_prod(uint16_t u, uint16_t v)           \
    {                                                                   \
        return FROM(TO(u) * TO(v));                                     \
    }                                                                   \
    static inline uint16_t pfx##_min(uint16_t u, uint16_t v)            \
    {                                                                   \
        float a = TO(u), b = TO(v);                                     \
        return ((a < b) | (a != a)) ? u : v;                            \
    }                                                                   \
    static inline uint16_t pfx##_max(uint16_t u, uint16_t v)            \
    {                                                                   \
        float a = TO(u), b = TO(v);                                     \
        return ((a > b) | (a != a)) ? u : v;                            \
    }

TCOMM_DEF_HALF_OPS(f16, tcomm_f16_to_f32, tcomm_f32_to_f16)
TCOMM_DEF_HALF_OPS(bf16, tcomm_bf16_to_f32, tcomm_f32_to_bf16)

/* The op switch outside the loops, so that each loop body is a single
 * inline expression: dst[i] = op(a[i], b[i]). */
#define TCOMM_OP_LOOPS(pfx, op, dst, a, b, n)                             \
    switch (op) {                                                         \
    case TCOMM_SUM:                                                       \
    case TCOMM_AVG:                                                       \
        for (size_t i = 0; i < (n); i++)                                  \
            dst[i] = pfx##_sum(a[i], b[i]);                               \
        break;                                                            \
    case TCOMM_PROD:                                                      \
        for (size_t i = 0; i < (n); i++)                                  \
            dst[i] = pfx##_prod(a[i], b[i]);                              \
        break;                                                            \
    case TCOMM_MIN:                                                       \
        for (size_t i = 0; i < (n); i++)                                  \
            dst[i] = pfx##_min(a[i], b[i]);                               \
        break;                                                            \
    case TCOMM_MAX:                                                       \
        for (size_t i = 0; i < (n); i++)                                  \
            dst[i] = pfx##_max(a[i], b[i]);                               \
        break;                                                            \
    }

/* Each loop is built twice where the compiler can pick at run time
 * (ifunc): for the SSE2 baseline and for AVX2, whose 32-byte loads and
 * stores double what a core moves per cycle between its caches and
 * registers. The same IEEE operation on each element either way (no
 * FMA: nothing to contract), so the results are bitwise the same. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define TCOMM_KERNEL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TCOMM_KERNEL_CLONES
#endif

/* One function per dtype. reduce's acc is one pointer (not an out and an
 * in that happen to be equal) so that the vectorizer knows the in-place
 * update has distance 0; reduce3's out is restrict (never an input). */
#define TCOMM_DEF_REDUCE(T, pfx)                                          \
    TCOMM_KERNEL_CLONES                                                   \
    static void reduce_##pfx(tcomm_op_t op, T *acc, const T *x, size_t n) \
    {                                                                     \
        TCOMM_OP_LOOPS(pfx, op, acc, acc, x, n)                           \
    }                                                                     \
    TCOMM_KERNEL_CLONES                                                   \
    static void add_##pfx(const T *a, const T *b, T *out, size_t n)       \
    {                                                                     \
        for (size_t i = 0; i < n; i++)                                    \
            out[i] = pfx##_sum(a[i], b[i]);                               \
    }                                                                     \
    TCOMM_KERNEL_CLONES                                                   \
    static void reduce3_##pfx(tcomm_op_t op, T *restrict out,            \
                              const T *a, const T *b, size_t n)           \
    {                                                                     \
        TCOMM_OP_LOOPS(pfx, op, out, a, b, n)                             \
    }

TCOMM_DEF_REDUCE(uint8_t, u8)
TCOMM_DEF_REDUCE(int8_t, i8)
TCOMM_DEF_REDUCE(int32_t, i32)
TCOMM_DEF_REDUCE(uint32_t, u32)
TCOMM_DEF_REDUCE(int64_t, i64)
TCOMM_DEF_REDUCE(uint16_t, f16)
TCOMM_DEF_REDUCE(uint16_t, bf16)
TCOMM_DEF_REDUCE(float, f32)
TCOMM_DEF_REDUCE(double, f64)

void tcomm_host_reduce(tcomm_dtype_t dtype, tcomm_op_t op, void *acc,
                       const void *x, size_t n)
{
    size_t k = 0;

    if (dtype == TCOMM_F16 || dtype == TCOMM_BF16) {
        k = tcomm_host_half_fast(dtype, op, acc, x, acc, n);
        acc = (uint16_t *)acc + k;
        x = (const uint16_t *)x + k;
        n -= k;
    }
    switch (dtype) {
    case TCOMM_U8: reduce_u8(op, acc, x, n); break;
    case TCOMM_I8: reduce_i8(op, acc, x, n); break;
    case TCOMM_I32: reduce_i32(op, acc, x, n); break;
    case TCOMM_U32: reduce_u32(op, acc, x, n); break;
    case TCOMM_I64: reduce_i64(op, acc, x, n); break;
    case TCOMM_F16: reduce_f16(op, acc, x, n); break;
    case TCOMM_BF16: reduce_bf16(op, acc, x, n); break;
    case TCOMM_F32: reduce_f32(op, acc, x, n); break;
    case TCOMM_F64: reduce_f64(op, acc, x, n); break;
    }
}

void tcomm_host_add(tcomm_dtype_t dtype, const void *a, const void *b,
                    void *out, size_t n)
{
    size_t k = 0;

    if (dtype == TCOMM_F16 || dtype == TCOMM_BF16) {
        k = tcomm_host_half_fast(dtype, TCOMM_SUM, a, b, out, n);
        a = (const uint16_t *)a + k;
        b = (const uint16_t *)b + k;
        out = (uint16_t *)out + k;
        n -= k;
    }
    switch (dtype) {
    case TCOMM_U8: add_u8(a, b, out, n); break;
    case TCOMM_I8: add_i8(a, b, out, n); break;
    case TCOMM_I32: add_i32(a, b, out, n); break;
    case TCOMM_U32: add_u32(a, b, out, n); break;
    case TCOMM_I64: add_i64(a, b, out, n); break;
    case TCOMM_F16: add_f16(a, b, out, n); break;
    case TCOMM_BF16: add_bf16(a, b, out, n); break;
    case TCOMM_F32: add_f32(a, b, out, n); break;
    case TCOMM_F64: add_f64(a, b, out, n); break;
    }
}

void tcomm_host_reduce3(tcomm_dtype_t dtype, tcomm_op_t op, void *out,
                        const void *a, const void *b, size_t n)
{
    size_t k = 0;

    if (dtype == TCOMM_F16 || dtype == TCOMM_BF16) {
        k = tcomm_host_half_fast(dtype, op, a, b, out, n);
        a = (const uint16_t *)a + k;
        b = (const uint16_t *)b + k;
        out = (uint16_t *)out + k;
        n -= k;
    }
    switch (dtype) {
    case TCOMM_U8: reduce3_u8(op, out, a, b, n); break;
    case TCOMM_I8: reduce3_i8(op, out, a, b, n); break;
    case TCOMM_I32: reduce3_i32(op, out, a, b, n); break;
    case TCOMM_U32: reduce3_u32(op, out, a, b, n); break;
    case TCOMM_I64: reduce3_i64(op, out, a, b, n); break;
    case TCOMM_F16: reduce3_f16(op, out, a, b, n); break;
    case TCOMM_BF16: reduce3_bf16(op, out, a, b, n); break;
    case TCOMM_F32: reduce3_f32(op, out, a, b, n); break;
    case TCOMM_F64: reduce3_f64(op, out, a, b, n); break;
    }
}

/* Division is correctly rounded for every floating dtype: f32 and f64
 * divide in their own precision; f16/bf16 divide in f32 and round once
 * more, which is exact rounding because f32 carries more than
 * 2 * 11 + 2 bits. Integer dtypes are left alone (AVG is floating only). */
void tcomm_host_divide(tcomm_dtype_t dtype, void *buf, size_t n,
                       double divisor)
{
    size_t i;
    float fd = (float)divisor;

    switch (dtype) {
    case TCOMM_F32: {
        float *p = buf;
        for (i = 0; i < n; i++)
            p[i] = p[i] / fd;
        break;
    }
    case TCOMM_F64: {
        double *p = buf;
        for (i = 0; i < n; i++)
            p[i] = p[i] / divisor;
        break;
    }
    case TCOMM_F16: {
        uint16_t *p = buf;
        for (i = 0; i < n; i++)
            p[i] = tcomm_f32_to_f16(tcomm_f16_to_f32(p[i]) / fd);
        break;
    }
    case TCOMM_BF16: {
        uint16_t *p = buf;
        for (i = 0; i < n; i++)
            p[i] = tcomm_f32_to_bf16(tcomm_bf16_to_f32(p[i]) / fd);
        break;
    }
    default:
        break;
    }
}
