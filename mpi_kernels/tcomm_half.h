/* SPDX-License-Identifier: BSD-3-Clause */
/* f16 (IEEE binary16) and bf16 (bfloat16) <-> f32 conversions, shared by
 * the host kernels and the CUDA kernels (cuda/ includes this header).
 *
 * All conversions are branch-free: every case (normal, subnormal, zero,
 * Inf, NaN) is computed and the right one selected, so that a loop over
 * them vectorizes (gcc 12, SSE2 baseline, -ftree-vectorize). f32 -> f16/
 * bf16 rounds to nearest, ties to even; overflow goes to Inf; a NaN stays
 * a quiet NaN of the same sign. The only floating-point operations used
 * work on normal f32 numbers, so the results do not change under
 * flush-to-zero (nvcc -ftz=true) except for f32 subnormal inputs, which
 * round to zero in f16 anyway.
 *
 * The f16 conversions follow the well-known "magic number" formulation of
 * F. Giesen (public domain, "float_to_half_fast3_rtne" and
 * "half_to_float"); test/check_kernels.c checks them against a slow
 * frexp/ldexp reference over all 65536 half values and the rounding cases.
 */
#ifndef TCOMM_HALF_H
#define TCOMM_HALF_H

#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <string.h>
#endif

#include "tcomm_hd.h"

/* Bit casts. */
TCOMM_HD static inline uint32_t tcomm_f32_as_u32(float f)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

TCOMM_HD static inline float tcomm_u32_as_f32(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* Branch-free select: c ? a : b for c in {0, 1}. Written with masks
 * because gcc will not if-convert a ?: whose arms contain floating-point
 * arithmetic (it may trap), which would stop the loops vectorizing. */
TCOMM_HD static inline uint32_t tcomm_sel32(uint32_t c, uint32_t a,
                                           uint32_t b)
{
    uint32_t m = 0u - c;
    return (a & m) | (b & ~m);
}

/* f16 -> f32, exact. */
TCOMM_HD static inline float tcomm_f16_to_f32(uint16_t h)
{
    uint32_t o = (uint32_t)(h & 0x7fffu) << 13; /* exponent + mantissa */
    uint32_t e = o & 0x0f800000u;               /* the f16 exponent bits */
    uint32_t nrm = o + 0x38000000u;             /* rebias 15 -> 127 */
    uint32_t inf = nrm + 0x38000000u;           /* exponent 31 -> 255 */
    /* Subnormal: m * 2^-24 = (2^-14 + m * 2^-24) - 2^-14, both normal. */
    float d = tcomm_u32_as_f32(o + 0x38800000u) - tcomm_u32_as_f32(0x38800000u);
    uint32_t sub = tcomm_f32_as_u32(d);
    uint32_t r = tcomm_sel32(e == 0x0f800000u, inf,
                             tcomm_sel32(e == 0, sub, nrm));
    return tcomm_u32_as_f32(r | (uint32_t)(h & 0x8000u) << 16);
}

/* f32 -> f16, round to nearest even. */
TCOMM_HD static inline uint16_t tcomm_f32_to_f16(float f)
{
    uint32_t u = tcomm_f32_as_u32(f);
    uint32_t sign = u & 0x80000000u;
    uint32_t a = u ^ sign;                      /* |f| */
    /* |f| >= 65536 (or Inf/NaN): Inf, or a quiet NaN. */
    uint32_t big = a > 0x7f800000u ? 0x7e00u : 0x7c00u;
    /* |f| < 2^-14: adding 0.5 puts the f16 subnormal unit (2^-24) at the
     * last f32 mantissa bit; the FPU rounds to nearest even. */
    float s = tcomm_u32_as_f32(a) + tcomm_u32_as_f32(0x3f000000u);
    uint32_t sub = tcomm_f32_as_u32(s) - 0x3f000000u;
    /* Normal: rebias 127 -> 15, add 0xfff plus the kept lsb (ties to even)
     * and drop 13 bits; a carry into the exponent is the right answer,
     * up to Inf for |f| >= 65520. */
    uint32_t odd = (a >> 13) & 1u;
    uint32_t nrm = (a + 0xc8000fffu + odd) >> 13;
    uint32_t r = tcomm_sel32(a >= 0x47800000u, big,
                             tcomm_sel32(a < 0x38800000u, sub, nrm));
    return (uint16_t)(r | sign >> 16);
}

/* bf16 -> f32, exact. */
TCOMM_HD static inline float tcomm_bf16_to_f32(uint16_t b)
{
    return tcomm_u32_as_f32((uint32_t)b << 16);
}

/* f32 -> bf16, round to nearest even; NaN stays NaN (quieted). */
TCOMM_HD static inline uint16_t tcomm_f32_to_bf16(float f)
{
    uint32_t u = tcomm_f32_as_u32(f);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t q = (u >> 16) | 0x40u;
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? q : r);
}

/* NaN tests on the bits (no float compare needed). */
TCOMM_HD static inline int tcomm_f16_is_nan(uint16_t h)
{
    return (h & 0x7fffu) > 0x7c00u;
}

TCOMM_HD static inline int tcomm_bf16_is_nan(uint16_t b)
{
    return (b & 0x7fffu) > 0x7f80u;
}

#endif /* TCOMM_HALF_H */
