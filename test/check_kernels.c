/* SPDX-License-Identifier: BSD-3-Clause */
/* Check suite of the host kernels (mpi_kernels/), one process: f16/bf16
 * conversions against a slow frexp/ldexp reference, tcomm_host_reduce /
 * add / divide for every dtype and op against a plain reference (with
 * and without the SIMD fast path), and pack/unpack against a naive
 * element loop and the TCOMM_HD index helpers. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_half.h"
#include "tcomm_host_kernels.h"
#include "tcomm_reshape_index.h"
#include "tcomm_test_hooks.h"

/* ---- reference conversions (slow, obviously correct) ---- */

/* The value of half bits with mbits mantissa bits and exponent bias. */
static double ref_decode(uint32_t h, int mbits, int ebits)
{
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t m = h & ((1u << mbits) - 1);
    uint32_t e = (h >> mbits) & ((1u << ebits) - 1);
    double v = e == 0 ? ldexp(m, 1 - bias - mbits)
                      : ldexp((double)((1u << mbits) + m), (int)e - bias - mbits);
    if (e == (1u << ebits) - 1)
        v = m ? NAN : INFINITY;
    return (h >> (mbits + ebits)) & 1 ? -v : v;
}

/* Round x (not NaN) to the format, ties to even; returns the bits. */
static uint32_t ref_encode(double x, int mbits, int ebits)
{
    int bias = (1 << (ebits - 1)) - 1, e;
    uint32_t sign = signbit(x) ? 1u << (mbits + ebits) : 0;
    uint32_t inf = ((1u << ebits) - 1) << mbits;
    double a = fabs(x), r, v;

    if (a == 0)
        return sign;
    if (isinf(a))
        return sign | inf;
    frexp(a, &e);
    e -= 1; /* a = 1.f * 2^e */
    if (e < 1 - bias)
        e = 1 - bias; /* subnormal range: fixed quantum */
    r = nearbyint(ldexp(a, mbits - e)); /* exact scaling, RNE */
    v = ldexp(r, e - mbits);
    if (v >= ldexp(1, bias + 1))
        return sign | inf;
    if (v < ldexp(1, 1 - bias))
        return sign | (uint32_t)ldexp(v, bias - 1 + mbits);
    frexp(v, &e);
    e -= 1;
    return sign | (uint32_t)(e + bias) << mbits |
           ((uint32_t)ldexp(v, mbits - e) - (1u << mbits));
}

#define REF_F16(x) ((uint16_t)ref_encode((x), 10, 5))
#define REF_BF16(x) ((uint16_t)ref_encode((x), 7, 8))

static uint32_t lcg_state = 12345;
static uint32_t rnd(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state ^ (lcg_state >> 15);
}

static float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

START_TEST(test_half_decode_all)
{
    for (uint32_t h = 0; h < 65536; h++) {
        double f = tcomm_f16_to_f32((uint16_t)h);
        double b = tcomm_bf16_to_f32((uint16_t)h);
        double rf = ref_decode(h, 10, 5), rb = ref_decode(h, 7, 8);
        if (isnan(rf))
            ck_assert_msg(isnan(f), "f16 %04x", h);
        else
            ck_assert_msg(f == rf && signbit(f) == signbit(rf), "f16 %04x",
                          h);
        if (isnan(rb))
            ck_assert_msg(isnan(b), "bf16 %04x", h);
        else
            ck_assert_msg(b == rb && signbit(b) == signbit(rb), "bf16 %04x",
                          h);
        /* exact round trip of every non-NaN value */
        if (!isnan(rf))
            ck_assert_uint_eq(tcomm_f32_to_f16((float)f), h);
        if (!isnan(rb))
            ck_assert_uint_eq(tcomm_f32_to_bf16((float)b), h);
    }
}
END_TEST

/* Ties: the midpoint of two neighbours goes to the even one; a hair off
 * the midpoint goes to the nearer one. Includes subnormals, the
 * normal/subnormal border and overflow past the largest finite. */
