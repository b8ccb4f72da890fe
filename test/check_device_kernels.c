/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA kernels' __host__ __device__ code, compiled for the host and
 * checked against the host kernels:
 * - the element step of the reduction kernels (cuda/tcomm_reduce_elem.h)
 *   bit for bit against tcomm_host_reduce / tcomm_host_divide, for the
 *   nine dtypes and five ops, on random bit patterns (NaN, Inf,
 *   subnormals, signed zeros included) and on every f16/bf16 pair class;
 * - the per-thread index arithmetic of the reshaping kernels
 *   (cuda/tcomm_kernel_index.h), run as the kernels run it (one launch
 *   per rank block for unpack and split, one for pack, element sizes 1-16
 *   bytes), against tcomm_host_gather_unpack / tcomm_host_scatter_pack /
 *   tcomm_host_split_pack. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm.h"
#include "tcomm_host_kernels.h"
#include "tcomm_kernel_index.h"
#include "tcomm_reduce_elem.h"
#include "tcomm_test_hooks.h"

#define N 4096

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random bytes, with a share of special values for floating dtypes. */
static void fill(tcomm_dtype_t dt, void *buf, size_t n)
{
    unsigned char *p = buf;
    size_t el = tcomm_dtype_size(dt);
    static const uint16_t h16[] = { 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0001,
                                    0x8000, 0x0000, 0x03ff, 0x7bff };
    static const uint16_t b16[] = { 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x0001,
                                    0x8000, 0x0000, 0x007f, 0x7f7f };
    static const uint32_t f32[] = { 0x7f800000, 0xff800000, 0x7fc00000,
                                    0x7f800001, 0x00000001, 0x80000000,
                                    0x00000000, 0x007fffff, 0x3f800000 };
    for (size_t i = 0; i < n * el; i++)
        p[i] = (unsigned char)next();
    for (size_t i = 0; i < n; i++) {
        if (next() % 4)
            continue;
        size_t k = next() % 9;
        if (dt == TCOMM_F16)
            memcpy(p + i * 2, &h16[k], 2);
        else if (dt == TCOMM_BF16)
            memcpy(p + i * 2, &b16[k], 2);
        else if (dt == TCOMM_F32)
            memcpy(p + i * 4, &f32[k], 4);
        else if (dt == TCOMM_F64) {
            double d = k < 3 ? (k == 0 ? 1e308 * 10 : -1e308 * 10)
                             : (double)(int64_t)(next() % 1000) - 500;
            if (k == 2)
                d = d - d; /* NaN: inf - inf */
            memcpy(p + i * 8, &d, 8);
        }
    }
}

static int is_nan(tcomm_dtype_t dt, const unsigned char *p)
{
    uint16_t h;
    float f;
    double d;
    switch (dt) {
    case TCOMM_F16: memcpy(&h, p, 2); return tcomm_f16_is_nan(h);
    case TCOMM_BF16: memcpy(&h, p, 2); return tcomm_bf16_is_nan(h);
    case TCOMM_F32: memcpy(&f, p, 4); return f != f;
    case TCOMM_F64: memcpy(&d, p, 8); return d != d;
    default: return 0;
    }
}

/* The kernel's element loop, on the host. */
#define ELEM_LOOP(T, pfx, fn)                                               \
    for (size_t i = 0; i < n; i++)                                          \
        ((T *)acc)[i] = tcomm_elem_##pfx##_##fn(((T *)acc)[i],              \
                                               ((const T *)x)[i]);

#define ELEM_OPS(T, pfx)                                                    \
    switch (op) {                                                           \
    case TCOMM_SUM: case TCOMM_AVG: ELEM_LOOP(T, pfx, sum) break;           \
    case TCOMM_PROD: ELEM_LOOP(T, pfx, prod) break;                         \
    case TCOMM_MIN: ELEM_LOOP(T, pfx, min) break;                           \
    case TCOMM_MAX: ELEM_LOOP(T, pfx, max) break;                           \
    }                                                                       \
    break;

