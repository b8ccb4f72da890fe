/* SPDX-License-Identifier: BSD-3-Clause */
/* The cuda memory space on a GPU: the reduction kernels for the nine
 * dtypes and five ops and the division, bit for bit against the portable
 * host kernels (random bits: NaN, Inf, subnormals); pack/unpack against
 * the host reshaping; the caching allocator; events; and
 * tcomm_tensor_wrap's classification of device, managed, pinned and
 * pageable memory. Exit 77 (skip) without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"
#include "tcomm_host_kernels.h"
#include "tcomm_internal.h"
#include "tcomm_test_hooks.h"

#define N 100003 /* odd, several blocks */

static int failures;
#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, " (%s)\n", tcomm_last_error());                 \
        }                                                                   \
    } while (0)

static uint64_t rng = 88172645463325252ull;
static void fill(void *buf, size_t bytes)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < bytes; i++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        p[i] = (unsigned char)rng;
    }
}

static void check_reduce(tcomm_graph_t *g)
{
    const tcomm_memspace_t *sp = g->space;
    void *ctx = g->space_ctx, *da, *dx;
    size_t bytes = N * 8;
    unsigned char *a = malloc(bytes), *x = malloc(bytes), *got = malloc(bytes);
    EXPECT(sp->alloc(ctx, bytes, &da) == TCOMM_SUCCESS, "alloc");
    EXPECT(sp->alloc(ctx, bytes, &dx) == TCOMM_SUCCESS, "alloc");
    tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 1);
    for (int dt = 0; dt < TCOMM_DTYPE_COUNT; dt++) {
        size_t el = tcomm_dtype_size(dt);
        for (int op = 0; op <= TCOMM_OP_COUNT; op++) {
            fill(a, N * el);
            fill(x, N * el);
            sp->from_host(ctx, da, a, N * el);
            sp->from_host(ctx, dx, x, N * el);
            if (op < TCOMM_OP_COUNT) {
                EXPECT(sp->reduce(ctx, dt, op, da, dx, N) == TCOMM_SUCCESS,
                       "reduce");
                tcomm_host_reduce(dt, op, a, x, N);
            } else { /* AVG's division */
                EXPECT(sp->divide(ctx, dt, da, N, 3.0) == TCOMM_SUCCESS,
                       "divide");
                tcomm_host_divide(dt, a, N, 3.0);
            }
            EXPECT(sp->to_host(ctx, got, da, N * el) == TCOMM_SUCCESS,
                   "to_host");
            EXPECT(!memcmp(got, a, N * el), "%s op %d differs from the host",
                   tcomm_dtype_name(dt), op);
        }
    }
    tcomm_test_set_hook(TCOMM_HOOK_NO_SIMD, 0);
    sp->free(ctx, da);
    sp->free(ctx, dx);
    free(a);
    free(x);
    free(got);
}

static void check_reshape(tcomm_graph_t *g)
{
    const tcomm_memspace_t *sp = g->space;
    void *ctx = g->space_ctx, *ds, *dd;
    size_t els[] = { 1, 2, 4, 8, 12 }, seg[4] = { 3, 0, 5, 2 };
    size_t outer = 37, total = 10, chunk = 3;
    size_t bytes = outer * 12 * 12 * 4;
    unsigned char *src = malloc(bytes), *want = malloc(bytes);
    unsigned char *got = malloc(bytes);
    sp->alloc(ctx, bytes, &ds);
    sp->alloc(ctx, bytes, &dd);
    for (size_t e = 0; e < sizeof els / sizeof els[0]; e++) {
        size_t el = els[e], n = outer * total * el;
        fill(src, bytes);
        sp->from_host(ctx, ds, src, bytes);
        EXPECT(sp->gather_unpack(ctx, ds, dd, el, outer, 4, seg) ==
                   TCOMM_SUCCESS, "unpack");
        sp->synchronize(ctx);
        sp->to_host(ctx, got, dd, n);
        tcomm_host_gather_unpack(src, want, el, outer, 4, seg);
        EXPECT(!memcmp(got, want, n), "unpack el %zu differs", el);
        n = outer * 4 * chunk * el;
        EXPECT(sp->scatter_pack(ctx, ds, dd, el, outer, 4, chunk) ==
                   TCOMM_SUCCESS, "pack");
        sp->to_host(ctx, got, dd, n);
        tcomm_host_scatter_pack(src, want, el, outer, 4, chunk);
        EXPECT(!memcmp(got, want, n), "pack el %zu differs", el);
        n = outer * total * el;
        EXPECT(sp->split_pack(ctx, ds, dd, el, outer, 4, seg) ==
                   TCOMM_SUCCESS, "split");
        sp->synchronize(ctx);
        sp->to_host(ctx, got, dd, n);
        tcomm_host_split_pack(src, want, el, outer, 4, seg);
        EXPECT(!memcmp(got, want, n), "split el %zu differs", el);
    }
    sp->free(ctx, ds);
    sp->free(ctx, dd);
    free(src);
    free(want);
    free(got);
}