START_TEST(test_half_ties)
{
    for (uint32_t h = 0; h < 0x7c00; h++) {
        double lo = ref_decode(h, 10, 5), hi = ref_decode(h + 1, 10, 5);
        float mid = (float)((lo + (isinf(hi) ? 65536.0 : hi)) / 2);
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        ck_assert_msg(tcomm_f32_to_f16(mid) == even, "f16 tie above %04x", h);
        ck_assert_uint_eq(tcomm_f32_to_f16(-mid), even | 0x8000);
        ck_assert_uint_eq(tcomm_f32_to_f16(nextafterf(mid, 0)), h);
        ck_assert_uint_eq(tcomm_f32_to_f16(nextafterf(mid, INFINITY)), h + 1);
    }
    for (uint32_t h = 0; h < 0x7f80; h++) {
        double lo = ref_decode(h, 7, 8), hi = ref_decode(h + 1, 7, 8);
        double m = (lo + (isinf(hi) ? ldexp(1, 128) : hi)) / 2;
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        if (m < 3.4e38) /* representable in f32 */
            ck_assert_msg(tcomm_f32_to_bf16((float)m) == even, "bf16 %04x",
                          h);
    }
    ck_assert_uint_eq(tcomm_f32_to_f16(65504.0f), 0x7bff);
    ck_assert_uint_eq(tcomm_f32_to_f16(65519.99f), 0x7bff);
    ck_assert_uint_eq(tcomm_f32_to_f16(65520.0f), 0x7c00);
    ck_assert_uint_eq(tcomm_f32_to_f16(1e10f), 0x7c00);
    ck_assert_uint_eq(tcomm_f32_to_f16(-INFINITY), 0xfc00);
    ck_assert_uint_eq(tcomm_f32_to_f16(ldexpf(1, -25)), 0);   /* tie: even */
    ck_assert_uint_eq(tcomm_f32_to_f16(ldexpf(1.5f, -25)), 1);
    ck_assert_uint_eq(tcomm_f32_to_f16(ldexpf(1, -140)), 0);  /* f32 subn. */
    ck_assert_uint_eq(tcomm_f32_to_bf16(3.4028235e38f), 0x7f80);
    ck_assert_uint_eq(tcomm_f32_to_bf16(ldexpf(1, -130)), 0x0008);
    ck_assert_uint_eq(tcomm_f32_to_bf16(ldexpf(1, -134)), 0);      /* tie */
    ck_assert_uint_eq(tcomm_f32_to_bf16(ldexpf(1.5f, -134)), 1);
    ck_assert(tcomm_f16_is_nan(tcomm_f32_to_f16(NAN)));
    ck_assert(tcomm_bf16_is_nan(tcomm_f32_to_bf16(NAN)));
    ck_assert(tcomm_bf16_is_nan(tcomm_f32_to_bf16(bits_f(0x7f800001u))));
    ck_assert(tcomm_bf16_is_nan(tcomm_f32_to_bf16(bits_f(0xffffffffu))));
    ck_assert_uint_eq(tcomm_f32_to_f16(-NAN) & 0x8000, 0x8000);
}
END_TEST

START_TEST(test_half_random)
{
    for (int i = 0; i < 2000000; i++) {
        uint32_t u = rnd();
        float f = bits_f(u);
        if (isnan(f)) {
            ck_assert(tcomm_f16_is_nan(tcomm_f32_to_f16(f)));
            ck_assert(tcomm_bf16_is_nan(tcomm_f32_to_bf16(f)));
            continue;
        }
        ck_assert_msg(tcomm_f32_to_f16(f) == REF_F16(f), "f16 of %08x", u);
        ck_assert_msg(tcomm_f32_to_bf16(f) == REF_BF16(f), "bf16 of %08x", u);
        /* and one in (or near) f16's range: exponent -30..17 */
        f = ldexpf((float)(u & 0xffffff) / 16777216.0f, (int)(u >> 26) - 30);
        ck_assert_msg(tcomm_f32_to_f16(f) == REF_F16(f), "f16 of %a", f);
    }
}
END_TEST