static void kernel_reduce(tcomm_dtype_t dt, tcomm_op_t op, void *acc,
                          const void *x, size_t n)
{
    switch (dt) {
    case TCOMM_U8: ELEM_OPS(uint8_t, u8)
    case TCOMM_I8: ELEM_OPS(int8_t, i8)
    case TCOMM_I32: ELEM_OPS(int32_t, i32)
    case TCOMM_U32: ELEM_OPS(uint32_t, u32)
    case TCOMM_I64: ELEM_OPS(int64_t, i64)
    case TCOMM_F16: ELEM_OPS(uint16_t, f16)
    case TCOMM_BF16: ELEM_OPS(uint16_t, bf16)
    case TCOMM_F32: ELEM_OPS(float, f32)
    case TCOMM_F64: ELEM_OPS(double, f64)
    }
}

static void kernel_divide(tcomm_dtype_t dt, void *buf, size_t n, double d)
{
    float fd = (float)d;
    for (size_t i = 0; i < n; i++) {
        switch (dt) {
        case TCOMM_F32:
            ((float *)buf)[i] = tcomm_elem_f32_div(((float *)buf)[i], fd);
            break;
        case TCOMM_F64:
            ((double *)buf)[i] = tcomm_elem_f64_div(((double *)buf)[i], d);
            break;
        case TCOMM_F16:
            ((uint16_t *)buf)[i] =
                tcomm_elem_f16_div(((uint16_t *)buf)[i], fd);
            break;
        case TCOMM_BF16:
            ((uint16_t *)buf)[i] =
                tcomm_elem_bf16_div(((uint16_t *)buf)[i], fd);
            break;
        default:
            return;
        }
    }
}

START_TEST(test_reduce_elem)
{
    tcomm_dtype_t dt = (tcomm_dtype_t)(_i / TCOMM_OP_COUNT);
    tcomm_op_t op = (tcomm_op_t)(_i % TCOMM_OP_COUNT);
    size_t el = tcomm_dtype_size(dt);
    unsigned char *a = malloc(N * el), *b = malloc(N * el);
    unsigned char *x = malloc(N * el);
    /* Bit for bit against the host kernels, up to the payload of a NaN
     * result: IEEE 754 leaves open which NaN operand's payload a sum or a
     * product keeps, and compilers may swap the operands of the
     * commutative ones (seen at -O1 under the sanitizers). */
    for (int round = 0; round < 16; round++) {
        int simd = round & 1;
        fill(dt, a, N);
        fill(dt, x, N);
        memcpy(b, a, N * el);
        tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, !simd);
        tcomm_host_reduce(dt, op, a, x, N);
        tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 0);
        kernel_reduce(dt, op, b, x, N);
        for (size_t i = 0; i < N * el; i += el)
            ck_assert_msg(!memcmp(a + i, b + i, el) ||
                              (is_nan(dt, a + i) && is_nan(dt, b + i)),
                          "%s op %d: element %zu differs from the host "
                          "kernel (simd %d)", tcomm_dtype_name(dt), op,
                          i / el, simd);
    }
    free(a);
    free(b);
    free(x);
}
END_TEST

START_TEST(test_divide_elem)
{
    static const tcomm_dtype_t dts[] = { TCOMM_F16, TCOMM_BF16, TCOMM_F32,
                                         TCOMM_F64, TCOMM_I32 };
    tcomm_dtype_t dt = dts[_i];
    size_t el = tcomm_dtype_size(dt);
    unsigned char *a = malloc(N * el), *b = malloc(N * el);
    for (int d = 1; d <= 9; d++) {
        fill(dt, a, N);
        memcpy(b, a, N * el);
        tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 1);
        tcomm_host_divide(dt, a, N, (double)d);
        tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 0);
        kernel_divide(dt, b, N, (double)d);
        ck_assert_msg(!memcmp(a, b, N * el), "%s divide by %d differs",
                      tcomm_dtype_name(dt), d);
    }
    free(a);
    free(b);
}
END_TEST

/* The unpack kernels as launched: per rank block, words of
 * tcomm_kernel_word(el) bytes, lengths scaled. */
