/* SPDX-License-Identifier: BSD-3-Clause */
/* Single-process Check suites: status and errors, settings, graphs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_config.h"
#include "tcomm_internal.h"

Suite *tensor_suite(void);
Suite *identity_suite(void);

static const tcomm_device_t HOST = {TCOMM_DEVICE_HOST, 0};

START_TEST(status_strings)
{
    ck_assert_str_eq(tcomm_status_string(TCOMM_SUCCESS), "success");
    ck_assert_str_eq(tcomm_status_string(TCOMM_ERR_MISMATCH),
                     "ranks disagree");
    ck_assert_str_eq(tcomm_status_string((tcomm_status_t)-99),
                     "unknown status");
    for (int s = 0; s >= TCOMM_ERR_INTERNAL; s--)
        ck_assert_str_ne(tcomm_status_string((tcomm_status_t)s),
                         "unknown status");
}
END_TEST

START_TEST(internal_error_says_where_to_report)
{
    ck_assert_int_eq(tcomm_error(TCOMM_ERR_INTERNAL, "f: broken %d", 3),
                     TCOMM_ERR_INTERNAL);
    ck_assert_str_eq(tcomm_last_error(),
                     "f: broken 3 (a tcomm bug: please report it at "
                     "https://github.com/tcomm-project/tcomm/issues with "
                     "this sentence and tcomm_info's output)");
}
END_TEST

START_TEST(last_error_is_per_call_and_per_thread)
{
    tcomm_graph_t *g = NULL;
    ck_assert_int_eq(tcomm_graph_create(HOST, NULL), TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "tcomm_graph_create"));
    ck_assert_int_eq(tcomm_graph_create(HOST, &g), TCOMM_SUCCESS);
    ck_assert_str_eq(tcomm_last_error(), "");
    ck_assert_int_eq(tcomm_backend_error(TCOMM_ERR_MPI, "x %d", 7),
                     TCOMM_ERR_MPI);
    ck_assert_str_eq(tcomm_last_error(), "x 7");
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_SUCCESS);
}
END_TEST

START_TEST(dtype_sizes_and_names)
{
    static const size_t sizes[] = {1, 1, 4, 4, 8, 2, 2, 4, 8};
    static const char *const names[] = {"u8",  "i8",   "i32", "u32", "i64",
                                        "f16", "bf16", "f32", "f64"};
    for (int d = 0; d < TCOMM_DTYPE_COUNT; d++) {
        ck_assert_uint_eq(tcomm_dtype_size((tcomm_dtype_t)d), sizes[d]);
        ck_assert_str_eq(tcomm_dtype_name((tcomm_dtype_t)d), names[d]);
    }
    ck_assert_uint_eq(tcomm_dtype_size((tcomm_dtype_t)9), 0);
    ck_assert_uint_eq(tcomm_dtype_size((tcomm_dtype_t)-1), 0);
    ck_assert_str_eq(tcomm_op_name(TCOMM_AVG), "avg");
    int a, b, c;
    tcomm_get_version(&a, &b, &c);
    ck_assert_int_eq(a, TCOMM_VERSION_MAJOR);
    ck_assert_int_eq(b, TCOMM_VERSION_MINOR);
    ck_assert_int_eq(c, TCOMM_VERSION_PATCH);
}
END_TEST

START_TEST(settings_parsers)
{
    char err[128];
    int b = -5;
    double s = -1;
    size_t bytes = 0;
    ck_assert_int_eq(tcomm_parse_bool("1", &b, err, sizeof err), 0);
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(tcomm_parse_bool("off", &b, err, sizeof err), 0);
    ck_assert_int_eq(b, 0);
    ck_assert_int_eq(tcomm_parse_bool("2", &b, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_bool("", &b, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_level("info", &b, err, sizeof err), 0);
    ck_assert_int_eq(b, 2);
    ck_assert_int_eq(tcomm_parse_level("loud", &b, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_seconds("2.5", &s, err, sizeof err), 0);
    ck_assert(s == 2.5);
    ck_assert_int_eq(tcomm_parse_seconds("-1", &s, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_seconds("3s", &s, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_seconds("nan", &s, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_tristate("auto", &b, err, sizeof err), 0);
    ck_assert_int_eq(b, -1);
    ck_assert_int_eq(tcomm_parse_bytes("64K", &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(bytes, 65536);
    ck_assert_int_eq(tcomm_parse_bytes("3", &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(bytes, 3);
    ck_assert_int_eq(tcomm_parse_bytes("0", &bytes, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_bytes("1Q", &bytes, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_bytes("-4", &bytes, err, sizeof err), -1);
    ck_assert_int_eq(
        tcomm_parse_bytes("99999999999999999999", &bytes, err, sizeof err),
        -1);
}
END_TEST

START_TEST(settings_from_environment)
{
    setenv("TCOMM_CHECK", "0", 1);
    setenv("TCOMM_STAGING_CHUNK", "2M", 1);
    setenv("TCOMM_SINGLE_COPY", "off", 1);
    setenv("TCOMM_TIMEOUT", "bogus", 1); /* ignored, default kept */
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_config()->check, 0);
    ck_assert_uint_eq(tcomm_config()->staging_chunk, 2u << 20);
    ck_assert_int_eq(tcomm_config()->single_copy, 0);
    ck_assert(tcomm_config()->timeout_s == 0);
    unsetenv("TCOMM_CHECK");
    unsetenv("TCOMM_STAGING_CHUNK");
    unsetenv("TCOMM_SINGLE_COPY");
    unsetenv("TCOMM_TIMEOUT");
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_config()->check, 1);
    ck_assert_int_eq(tcomm_config()->single_copy, 1);
    size_t n;
    const tcomm_setting_t *t = tcomm_settings_table(&n);
    ck_assert_uint_ge(n, 7);
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        ck_assert_ptr_nonnull(t[i].description);
        tcomm_setting_value_text(i, buf, sizeof buf);
        ck_assert_str_ne(buf, "?");
    }
}
END_TEST