/* ---- element-wise kernels against a plain reference ---- */

#define N 1031 /* odd, so that every vector loop has a tail */

/* An element as double / as the low w bits (integers). */
static double ld(tcomm_dtype_t t, const void *p, size_t i)
{
    switch (t) {
    case TCOMM_U8: return ((const uint8_t *)p)[i];
    case TCOMM_I8: return ((const int8_t *)p)[i];
    case TCOMM_I32: return ((const int32_t *)p)[i];
    case TCOMM_U32: return ((const uint32_t *)p)[i];
    case TCOMM_I64: return (double)((const int64_t *)p)[i];
    case TCOMM_F16: return tcomm_f16_to_f32(((const uint16_t *)p)[i]);
    case TCOMM_BF16: return tcomm_bf16_to_f32(((const uint16_t *)p)[i]);
    case TCOMM_F32: return ((const float *)p)[i];
    case TCOMM_F64: return ((const double *)p)[i];
    }
    return 0;
}

static uint64_t ldu(size_t es, const void *p, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)p + i * es, es); /* little endian */
    return v;
}

static int is_signed_int(tcomm_dtype_t t)
{
    return t == TCOMM_I8 || t == TCOMM_I32 || t == TCOMM_I64;
}

static int is_float(tcomm_dtype_t t)
{
    return t == TCOMM_F16 || t == TCOMM_BF16 || t == TCOMM_F32 ||
           t == TCOMM_F64;
}

/* Random inputs; floats get NaN, +-Inf, +-0 and subnormals sprinkled. */
static void fill(tcomm_dtype_t t, void *p, size_t n)
{
    static const double special[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0,
                                     1e-41, 6e-8, 1e-300, 65504, 3e38};
    size_t es = tcomm_dtype_size(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = (uint64_t)rnd() << 32 | rnd();
        double v = ((double)(int32_t)rnd()) / (1 << (rnd() % 24));
        if (rnd() % 16 == 0)
            v = special[rnd() % 10];
        switch (t) {
        case TCOMM_F16: ((uint16_t *)p)[i] = REF_F16(v); break;
        case TCOMM_BF16: ((uint16_t *)p)[i] = REF_BF16(v); break;
        case TCOMM_F32: ((float *)p)[i] = (float)v; break;
        case TCOMM_F64: ((double *)p)[i] = v; break;
        default: memcpy((char *)p + i * es, &r, es); break;
        }
    }
}

/* Checks got[i] == a[i] op b[i] for every element. */
static void check_op(tcomm_dtype_t t, tcomm_op_t op, const void *a,
                     const void *b, const void *got, size_t n)
{
    size_t es = tcomm_dtype_size(t);
    for (size_t i = 0; i < n; i++) {
        if (!is_float(t)) {
            uint64_t x = ldu(es, a, i), y = ldu(es, b, i), r;
            uint64_t mask = es == 8 ? ~0ull : (1ull << (8 * es)) - 1;
            int sh = 64 - 8 * (int)es;
            int64_t sx = (int64_t)(x << sh) >> sh, sy = (int64_t)(y << sh) >> sh;
            int lt = is_signed_int(t) ? sx < sy : x < y;
            switch (op) {
            case TCOMM_PROD: r = x * y; break;
            case TCOMM_MIN: r = lt ? x : y; break;
            case TCOMM_MAX: r = lt ? y : x; break;
            default: r = x + y; break;
            }
            ck_assert_msg((r & mask) == ldu(es, got, i), "%s %s [%zu]",
                          tcomm_dtype_size(t) ? "int" : "", "op", i);
            continue;
        }
        double x = ld(t, a, i), y = ld(t, b, i), r, g = ld(t, got, i);
        switch (op) {
        case TCOMM_PROD: r = x * y; break;
        case TCOMM_MIN: r = isnan(x) || isnan(y) ? NAN : x < y ? x : y; break;
        case TCOMM_MAX: r = isnan(x) || isnan(y) ? NAN : x > y ? x : y; break;
        default: r = x + y; break;
        }
        /* f32 rounding of the exact double result (f16/bf16 combine in
         * f32 and round again, as specified) */
        if (t == TCOMM_F32)
            r = (float)r;
        else if (t == TCOMM_F16)
            r = isnan(r) ? r : ld(t, &(uint16_t){REF_F16((float)r)}, 0);
        else if (t == TCOMM_BF16)
            r = isnan(r) ? r : ld(t, &(uint16_t){REF_BF16((float)r)}, 0);
        if (isnan(r))
            ck_assert_msg(isnan(g), "dtype %d op %d [%zu]: %g op %g = %g",
                          t, op, i, x, y, g);
        else
            ck_assert_msg(g == r, "dtype %d op %d [%zu]: %g op %g = %g not %g",
                          t, op, i, x, y, g, r);
    }
}