static void kernel_unpack(const unsigned char *src, unsigned char *dst,
                          size_t el, size_t outer, int nranks,
                          const size_t *seg)
{
    size_t w8 = tcomm_kernel_word(el), scale = tcomm_kernel_scale(el);
    size_t total = 0, col = 0;
    for (int r = 0; r < nranks; r++)
        total += seg[r] * scale;
    for (int r = 0; r < nranks; r++) {
        size_t w = seg[r] * scale, n = outer * w;
        const unsigned char *s = src + outer * col * w8;
        for (size_t j = 0; j < n; j++)
            memcpy(dst + tcomm_kernel_unpack_dst(j, col, w, total) * w8,
                   s + j * w8, w8);
        col += w;
    }
}

/* The split (uneven pack) kernels as launched: per rank block, as
 * unpack, each thread fetching its element of the block. */
static void kernel_split(const unsigned char *src, unsigned char *dst,
                         size_t el, size_t outer, int nranks,
                         const size_t *seg)
{
    size_t w8 = tcomm_kernel_word(el), scale = tcomm_kernel_scale(el);
    size_t total = 0, col = 0;
    for (int r = 0; r < nranks; r++)
        total += seg[r] * scale;
    for (int r = 0; r < nranks; r++) {
        size_t w = seg[r] * scale, n = outer * w;
        unsigned char *d = dst + outer * col * w8;
        for (size_t j = 0; j < n; j++)
            memcpy(d + j * w8,
                   src + tcomm_kernel_split_src(j, col, w, total) * w8, w8);
        col += w;
    }
}

static void kernel_pack(const unsigned char *src, unsigned char *dst,
                        size_t el, size_t outer, int nranks, size_t chunk)
{
    size_t w8 = tcomm_kernel_word(el), c = chunk * tcomm_kernel_scale(el);
    size_t n = outer * (size_t)nranks * c;
    for (size_t j = 0; j < n; j++)
        memcpy(dst + j * w8,
               src + tcomm_kernel_pack_src(j, outer, nranks, c) * w8, w8);
}

START_TEST(test_reshape_index)
{
    static const size_t els[] = { 1, 2, 4, 8, 3, 12, 16 };
    for (size_t e = 0; e < sizeof els / sizeof els[0]; e++) {
        size_t el = els[e];
        for (int nranks = 1; nranks <= 5; nranks++) {
            for (size_t outer = 1; outer <= 4; outer++) {
                size_t seg[5], total = 0, chunk = 1 + (outer + e) % 3;
                for (int r = 0; r < nranks; r++) {
                    seg[r] = (size_t)((r * 3 + (int)outer + (int)e) % 4);
                    total += seg[r];
                }
                size_t gb = outer * total * el;
                size_t pb = outer * (size_t)nranks * chunk * el;
                size_t nb = (gb > pb ? gb : pb) + 1;
                unsigned char *src = malloc(nb), *a = malloc(nb);
                unsigned char *b = malloc(nb);
                for (size_t i = 0; i < nb; i++)
                    src[i] = (unsigned char)next();
                memset(a, 0x5a, nb);
                memset(b, 0x5a, nb);
                tcomm_host_gather_unpack(src, a, el, outer, nranks, seg);
                kernel_unpack(src, b, el, outer, nranks, seg);
                ck_assert_msg(!memcmp(a, b, nb),
                              "unpack el %zu outer %zu nranks %d differs",
                              el, outer, nranks);
                memset(a, 0x5a, nb);
                memset(b, 0x5a, nb);
                tcomm_host_scatter_pack(src, a, el, outer, nranks, chunk);
                kernel_pack(src, b, el, outer, nranks, chunk);
                ck_assert_msg(!memcmp(a, b, nb),
                              "pack el %zu outer %zu nranks %d differs", el,
                              outer, nranks);
                memset(a, 0x5a, nb);
                memset(b, 0x5a, nb);
                tcomm_host_split_pack(src, a, el, outer, nranks, seg);
                kernel_split(src, b, el, outer, nranks, seg);
                ck_assert_msg(!memcmp(a, b, nb),
                              "split el %zu outer %zu nranks %d differs",
                              el, outer, nranks);
                free(src);
                free(a);
                free(b);
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device_kernels");
    TCase *tc = tcase_create("host");
    tcase_add_loop_test(tc, test_reduce_elem, 0,
                        TCOMM_DTYPE_COUNT * TCOMM_OP_COUNT);
    tcase_add_loop_test(tc, test_divide_elem, 0, 5);
    tcase_add_test(tc, test_reshape_index);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