START_TEST(graph_ids_unique_nonzero)
{
    tcomm_graph_t *g[16];
    for (int i = 0; i < 16; i++) {
        ck_assert_int_eq(tcomm_graph_create(HOST, &g[i]), TCOMM_SUCCESS);
        ck_assert_uint_ne(tcomm_graph_id(g[i]), 0);
        for (int j = 0; j < i; j++)
            ck_assert_uint_ne(tcomm_graph_id(g[i]), tcomm_graph_id(g[j]));
    }
    tcomm_device_t d = tcomm_graph_device(g[0]);
    ck_assert_int_eq(d.kind, TCOMM_DEVICE_HOST);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(tcomm_graph_destroy(g[i]), TCOMM_SUCCESS);
}
END_TEST

START_TEST(graph_bad_arguments)
{
    tcomm_graph_t *g = (tcomm_graph_t *)0x1;
    tcomm_device_t bad_kind = {(tcomm_device_kind_t)7, 0};
    tcomm_device_t bad_index = {TCOMM_DEVICE_HOST, -1};
    ck_assert_int_eq(tcomm_graph_create(bad_kind, &g), TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "device kind 7"));
    ck_assert_int_eq(tcomm_graph_create(bad_index, &g),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_eq(g, (tcomm_graph_t *)0x1); /* untouched */
    ck_assert_uint_eq(tcomm_graph_id(NULL), 0);
}
END_TEST

START_TEST(graph_destroy_refused_while_tensors_live)
{
    tcomm_graph_t *g;
    tcomm_tensor_t *t;
    size_t shape[1] = {4};
    ck_assert_int_eq(tcomm_graph_create(HOST, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &t),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "release them"));
    tcomm_tensor_release(t);
    ck_assert_int_eq(tcomm_graph_destroy(g), TCOMM_SUCCESS);
}
END_TEST

static Suite *status_suite(void)
{
    Suite *s = suite_create("status");
    TCase *tc = tcase_create("status");
    tcase_add_test(tc, status_strings);
    tcase_add_test(tc, internal_error_says_where_to_report);
    tcase_add_test(tc, last_error_is_per_call_and_per_thread);
    tcase_add_test(tc, dtype_sizes_and_names);
    suite_add_tcase(s, tc);
    return s;
}

static Suite *settings_suite(void)
{
    Suite *s = suite_create("settings");
    TCase *tc = tcase_create("settings");
    tcase_add_test(tc, settings_parsers);
    tcase_add_test(tc, settings_from_environment);
    suite_add_tcase(s, tc);
    return s;
}

static Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("graph");
    tcase_add_test(tc, graph_ids_unique_nonzero);
    tcase_add_test(tc, graph_bad_arguments);
    tcase_add_test(tc, graph_destroy_refused_while_tensors_live);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(status_suite());
    srunner_add_suite(sr, settings_suite());
    srunner_add_suite(sr, graph_suite());
    srunner_add_suite(sr, tensor_suite());
    srunner_add_suite(sr, identity_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