static void run_elementwise(int simd)
{
    static char a[N * 8 + 8], b[N * 8 + 8], acc[N * 8 + 8], out[N * 8 + 8];
    tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, !simd);
    for (int t = 0; t < TCOMM_DTYPE_COUNT; t++) {
        size_t es = tcomm_dtype_size((tcomm_dtype_t)t);
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            /* misaligned by one element, odd length */
            char *pa = a + es, *pb = b + es, *pc = acc + es;
            fill((tcomm_dtype_t)t, pa, N);
            fill((tcomm_dtype_t)t, pb, N);
            memcpy(pc, pa, N * es);
            tcomm_host_reduce((tcomm_dtype_t)t, (tcomm_op_t)op, pc, pb, N);
            check_op((tcomm_dtype_t)t, (tcomm_op_t)op, pa, pb, pc, N);
        }
        tcomm_host_add((tcomm_dtype_t)t, a, b, out, N);
        check_op((tcomm_dtype_t)t, TCOMM_SUM, a, b, out, N);
        if (is_float((tcomm_dtype_t)t)) { /* divide: correctly rounded */
            memcpy(out, a, N * es);
            tcomm_host_divide((tcomm_dtype_t)t, out, N, 3.0);
            for (size_t i = 0; i < N; i++) {
                double q = ld((tcomm_dtype_t)t, a, i) / 3.0, g;
                g = ld((tcomm_dtype_t)t, out, i);
                if (t == TCOMM_F32)
                    q = (float)q;
                else if (t == TCOMM_F16)
                    q = ld(t, &(uint16_t){REF_F16(q)}, 0);
                else if (t == TCOMM_BF16)
                    q = ld(t, &(uint16_t){REF_BF16(q)}, 0);
                ck_assert(isnan(q) ? isnan(g) : g == q);
            }
        }
    }
    tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 0);
}

START_TEST(test_reduce_portable) { run_elementwise(0); }
END_TEST

START_TEST(test_reduce_simd) { run_elementwise(1); }
END_TEST

