/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory-space interface on CPUs: the sim space (deferred stream,
 * events, poisoned allocations, tagged pointers, the "kernels"), tensors
 * on sim graphs, and CUDA graphs in a build or on a machine without CUDA
 * (TCOMM_ERR_UNSUPPORTED with a sentence). */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm.h"
#include "tcomm_host_kernels.h"
#include "tcomm_sim.h"

START_TEST(test_cuda_graph_unsupported)
{
    tcomm_graph_t *g = NULL;
    tcomm_device_t dev = { TCOMM_DEVICE_CUDA, 0 };
    tcomm_status_t st = tcomm_graph_create(dev, &g);
#ifdef TCOMM_HAVE_CUDA
    if (st == TCOMM_SUCCESS) { /* a GPU is here: test/gpu/ covers it */
        ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_SUCCESS);
        return;
    }
    ck_assert_int_eq(st, TCOMM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "no CUDA device"));
#else
    ck_assert_int_eq(st, TCOMM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "built without CUDA"));
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "--with-cuda"));
#endif
    ck_assert_ptr_null(g);
}
END_TEST

START_TEST(test_sim_tensor_roundtrip)
{
    tcomm_graph_t *g;
    ck_assert_int_eq(tcomm_graph_create_sim_flags(1, _i ? TCOMM_SIM_TAGGED
                                                        : 0, &g),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_graph_device(g).kind, TCOMM_DEVICE_CUDA);
    ck_assert_int_eq(tcomm_graph_device(g).index, 1);
    float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6] = { 0 };
    size_t shape[2] = { 2, 3 };
    tcomm_tensor_t *t, *z, *w = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_F32, x, 2, shape, &t),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_to_host(t, y, sizeof y), TCOMM_SUCCESS);
    ck_assert_mem_eq(x, y, sizeof x);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 2, shape, &z),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_to_host(z, y, sizeof y), TCOMM_SUCCESS);
    for (int i = 0; i < 6; i++)
        ck_assert(y[i] == 0.0f);
    /* a pointer of the graph's "device" wraps; host memory does not when
     * the graph is tagged (as a CUDA graph refuses pageable memory) */
    tcomm_status_t st = tcomm_tensor_wrap(g, TCOMM_F32, x, 2, shape, &w);
    if (_i) {
        ck_assert_int_eq(st, TCOMM_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "host memory"));
        ck_assert_ptr_ne(tcomm_tensor_data(t),
                         tcomm_sim_host_ptr(g, tcomm_tensor_data(t)));
    } else {
        ck_assert_int_eq(st, TCOMM_SUCCESS);
        tcomm_tensor_release(w);
    }
    ck_assert_int_eq(tcomm_tensor_wrap(g, TCOMM_F32, tcomm_tensor_data(t), 2,
                                       shape, &w), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_to_host(w, y, sizeof y), TCOMM_SUCCESS);
    ck_assert_mem_eq(x, y, sizeof x);
    tcomm_tensor_release(w);
    tcomm_tensor_release(z);
    tcomm_tensor_release(t);
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_SUCCESS);
}
END_TEST

/* Stream work is deferred until wait/synchronize; events mark prefixes
 * of the queue; allocations are poisoned. */
START_TEST(test_sim_stream)
{
    tcomm_graph_t *g;
    ck_assert_int_eq(tcomm_graph_create_sim_flags(0, TCOMM_SIM_TAGGED, &g),
                     TCOMM_SUCCESS);
    const tcomm_memspace_t *sp = g->space;
    void *ctx = g->space_ctx, *dev, *host;
    ck_assert_int_eq(sp->alloc(ctx, 64, &dev), TCOMM_SUCCESS);
    unsigned char *raw = tcomm_sim_host_ptr(g, dev);
    ck_assert_uint_eq(raw[0], 0xA5);
    ck_assert_uint_eq(raw[63], 0xA5);
    ck_assert_int_eq(sp->staging(ctx, 128, &host), TCOMM_SUCCESS);
    memset(host, 7, 64);
    memset((char *)host + 64, 0, 64);
    ck_assert_int_eq(sp->from_host_async(ctx, dev, host, 32), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->record(ctx, 0), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->from_host_async(ctx, (char *)dev + 32, host, 32),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(sp->record(ctx, 1), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->to_host_async(ctx, (char *)host + 64, dev, 64),
                     TCOMM_SUCCESS);
    ck_assert_uint_eq(tcomm_sim_pending(g), 3);
    ck_assert_uint_eq(raw[0], 0xA5); /* nothing ran yet */
    ck_assert_int_eq(sp->wait(ctx, 0), TCOMM_SUCCESS);
    ck_assert_uint_eq(raw[0], 7);
    ck_assert_uint_eq(raw[32], 0xA5);
    ck_assert_int_eq(sp->wait(ctx, 1), TCOMM_SUCCESS);
    ck_assert_uint_eq(raw[32], 7);
    ck_assert_uint_eq(((unsigned char *)host)[64], 0);
    ck_assert_int_eq(sp->synchronize(ctx), TCOMM_SUCCESS);
    ck_assert_uint_eq(tcomm_sim_pending(g), 0);
    ck_assert_uint_eq(((unsigned char *)host)[127], 7);
    ck_assert_int_eq(sp->record(ctx, TCOMM_MEMSPACE_SLOTS),
                     TCOMM_ERR_INTERNAL);
    sp->free(ctx, dev);
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_SUCCESS);
}
END_TEST