static void check_alloc_and_events(tcomm_graph_t *g)
{
    const tcomm_memspace_t *sp = g->space;
    void *ctx = g->space_ctx, *p, *q, *h;
    EXPECT(sp->alloc(ctx, 1000, &p) == TCOMM_SUCCESS, "alloc");
    sp->free(ctx, p);
    EXPECT(sp->alloc(ctx, 900, &q) == TCOMM_SUCCESS, "alloc");
    EXPECT(p == q, "the cached block is reused (%p, %p)", p, q);
    EXPECT(sp->staging(ctx, 4096, &h) == TCOMM_SUCCESS, "staging");
    memset(h, 9, 1024);
    EXPECT(sp->from_host_async(ctx, q, h, 900) == TCOMM_SUCCESS, "h2d");
    EXPECT(sp->to_host_async(ctx, (char *)h + 2048, q, 900) == TCOMM_SUCCESS,
           "d2h");
    EXPECT(sp->record(ctx, 2) == TCOMM_SUCCESS, "record");
    EXPECT(sp->wait(ctx, 2) == TCOMM_SUCCESS, "wait");
    EXPECT(((unsigned char *)h)[2048 + 899] == 9, "round trip");
    sp->free(ctx, q);
}

static void check_wrap(tcomm_graph_t *g, int ndev)
{
    size_t shape[1] = { 256 };
    tcomm_tensor_t *t = NULL;
    void *dev = NULL, *managed = NULL, *pinned = NULL;
    static float pageable[256];
    cudaMalloc(&dev, 1024);
    cudaMallocManaged(&managed, 1024, cudaMemAttachGlobal);
    cudaMallocHost(&pinned, 1024);
    EXPECT(tcomm_tensor_wrap(g, TCOMM_F32, dev, 1, shape, &t) ==
               TCOMM_SUCCESS, "wrap device memory");
    tcomm_tensor_release(t);
    EXPECT(tcomm_tensor_wrap(g, TCOMM_F32, managed, 1, shape, &t) ==
               TCOMM_SUCCESS, "wrap managed memory");
    tcomm_tensor_release(t);
    EXPECT(tcomm_tensor_wrap(g, TCOMM_F32, pinned, 1, shape, &t) ==
               TCOMM_SUCCESS, "wrap pinned host memory");
    tcomm_tensor_release(t);
    t = NULL;
    EXPECT(tcomm_tensor_wrap(g, TCOMM_F32, pageable, 1, shape, &t) ==
               TCOMM_ERR_INVALID_ARG && !t &&
               strstr(tcomm_last_error(), "pageable"),
           "pageable host memory is refused");
    if (ndev > 1) {
        void *other = NULL;
        cudaSetDevice(1);
        cudaMalloc(&other, 1024);
        EXPECT(tcomm_tensor_wrap(g, TCOMM_F32, other, 1, shape, &t) ==
                   TCOMM_ERR_INVALID_ARG, "another device's memory");
        cudaFree(other);
        cudaSetDevice(0);
    }
    cudaFree(dev);
    cudaFree(managed);
    cudaFreeHost(pinned);
}

int main(void)
{
    int ndev = gpu_count();
    if (ndev == 0) {
        printf("SKIP: no CUDA device\n");
        return GPU_SKIP;
    }
    tcomm_graph_t *g;
    tcomm_device_t d = { TCOMM_DEVICE_CUDA, 0 }, bad = { TCOMM_DEVICE_CUDA,
                                                          ndev };
    EXPECT(tcomm_graph_create(bad, &g) == TCOMM_ERR_INVALID_ARG,
           "device %d does not exist", ndev);
    if (tcomm_graph_create(d, &g) != TCOMM_SUCCESS) {
        fprintf(stderr, "FAIL: cuda graph: %s\n", tcomm_last_error());
        return 1;
    }
    check_reduce(g);
    check_reshape(g);
    check_alloc_and_events(g);
    check_wrap(g, ndev);
    EXPECT(tcomm_graph_destroy(g) == TCOMM_SUCCESS, "destroy");
    printf("%s: %d failures\n", failures ? "FAIL" : "pass", failures);
    return failures ? 1 : 0;
}
