/* SPDX-License-Identifier: BSD-3-Clause */
/* Check suites: tensors (creation, limits, reference counts, to_host,
 * add) and the identity communicator (world size 1, zero copy). */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "tcomm_internal.h"

static const tcomm_device_t HOST = {TCOMM_DEVICE_HOST, 0};
static tcomm_graph_t *g, *g2;

static void setup(void)
{
    ck_assert_int_eq(tcomm_graph_create(HOST, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_graph_create(HOST, &g2), TCOMM_SUCCESS);
}

static void teardown(void)
{
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_graph_destroy(g2), TCOMM_SUCCESS);
}

START_TEST(from_host_round_trip_every_rank_count)
{
    double data[24], back[24];
    for (int i = 0; i < 24; i++)
        data[i] = i * 1.5 - 3;
    size_t shape[8] = {2, 3, 4, 1, 1, 1, 1, 1};
    for (int nd = 0; nd <= TCOMM_MAX_DIMS; nd++) {
        tcomm_tensor_t *t;
        ck_assert_int_eq(
            tcomm_tensor_from_host(g, TCOMM_F64, data, nd, shape, &t),
            TCOMM_SUCCESS);
        size_t n = tcomm_shape_prod(shape, 0, nd);
        ck_assert_uint_eq(tcomm_tensor_numel(t), n);
        ck_assert_int_eq(tcomm_tensor_ndim(t), nd);
        ck_assert_uint_eq(tcomm_tensor_graph_id(t), tcomm_graph_id(g));
        ck_assert_ptr_eq(tcomm_tensor_graph(t), g);
        ck_assert_int_eq(tcomm_tensor_dtype(t), TCOMM_F64);
        memset(back, 0, sizeof back);
        ck_assert_int_eq(tcomm_tensor_to_host(t, back, sizeof back),
                         TCOMM_SUCCESS);
        ck_assert_int_eq(memcmp(back, data, n * sizeof(double)), 0);
        ck_assert_uint_eq(tcomm_tensor_dim(t, nd), 0);
        tcomm_tensor_release(t);
    }
}
END_TEST

START_TEST(empty_is_zero_and_refcounted)
{
    size_t shape[2] = {3, 5};
    tcomm_tensor_t *t;
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_I32, 2, shape, &t),
                     TCOMM_SUCCESS);
    const int32_t *p = tcomm_tensor_data(t);
    for (int i = 0; i < 15; i++)
        ck_assert_int_eq(p[i], 0);
    ck_assert_ptr_eq(tcomm_tensor_retain(t), t);
    tcomm_tensor_release(t);
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_ERR_INVALID_ARG);
    tcomm_tensor_release(t);
    tcomm_tensor_release(NULL);
}
END_TEST

START_TEST(wrap_is_zero_copy)
{
    float buf[6] = {1, 2, 3, 4, 5, 6};
    size_t shape[2] = {2, 3};
    tcomm_tensor_t *t;
    ck_assert_int_eq(tcomm_tensor_wrap(g, TCOMM_F32, buf, 2, shape, &t),
                     TCOMM_SUCCESS);
    ck_assert_ptr_eq(tcomm_tensor_data(t), buf);
    tcomm_tensor_release(t);
    ck_assert_float_eq(buf[5], 6); /* the caller's buffer outlives it */
    ck_assert_int_eq(tcomm_tensor_wrap(g, TCOMM_F32, NULL, 2, shape, &t),
                     TCOMM_ERR_INVALID_ARG);
}
END_TEST

START_TEST(const_like_lands_on_the_anchors_graph)
{
    uint8_t v[3] = {1, 2, 3};
    size_t shape[1] = {3};
    tcomm_tensor_t *a, *b;
    ck_assert_int_eq(tcomm_tensor_from_host(g2, TCOMM_U8, v, 1, shape, &a),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_const_like(a, TCOMM_U8, v, 1, shape, &b),
                     TCOMM_SUCCESS);
    ck_assert_uint_eq(tcomm_tensor_graph_id(b), tcomm_graph_id(g2));
    ck_assert_int_eq(tcomm_tensor_const_like(NULL, TCOMM_U8, v, 1, shape,
                                             &b),
                     TCOMM_ERR_INVALID_ARG);
    tcomm_tensor_release(a);
    tcomm_tensor_release(b);
}
END_TEST

START_TEST(bad_shapes_and_dtypes)
{
    size_t shape[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    size_t huge[2] = {SIZE_MAX / 2, 4};
    tcomm_tensor_t *t = (tcomm_tensor_t *)0x1;
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 9, shape, &t),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "ndim 9"));
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, -1, shape, &t),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_tensor_empty(g, (tcomm_dtype_t)42, 1, shape, &t),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 2, huge, &t),
                     TCOMM_ERR_SHAPE);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "overflows"));
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 2, NULL, &t),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_tensor_empty(NULL, TCOMM_F32, 1, shape, &t),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_F32, NULL, 1, shape, &t),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_eq(t, (tcomm_tensor_t *)0x1); /* *out untouched */
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, shape, NULL),
                     TCOMM_ERR_INVALID_ARG);
}
END_TEST

START_TEST(to_host_rejects_small_buffers)
{
    int64_t v[4] = {1, 2, 3, 4}, out[4] = {0};
    size_t shape[1] = {4};
    tcomm_tensor_t *t;
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_I64, v, 1, shape, &t),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_to_host(t, out, 31), TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "at least 32 bytes"));
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(tcomm_tensor_to_host(t, NULL, 64), TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_tensor_to_host(NULL, out, 64),
                     TCOMM_ERR_INVALID_ARG);
    tcomm_tensor_release(t);
}
END_TEST