/* Integer wrap-around and NaN in either operand, spelled out. */
START_TEST(test_reduce_edges)
{
    int8_t i8a[2] = {127, -128}, i8b[2] = {1, -1};
    uint32_t u32a[1] = {0xffffffffu}, u32b[1] = {2};
    int64_t i64a[1] = {INT64_MAX}, i64b[1] = {2};
    float fa[4] = {NAN, 1, NAN, -0.0f}, fb[4] = {1, NAN, NAN, 0};
    uint16_t ha[16], hb[16];

    tcomm_host_reduce(TCOMM_I8, TCOMM_SUM, i8a, i8b, 2);
    ck_assert(i8a[0] == -128 && i8a[1] == 127);
    tcomm_host_reduce(TCOMM_U32, TCOMM_SUM, u32a, u32b, 1);
    ck_assert_uint_eq(u32a[0], 1);
    tcomm_host_reduce(TCOMM_I64, TCOMM_PROD, i64a, i64b, 1);
    ck_assert(i64a[0] == -2);
    tcomm_host_reduce(TCOMM_F32, TCOMM_MIN, fa, fb, 4);
    ck_assert(isnan(fa[0]) && isnan(fa[1]) && isnan(fa[2]) && fa[3] == 0);
    for (int simd = 0; simd < 2; simd++) {
        tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, !simd);
        for (int i = 0; i < 16; i++) { /* NaN in a, then in b */
            ha[i] = i < 8 ? 0x7e00 : 0x3c00;
            hb[i] = i < 8 ? 0x3c00 : 0xfe00;
        }
        tcomm_host_reduce(TCOMM_F16, TCOMM_MAX, ha, hb, 16);
        for (int i = 0; i < 16; i++)
            ck_assert(tcomm_f16_is_nan(ha[i]));
        for (int i = 0; i < 16; i++) {
            ha[i] = i < 8 ? 0x7fc0 : 0x3f80;
            hb[i] = i < 8 ? 0x3f80 : 0xffc0;
        }
        tcomm_host_reduce(TCOMM_BF16, TCOMM_MIN, ha, hb, 16);
        for (int i = 0; i < 16; i++)
            ck_assert(tcomm_bf16_is_nan(ha[i]));
    }
    tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 0);
}
END_TEST

/* Every f16/bf16 value against 4 partners, each op: the vector steps
 * (blocks of 16 and of 8, NaN blocks redone) equal the portable loop bit
 * for bit, but for NaN payloads; of two NaN operands either sign. */
START_TEST(test_half_simd_exhaustive)
{
    enum { NV = 65536 + 3 }; /* a tail for every vector width */
    static uint16_t a[NV], b[NV], simd[NV], port[NV];

    for (int t = 0; t < 2; t++) {
        tcomm_dtype_t dt = t ? TCOMM_BF16 : TCOMM_F16;
        int (*is_nan)(uint16_t) = t ? tcomm_bf16_is_nan : tcomm_f16_is_nan;
        for (int rep = 0; rep < 4; rep++) {
            for (size_t i = 0; i < NV; i++) {
                a[i] = (uint16_t)i;
                /* half random partners, half near a (ties, cancellation) */
                b[i] = (uint16_t)(rep % 2 ? rnd() : (i ^ (rnd() & 0x1ff)));
            }
            for (int op = 0; op < TCOMM_OP_COUNT; op++) {
                if (op == TCOMM_AVG)
                    continue;
                memcpy(simd, a, sizeof a);
                memcpy(port, a, sizeof a);
                tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 0);
                tcomm_host_reduce(dt, (tcomm_op_t)op, simd, b, NV);
                tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 1);
                tcomm_host_reduce(dt, (tcomm_op_t)op, port, b, NV);
                for (size_t i = 0; i < NV; i++) {
                    if (is_nan(a[i]) && is_nan(b[i]))
                        ck_assert(is_nan(simd[i]));
                    else if (is_nan(port[i])) /* payloads may differ */
                        ck_assert(is_nan(simd[i]) &&
                                  (simd[i] ^ port[i]) >> 15 == 0);
                    else
                        ck_assert_msg(simd[i] == port[i],
                                      "dtype %d op %d: %04x op %04x = %04x,"
                                      " portable %04x", dt, op, a[i], b[i],
                                      simd[i], port[i]);
                }
            }
        }
    }
    tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 0);
}
END_TEST

/* ---- reshaping against a naive element loop and the index helpers ---- */

