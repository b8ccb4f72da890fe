/* SPDX-License-Identifier: BSD-3-Clause */
/* f16/bf16 fold steps for x86-64 CPUs with AVX2 and F16C, chosen at run
 * time (tcomm_host_half_fast() below; the build needs no -m flag).
 *
 * Why: the portable branch-free conversions of tcomm_half.h vectorize,
 * but cost some 20 vector instructions per conversion, so the portable
 * f16 SUM is compute bound (16 MiB: ~22 ms with SSE2, ~10 ms with AVX2,
 * against ~2 ms for the f32 SUM of the same bytes). F16C converts 8
 * halves in one instruction (vcvtps2ph with imm 0 rounds to nearest
 * even, Inf on overflow, keeps subnormals, quiets NaN) and the bf16
 * rounding takes a few AVX2 integer instructions (below), which brings
 * both to memory speed or near it.
 *
 * Results equal the portable path bit for bit, except the payload of a
 * NaN result (both give a quiet NaN of the right sign; of two NaN
 * operands, which one survives is the compiler's choice of operand
 * order, as IEEE 754 leaves it open). */
#include <stdatomic.h>
#include <stdint.h>

#include "tcomm_half.h"
#include "tcomm_host_kernels.h"
#include "tcomm_test_hooks.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(TCOMM_NO_X86_KERNELS)
#include <cpuid.h>
#include <immintrin.h>

#define TCOMM_AVX2 __attribute__((target("avx2,f16c,fma")))

TCOMM_AVX2 static inline __m256 ld_f16(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

TCOMM_AVX2 static inline void st_f16(uint16_t *p, __m256 v)
{
    _mm_storeu_si128((__m128i *)p,
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

TCOMM_AVX2 static inline __m256 ld_bf16(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

/* Round to nearest even (u + 0x7fff + lsb) >> 16; NaN -> (u >> 16) | 0x40. */
TCOMM_AVX2 static inline void st_bf16(uint16_t *p, __m256 v)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i hi = _mm256_srli_epi32(u, 16);
    __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(
                                        lsb, _mm256_set1_epi32(0x7fff)));
    r = _mm256_srli_epi32(r, 16);
    __m256i q = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    r = _mm256_blendv_epi8(r, q, nan);
    /* 8 x u32 (all <= 0xffff) -> 8 x u16 in order */
    __m256i pk = _mm256_packus_epi32(r, r);
    pk = _mm256_permute4x64_epi64(pk, 0x08);
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(pk));
}

/* NaN-propagating min/max: a if (a op b) or a is NaN, else b. */
TCOMM_AVX2 static inline __m256 vmin_nan(__m256 a, __m256 b)
{
    __m256 c = _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ),
                            _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
    return _mm256_blendv_ps(b, a, c);
}

TCOMM_AVX2 static inline __m256 vmax_nan(__m256 a, __m256 b)
{
    __m256 c = _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ),
                            _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
    return _mm256_blendv_ps(b, a, c);
}

/* out[i] = a[i] op b[i] for i < n rounded down to a multiple of 8; the
 * op switch is hoisted by the compiler (op is loop invariant). SUM, the
 * allreduce's op, is unrolled: f16 of 64 KiB 3.3 -> 2.8 us here (the
 * conversions' latency, not their count, bounds the simple loop). */
#define TCOMM_HALF_LOOP(LD, ST)                                      \
    do {                                                             \
        switch (op) {                                                \
        case TCOMM_PROD:                                             \
            for (i = 0; i + 8 <= n; i += 8)                          \
                ST(out + i, _mm256_mul_ps(LD(a + i), LD(b + i)));    \
            break;                                                   \
        case TCOMM_MIN:                                              \
            for (i = 0; i + 8 <= n; i += 8)                          \
                ST(out + i, vmin_nan(LD(a + i), LD(b + i)));         \
            break;                                                   \
        case TCOMM_MAX:                                              \
            for (i = 0; i + 8 <= n; i += 8)                          \
                ST(out + i, vmax_nan(LD(a + i), LD(b + i)));         \
            break;                                                   \
        default:                                                     \
            _Pragma("GCC unroll 4") for (i = 0; i + 8 <= n; i += 8)  \
                ST(out + i, _mm256_add_ps(LD(a + i), LD(b + i)));    \
            break;                                                   \
        }                                                            \
    } while (0)

/* bf16 in blocks of 16: a 256-bit load's even elements become floats by
 * a shift and its odd ones by a mask (bf16 is the top half of an f32),
 * and the two sums go back in order without widening or packing
 * shuffles, which matters for the in-cache messages of an allreduce.
 *
 * Rounding in 16-bit lanes: H holds each result's top half (the
 * truncated bf16) and L its bottom half, both in output order (two word
 * blends). Round to nearest even adds 1 to H when L + lsb(H) > 0x8000;
 * as signed words that is (L ^ 0x8000) + lsb > 0, with a saturating add
 * so that L = 0xffff stays positive. 9 instructions for 16 results
 * where a 32-bit (u + 0x7fff + lsb) >> 16 on each half and a merge take
 * 10; with no NaN test either, SUM of 16,384 elements in cache went
 * from 2.4 to 1.6-1.8 us.
 *
 * SUM and PROD need no NaN test: an x86 add or multiply returns a quiet
 * NaN whose low 16 bits are those of a NaN operand or of the default
 * NaN, all zero here, so L = 0 and the rounding leaves the quiet NaN
 * as it is (the portable path gives the same bits). MIN and MAX pass an
 * operand through, which may be a signaling NaN: a block holding a NaN
 * is redone by the 8-wide steps, which quiet it. */
