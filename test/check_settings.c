/* SPDX-License-Identifier: BSD-3-Clause */
/* When and how the settings are read (issue 27). In one process, in
 * order, without forking:
 * - the point: the first tcomm_graph_create (or communicator) reads
 *   every setting; before, the first call that needed one did, so an
 *   8 KiB tensor (the arena's TCOMM_SINGLE_COPY) fixed TCOMM_CHECK and
 *   TCOMM_DEBUG while a 1 KiB one left them to a later setenv;
 * - tcomm_config_reload publishes a new snapshot: a reader's pointer
 *   keeps the values it read (before, it was overwritten in place while
 *   other threads read it);
 * - what the parsers accept is what their messages say, and a staging
 *   chunk too small to pipeline is refused. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm.h"
#include "tcomm_config.h"
#include "check_main.h"

START_TEST(read_at_the_first_graph)
{
    setenv("TCOMM_CHECK", "0", 1);
    setenv("TCOMM_DEBUG", "NONE", 1);
    tcomm_graph_t *g = NULL;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    setenv("TCOMM_CHECK", "1", 1);
    setenv("TCOMM_DEBUG", "INFO", 1);
    size_t shape[1] = {2048}; /* 8 KiB: an arena tensor */
    tcomm_tensor_t *t = NULL;
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &t),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_config()->check, 0);
    ck_assert_int_eq(tcomm_config()->debug, 0);
    tcomm_tensor_release(t);
    tcomm_graph_destroy(g);
}
END_TEST

START_TEST(reload_keeps_a_readers_snapshot)
{
    const tcomm_config_t *before = tcomm_config();
    int check = before->check;
    setenv("TCOMM_CHECK", check ? "0" : "1", 1);
    tcomm_config_reload();
    ck_assert_int_eq(before->check, check);
    ck_assert_int_eq(tcomm_config()->check, !check);
    ck_assert_ptr_ne(tcomm_config(), before);
}
END_TEST

START_TEST(parsers_say_what_they_accept)
{
    char err[256];
    int b = -1;
    size_t bytes = 0;
    ck_assert_int_eq(tcomm_parse_bool("maybe", &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "yes") && strstr(err, "off"), "%s", err);
    ck_assert_int_eq(tcomm_parse_tristate("maybe", &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "auto") && strstr(err, "true"), "%s", err);
    ck_assert_int_eq(tcomm_parse_tristate("on", &b, err, sizeof err), 0);
    ck_assert_int_eq(b, 1);

    ck_assert_int_eq(tcomm_parse_chunk("1", &bytes, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "64 bytes") && strstr(err, "1M"), "%s", err);
    ck_assert_int_eq(tcomm_parse_chunk("63", &bytes, err, sizeof err), -1);
    ck_assert_int_eq(tcomm_parse_chunk("64", &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(bytes, 64);
    ck_assert_int_eq(tcomm_parse_chunk("1M", &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(bytes, 1u << 20);
    ck_assert_int_eq(tcomm_parse_chunk("x", &bytes, err, sizeof err), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("settings");
    TCase *tc = tcase_create("settings");
    /* in this order, in this process: the first reads the settings */
    tcase_add_test(tc, read_at_the_first_graph);
    tcase_add_test(tc, reload_keeps_a_readers_snapshot);
    tcase_add_test(tc, parsers_say_what_they_accept);
    suite_add_tcase(s, tc);
    return tcomm_check_run_nofork(s);
}