static void check_reshape(size_t es, size_t outer, int nranks,
                          const size_t *seg, size_t chunk)
{
    size_t off[9] = {0}, total, n, cap;
    for (int r = 0; r < nranks; r++)
        off[r + 1] = off[r] + seg[r];
    total = off[nranks];
    n = outer * total * es;
    cap = outer * es * (total > nranks * chunk ? total : nranks * chunk);
    unsigned char *src = malloc(cap + 1), *got = malloc(cap + 1);
    unsigned char *want = malloc(cap + 1);
    for (size_t i = 0; i < cap; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    /* gather: naive loops */
    for (int r = 0; r < nranks; r++)
        for (size_t o = 0; o < outer; o++)
            for (size_t c = 0; c < seg[r]; c++)
                memcpy(want + (o * total + off[r] + c) * es,
                       src + (outer * off[r] + o * seg[r] + c) * es, es);
    tcomm_host_gather_unpack(src, got, es, outer, nranks, seg);
    ck_assert(memcmp(want, got, n) == 0);
    for (size_t i = 0; i < outer * total; i++) { /* the index helpers */
        int r;
        size_t j = tcomm_gather_src_index(i, outer, nranks, off, &r);
        ck_assert(memcmp(want + i * es, src + j * es, es) == 0);
        ck_assert(j >= outer * off[r] && j < outer * off[r + 1]);
        ck_assert_uint_eq(tcomm_gather_dst_index(j - outer * off[r], r, off,
                                                 nranks), i);
    }
    /* split_pack: the naive inverse (dst blocks from src's columns) */
    for (int r = 0; r < nranks; r++)
        for (size_t o = 0; o < outer; o++)
            for (size_t c = 0; c < seg[r]; c++)
                memcpy(want + (outer * off[r] + o * seg[r] + c) * es,
                       src + (o * total + off[r] + c) * es, es);
    tcomm_host_split_pack(src, got, es, outer, nranks, seg);
    ck_assert(memcmp(want, got, n) == 0);
    tcomm_host_gather_unpack(got, want, es, outer, nranks, seg);
    ck_assert(memcmp(want, src, n) == 0);
    /* scatter: src is [outer][nranks * chunk] */
    n = outer * (size_t)nranks * chunk * es;
    for (int r = 0; r < nranks; r++)
        for (size_t o = 0; o < outer; o++)
            for (size_t c = 0; c < chunk; c++)
                memcpy(want + ((size_t)r * outer * chunk + o * chunk + c) * es,
                       src + (o * nranks * chunk + r * chunk + c) * es, es);
    tcomm_host_scatter_pack(src, got, es, outer, nranks, chunk);
    ck_assert(memcmp(want, got, n) == 0);
    for (size_t j = 0; j < outer * nranks * chunk; j++) {
        int r;
        size_t i = tcomm_scatter_src_index(j, outer, nranks, chunk, &r);
        ck_assert(memcmp(want + j * es, src + i * es, es) == 0);
        ck_assert_int_eq(r, (int)(j / (outer * chunk)));
        ck_assert_uint_eq(tcomm_scatter_dst_index(i, outer, nranks, chunk), j);
    }
    free(src);
    free(got);
    free(want);
}

START_TEST(test_reshape)
{
    static const size_t segs[][4] = {{3, 0, 5, 1}, {4, 4, 4, 4},
                                     {0, 0, 2, 0}, {1, 1, 1, 1},
                                     {17, 64, 0, 9}};
    static const size_t es[] = {1, 2, 4, 8, 12};
    static const size_t outers[] = {1, 2, 7, 33};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t c = 0; c < 4; c++)
                for (int nr = 1; nr <= 4; nr++)
                    check_reshape(es[b], outers[c], nr, segs[a],
                                  segs[a][0] + 1);
    ck_assert_int_eq(tcomm_reshape_find_rank((size_t[]){0, 3, 3, 8, 9}, 4,
                                             3), 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_kernels");
    TCase *tc = tcase_create("kernels");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_half_decode_all);
    tcase_add_test(tc, test_half_ties);
    tcase_add_test(tc, test_half_random);
    tcase_add_test(tc, test_reduce_portable);
    tcase_add_test(tc, test_reduce_simd);
    tcase_add_test(tc, test_reduce_edges);
    tcase_add_test(tc, test_half_simd_exhaustive);
    tcase_add_test(tc, test_reshape);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
