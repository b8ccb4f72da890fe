/* SPDX-License-Identifier: BSD-3-Clause */
/* Check suite of the harness's row of one size (bench_combine): crafted
 * ranks' figures whose own ratios differ, as a broadcast's root and
 * receivers do, must give Ratio = Med / MPI Med of the row and
 * diff = Med - MPI Med, not the mean of the ranks' own ratios. */
#include <check.h>
#include <math.h>

#include "bench_timing.h"

/* One rank's figures: Avg = Med, Best = Med (enough for the row). */
static void figures(double *f, double med, double mpi_med)
{
    f[BENCH_FIG_AVG] = f[BENCH_FIG_MED] = f[BENCH_FIG_BEST] = med;
    f[BENCH_FIG_MPI_AVG] = f[BENCH_FIG_MPI_MED] = mpi_med;
    f[BENCH_FIG_MPI_BEST] = mpi_med;
}

START_TEST(ratio_is_the_quotient_of_the_mean_medians)
{
    /* root: 0.40 against an eager MPI_Bcast of 0.10 (its own ratio 4);
     * receiver: 0.50 against 0.50 (1). The mean of the ratios is 2.5;
     * the row's Med is 0.45, MPI Med 0.30, so Ratio 1.5. */
    double a[BENCH_FIGS], b[BENCH_FIGS], tot[BENCH_FIGS];
    figures(a, 0.40, 0.10);
    figures(b, 0.50, 0.50);
    for (int i = 0; i < BENCH_FIGS; i++)
        tot[i] = a[i] + b[i];
    bench_result_t res = {0};
    bench_combine(&res, tot, 2.0, 0.40, 0.50);
    ck_assert_double_eq_tol(res.med_us, 0.45, 1e-12);
    ck_assert_double_eq_tol(res.mpi_med_us, 0.30, 1e-12);
    ck_assert_double_eq_tol(res.ratio, 1.5, 1e-12);
    ck_assert_double_eq_tol(res.diff_us, 0.15, 1e-12);
    ck_assert_double_eq_tol(res.avg_us, 0.45, 1e-12);
    ck_assert_double_eq_tol(res.mpi_avg_us, 0.30, 1e-12);
    ck_assert_double_eq_tol(res.best_us, 0.45, 1e-12);
    ck_assert_double_eq_tol(res.mpi_best_us, 0.30, 1e-12);
    ck_assert_double_eq(res.min_us, 0.40);
    ck_assert_double_eq(res.max_us, 0.50);
}
END_TEST

START_TEST(three_ranks)
{
    /* own ratios 3, 1.25, 1 (mean 1.75); Med 0.5, MPI Med 0.3 */
    double tot[BENCH_FIGS] = {0}, f[BENCH_FIGS];
    const double med[3] = {0.3, 0.5, 0.7}, mpi[3] = {0.1, 0.4, 0.4};
    for (int k = 0; k < 3; k++) {
        figures(f, med[k], mpi[k]);
        for (int i = 0; i < BENCH_FIGS; i++)
            tot[i] += f[i];
    }
    bench_result_t res = {0};
    bench_combine(&res, tot, 3.0, 0.3, 0.7);
    ck_assert_double_eq_tol(res.ratio, 0.5 / 0.3, 1e-12);
    ck_assert_double_eq_tol(res.diff_us, 0.2, 1e-12);
}
END_TEST

START_TEST(slowest_thread)
{
    /* --backend local: tot is the slowest thread's figures, div 1 */
    double tot[BENCH_FIGS];
    figures(tot, 2.0, 0.5);
    bench_result_t res = {0};
    bench_combine(&res, tot, 1.0, 1.0, 2.0);
    ck_assert_double_eq_tol(res.med_us, 2.0, 1e-12);
    ck_assert_double_eq_tol(res.ratio, 4.0, 1e-12);
    ck_assert_double_eq_tol(res.diff_us, 1.5, 1e-12);
}
END_TEST

START_TEST(no_baseline)
{
    /* no MPI call timed: ratio 0 rather than a division by zero */
    double tot[BENCH_FIGS];
    figures(tot, 1.0, 0.0);
    bench_result_t res = {0};
    bench_combine(&res, tot, 1.0, 1.0, 1.0);
    ck_assert_double_eq(res.ratio, 0.0);
    ck_assert(isfinite(res.diff_us));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bench_combine");
    TCase *tc = tcase_create("row");
    tcase_add_test(tc, ratio_is_the_quotient_of_the_mean_medians);
    tcase_add_test(tc, three_ranks);
    tcase_add_test(tc, slowest_thread);
    tcase_add_test(tc, no_baseline);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