/* The sim "kernels" are the host kernels, run in stream order. */
START_TEST(test_sim_kernels)
{
    tcomm_graph_t *g;
    ck_assert_int_eq(tcomm_graph_create_sim_flags(0, TCOMM_SIM_TAGGED, &g),
                     TCOMM_SUCCESS);
    const tcomm_memspace_t *sp = g->space;
    void *ctx = g->space_ctx, *a, *b, *c;
    float x[24], y[24], want[24], got[24];
    size_t seg[3] = { 1, 3, 2 };
    for (int i = 0; i < 24; i++) {
        x[i] = (float)i;
        y[i] = (float)(100 - i);
    }
    ck_assert_int_eq(sp->alloc(ctx, sizeof x, &a), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->alloc(ctx, sizeof x, &b), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->alloc(ctx, sizeof x, &c), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->from_host(ctx, a, x, sizeof x), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->from_host(ctx, b, y, sizeof y), TCOMM_SUCCESS);
    /* a = split(unpack(pack(a op b) / 2)) */
    ck_assert_int_eq(sp->reduce(ctx, TCOMM_F32, TCOMM_MAX, a, b, 24),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(sp->divide(ctx, TCOMM_F32, a, 24, 2.0), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->scatter_pack(ctx, a, b, 4, 4, 3, 2), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->gather_unpack(ctx, b, c, 4, 4, 3, seg),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(sp->split_pack(ctx, c, b, 4, 4, 3, seg), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->copy_async(ctx, a, b, sizeof x), TCOMM_SUCCESS);
    ck_assert_int_eq(sp->to_host(ctx, got, a, sizeof got), TCOMM_SUCCESS);
    float t1[24], t2[24], t3[24];
    memcpy(t1, x, sizeof x);
    tcomm_host_reduce(TCOMM_F32, TCOMM_MAX, t1, y, 24);
    tcomm_host_divide(TCOMM_F32, t1, 24, 2.0);
    tcomm_host_scatter_pack(t1, t2, 4, 4, 3, 2);
    tcomm_host_gather_unpack(t2, t3, 4, 4, 3, seg);
    tcomm_host_split_pack(t3, want, 4, 4, 3, seg);
    ck_assert_mem_eq(got, want, sizeof got);
    /* split_pack is gather_unpack's inverse */
    tcomm_host_gather_unpack(want, t2, 4, 4, 3, seg);
    ck_assert_mem_eq(t2, t3, sizeof t2);
    sp->free(ctx, a);
    sp->free(ctx, b);
    sp->free(ctx, c);
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_SUCCESS);
}
END_TEST

START_TEST(test_sim_bad_args)
{
    tcomm_graph_t *g = NULL;
    ck_assert_int_eq(tcomm_graph_create_sim(-1, &g), TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_null(g);
    ck_assert_int_eq(tcomm_graph_create_sim(0, NULL), TCOMM_ERR_INVALID_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device_space");
    TCase *tc = tcase_create("sim");
    tcase_add_test(tc, test_cuda_graph_unsupported);
    tcase_add_loop_test(tc, test_sim_tensor_roundtrip, 0, 2);
    tcase_add_test(tc, test_sim_stream);
    tcase_add_test(tc, test_sim_kernels);
    tcase_add_test(tc, test_sim_bad_args);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