/* Host blocks: cache-line aligned, page aligned from 1 MiB, and a freed
 * large block serves the next request of half its size or more (the
 * allocating collectives in a loop get no fresh pages). */
START_TEST(host_blocks_aligned_and_reused)
{
    size_t small[1] = {100}, big[1] = {1 << 20}, part[1] = {3 << 18};
    size_t tiny[1] = {1 << 17};
    tcomm_tensor_t *a = NULL, *b = NULL;
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, small, &a),
                     TCOMM_SUCCESS);
    ck_assert_uint_eq((uintptr_t)tcomm_tensor_data(a) % 64, 0);
    tcomm_tensor_release(a);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, big, &a),
                     TCOMM_SUCCESS); /* 4 MiB */
    void *data = tcomm_tensor_data(a);
    ck_assert_uint_eq((uintptr_t)data % 4096, 0);
    memset(data, 7, 4u << 20); /* all of it is ours */
    tcomm_tensor_release(a);
    ck_assert_int_eq(tcomm_tensor_empty(g2, TCOMM_F32, 1, part, &b),
                     TCOMM_SUCCESS); /* 3 MiB: the cached block */
    ck_assert_ptr_eq(tcomm_tensor_data(b), data);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, tiny, &a),
                     TCOMM_SUCCESS); /* 512 KiB: not from the cache */
    ck_assert_ptr_ne(tcomm_tensor_data(a), data);
    tcomm_tensor_release(a);
    tcomm_tensor_release(b);
}
END_TEST

START_TEST(add_is_graph_affine)
{
    float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, s[3];
    size_t shape[1] = {3}, other[1] = {2};
    tcomm_tensor_t *ta, *tb, *tc, *ts, *tx;
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_F32, a, 1, shape, &ta),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_F32, b, 1, shape, &tb),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_from_host(g2, TCOMM_F32, b, 1, shape, &tc),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_F32, b, 1, other, &tx),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_add(ta, tb, &ts), TCOMM_SUCCESS);
    ck_assert_uint_eq(tcomm_tensor_graph_id(ts), tcomm_graph_id(g));
    tcomm_tensor_to_host(ts, s, sizeof s);
    ck_assert_float_eq(s[0], 11);
    ck_assert_float_eq(s[2], 33);
    tcomm_tensor_t *keep = ts;
    ck_assert_int_eq(tcomm_tensor_add(ta, tc, &ts), TCOMM_ERR_GRAPH_MISMATCH);
    ck_assert_ptr_eq(ts, keep);
    ck_assert_int_eq(tcomm_tensor_add(ta, tx, &ts), TCOMM_ERR_SHAPE);
    tcomm_tensor_release(ts);
    tcomm_tensor_release(tx);
    tcomm_tensor_release(tc);
    tcomm_tensor_release(tb);
    tcomm_tensor_release(ta);
}
END_TEST

Suite *tensor_suite(void)
{
    Suite *s = suite_create("tensor");
    TCase *tc = tcase_create("tensor");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, from_host_round_trip_every_rank_count);
    tcase_add_test(tc, wrap_is_zero_copy);
    tcase_add_test(tc, const_like_lands_on_the_anchors_graph);
    tcase_add_test(tc, bad_shapes_and_dtypes);
    tcase_add_test(tc, to_host_rejects_small_buffers);
    tcase_add_test(tc, add_is_graph_affine);
    tcase_add_test(tc, host_blocks_aligned_and_reused);
    suite_add_tcase(s, tc);
    TCase *rc = tcase_create("refcount");
    tcase_add_test(rc, empty_is_zero_and_refcounted);
    tcase_add_unchecked_fixture(rc, setup, teardown);
    suite_add_tcase(s, rc);
    return s;
}

START_TEST(identity_returns_the_input)
{
    tcomm_comm_t *c;
    tcomm_comm_info_t info;
    ck_assert_int_eq(tcomm_comm_create_identity(&c), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_info(c, &info), TCOMM_SUCCESS);
    ck_assert_int_eq(info.rank, 0);
    ck_assert_int_eq(info.world_size, 1);
    ck_assert_str_eq(info.backend, "identity");
    float v[4] = {1, 2, 3, 4}, back[4];
    size_t shape[2] = {2, 2};
    tcomm_tensor_t *in, *out, *into;
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_F32, v, 2, shape, &in),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_all_reduce(c, in, TCOMM_AVG, &out), TCOMM_SUCCESS);
    ck_assert_ptr_eq(out, in);
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_all_gather(c, in, 1, &out), TCOMM_SUCCESS);
    ck_assert_ptr_eq(out, in);
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_reduce_scatter(c, in, TCOMM_SUM, 0, &out),
                     TCOMM_SUCCESS);
    ck_assert_ptr_eq(out, in);
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_broadcast(c, in, 0, &out), TCOMM_SUCCESS);
    ck_assert_ptr_eq(out, in);
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 2, shape, &into),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_all_gather_into(c, in, 0, into), TCOMM_SUCCESS);
    tcomm_tensor_to_host(into, back, sizeof back);
    ck_assert_int_eq(memcmp(back, v, sizeof v), 0);
    ck_assert_int_eq(tcomm_broadcast(c, in, 1, &out), TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_all_gather(c, in, 2, &out), TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_all_reduce(c, in, (tcomm_op_t)9, &out),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_barrier(c), TCOMM_SUCCESS);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    ck_assert_int_eq(tcomm_comm_destroy(c), TCOMM_SUCCESS);
}
END_TEST

Suite *identity_suite(void)
{
    Suite *s = suite_create("identity");
    TCase *tc = tcase_create("identity");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, identity_returns_the_input);
    suite_add_tcase(s, tc);
    return s;
}