TCOMM_AVX2 static inline __m256i bf16_merge_rounded(__m256 ev, __m256 od)
{
    __m256i e = _mm256_castps_si256(ev), o = _mm256_castps_si256(od);
    __m256i h = _mm256_blend_epi16(_mm256_srli_epi32(e, 16), o, 0xaa);
    __m256i l = _mm256_blend_epi16(e, _mm256_slli_epi32(o, 16), 0xaa);
    __m256i y = _mm256_adds_epi16(
        _mm256_xor_si256(l, _mm256_set1_epi16((short)0x8000)),
        _mm256_and_si256(h, _mm256_set1_epi16(1)));
    __m256i up = _mm256_cmpgt_epi16(y, _mm256_setzero_si256()); /* -1 */
    return _mm256_sub_epi16(h, up);
}

#define TCOMM_BF16_BLOCKS(OP, NAN_REDO)                                      \
    _Pragma("GCC unroll 2") for (; i + 16 <= n; i += 16) {                   \
        __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));           \
        __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));           \
        __m256 ev = OP(_mm256_castsi256_ps(_mm256_slli_epi32(va, 16)),      \
                       _mm256_castsi256_ps(_mm256_slli_epi32(vb, 16)));     \
        __m256 od = OP(_mm256_castsi256_ps(_mm256_and_si256(va, hi)),       \
                       _mm256_castsi256_ps(_mm256_and_si256(vb, hi)));      \
        __m256 nan = _mm256_cmp_ps(ev, od, _CMP_UNORD_Q); /* either */      \
        if (NAN_REDO && !_mm256_testz_ps(nan, nan)) {                        \
            st_bf16(out + i, OP(ld_bf16(a + i), ld_bf16(b + i)));            \
            st_bf16(out + i + 8, OP(ld_bf16(a + i + 8), ld_bf16(b + i + 8)));\
            continue;                                                        \
        }                                                                    \
        _mm256_storeu_si256((__m256i *)(out + i),                            \
                            bf16_merge_rounded(ev, od));                     \
    }

TCOMM_AVX2 static size_t bf16_avx2(tcomm_op_t op, const uint16_t *a,
                                   const uint16_t *b, uint16_t *out,
                                   size_t n)
{
    const __m256i hi = _mm256_set1_epi32((int)0xffff0000u);
    size_t i = 0;

    switch (op) {
    case TCOMM_PROD: TCOMM_BF16_BLOCKS(_mm256_mul_ps, 0); break;
    case TCOMM_MIN: TCOMM_BF16_BLOCKS(vmin_nan, 1); break;
    case TCOMM_MAX: TCOMM_BF16_BLOCKS(vmax_nan, 1); break;
    default: TCOMM_BF16_BLOCKS(_mm256_add_ps, 0); break;
    }
    return i;
}

TCOMM_AVX2 static size_t half_avx2(tcomm_dtype_t dtype, tcomm_op_t op,
                                   const uint16_t *a, const uint16_t *b,
                                   uint16_t *out, size_t n)
{
    size_t i = 0;

    if (dtype == TCOMM_F16) {
        TCOMM_HALF_LOOP(ld_f16, st_f16);
        return n & ~(size_t)7;
    }
    /* blocks of 16, then at most one step of 8 */
    size_t done = bf16_avx2(op, a, b, out, n);
    a += done, b += done, out += done, n -= done;
    TCOMM_HALF_LOOP(ld_bf16, st_bf16);
    return done + (n & ~(size_t)7);
}

/* The one static of mpi_kernels/: a pure cache of a fact about the CPU,
 * the same whenever and by whom it is computed, so no state in the sense
 * of the layout (nothing is set up, owned or torn down). */
static int cpu_has_avx2_f16c(void)
{
    /* threads may race to fill it: atomic, and all store the same */
    static _Atomic int cached = -1;
    unsigned int ea, eb, ec, ed;
    int ok = atomic_load_explicit(&cached, memory_order_relaxed);

    if (ok >= 0)
        return ok;
    __builtin_cpu_init();
    ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __get_cpuid(1, &ea, &eb, &ec, &ed) && (ec & bit_F16C) != 0;
    atomic_store_explicit(&cached, ok, memory_order_relaxed);
    return ok;
}

size_t tcomm_host_half_fast(tcomm_dtype_t dtype, tcomm_op_t op,
                            const void *a, const void *b, void *out,
                            size_t n)
{
    if (n < 8 || tcomm_test_hook(TCOMM_HOOK_NO_SIMD) ||
        !cpu_has_avx2_f16c())
        return 0;
    return half_avx2(dtype, op, a, b, out, n);
}

#else /* not x86-64 gcc */

size_t tcomm_host_half_fast(tcomm_dtype_t dtype, tcomm_op_t op,
                            const void *a, const void *b, void *out,
                            size_t n)
{
    (void)dtype, (void)op, (void)a, (void)b, (void)out, (void)n;
    return 0;
}

#endif
