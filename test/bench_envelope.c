/* SPDX-License-Identifier: BSD-3-Clause */
/* Check suite of the Bound column's envelope (bench_traffic_envelope): a
 * size's bound is lowered to the rate of the next size up, and a bound
 * that ends below the timer's resolution is dropped (0), never printed
 * as 0.000 us (a flaky test/bench_output.sh under the sanitizer: the
 * envelope ran after the resolution's floor). */
#include <check.h>

#include "check_main.h"
#include "tcomm_bench.h"

/* Bytes 4 at 16's rate: 4's bound comes out at 0.0004 us, below Linux's
 * 1 ns resolution, so it is dropped with its rate; 16's 0.0016 us stays. */
START_TEST(lowered_below_the_resolution_is_dropped)
{
    ck_assert(bench_tick() <= 1e-9);
    size_t bytes[2] = {4, 16};
    double us[2] = {0.0015, 0.0016}, gbs[2] = {2.7, 10.0};
    bench_traffic_envelope(bytes, us, gbs, 2);
    ck_assert_double_eq(us[0], 0.0);
    ck_assert_double_eq(gbs[0], 0.0);
    ck_assert_double_eq(us[1], 0.0016);
}
END_TEST

/* Above the resolution: lowered to the larger size's rate, the rate
 * raised to match; a size already faster is kept. */
START_TEST(lowered_to_the_next_size_rate)
{
    size_t bytes[3] = {1024, 2048, 4096};
    double us[3] = {1.0, 0.5, 2.0}, gbs[3] = {1.0, 4.0, 2.0};
    bench_traffic_envelope(bytes, us, gbs, 3);
    ck_assert_double_eq_tol(us[0], 0.25, 1e-12);
    ck_assert_double_eq_tol(gbs[0], 4.0, 1e-12);
    ck_assert_double_eq(us[1], 0.5);
    ck_assert_double_eq(us[2], 2.0);
}
END_TEST

/* No bound (0) stays none, and does not lower the size below it. */
START_TEST(none_stays_none)
{
    size_t bytes[2] = {64, 128};
    double us[2] = {0.0, 0.0}, gbs[2] = {0.0, 0.0};
    bench_traffic_envelope(bytes, us, gbs, 2);
    ck_assert_double_eq(us[0], 0.0);
    ck_assert_double_eq(us[1], 0.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bench_envelope");
    TCase *tc = tcase_create("envelope");
    tcase_add_test(tc, lowered_below_the_resolution_is_dropped);
    tcase_add_test(tc, lowered_to_the_next_size_rate);
    tcase_add_test(tc, none_stays_none);
    suite_add_tcase(s, tc);
    return tcomm_check_run_nofork(s);
}
