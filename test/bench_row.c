/* SPDX-License-Identifier: BSD-3-Clause */
/* Check suite of the harness's rows as printed: however wide a figure
 * (a Gloo row's 7945.12 us against MPI's 0.66, Ratio 11988.122; a 1 GiB
 * size), every column stays apart from the next by at least one space,
 * so that a row splits into exactly its columns (issue 27). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_nonblocking.h"
#include "bench_output.h"
#include "check_main.h"

/* The fields of the line that print(r, res) writes to stdout. */
static int fields(void (*print)(const bench_run_t *, const void *),
                  const bench_run_t *r, const void *res, char *line,
                  size_t len)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fileno(f), STDOUT_FILENO);
    print(r, res);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    rewind(f);
    ck_assert_ptr_nonnull(fgets(line, (int)len, f));
    fclose(f);
    int n = 0;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line);
    for (char *t = strtok(copy, " \n"); t; t = strtok(NULL, " \n"))
        n++;
    return n;
}

static void row(const bench_run_t *r, const void *res)
{
    bench_print_row(r, res);
}

static void nb_row(const bench_run_t *r, const void *res)
{
    bench_nb_print_row(r, res);
}

START_TEST(wide_figures_stay_apart)
{
    bench_opts_t o = {.full = 1, .validate = 1, .baseline = 1};
    bench_run_t r = {.opt = &o, .coll = bench_coll_find("allreduce"),
                     .np = 2, .bytes = (size_t)1 << 30};
    bench_result_t res = {
        .bytes = (size_t)1 << 30, .iters = 123456789012L,
        .avg_us = 123456789012.25, .min_us = 123456789012.25,
        .max_us = 123456789012.25, .med_us = 7945.12, .has_mpi = 1,
        .mpi_avg_us = 0.66, .mpi_med_us = 0.66, .ratio = 11988.122,
        .bound_us = 123456789012.5, .valid = 1};
    char line[1024];
    /* size, avg, min, max, iterations, algbw, busbw, bound, MPI call,
     * MPI avg, med, MPI med, ratio, validation */
    int n = fields(row, &r, &res, line, sizeof line);
    ck_assert_msg(n == 14, "%d fields, not 14: %s", n, line);
}
END_TEST

START_TEST(wide_nonblocking_figures_stay_apart)
{
    bench_opts_t o = {.validate = 1, .baseline = 1, .blocking_ref = 1,
                      .nonblocking = 1};
    bench_run_t r = {.opt = &o, .coll = bench_coll_find("allreduce"),
                     .np = 2};
    bench_nb_side_t wide = {123456789012.25, 123456789012.25,
                            123456789012.25, 12345678.25};
    bench_nb_result_t res = {.bytes = (size_t)1 << 30, .tc = wide,
                             .mpi = wide, .has_mpi = 1,
                             .blocking_us = 123456789012.25, .valid = 1};
    char line[1024];
    /* size, 4 tcomm, blocking, 4 MPI, validation */
    int n = fields(nb_row, &r, &res, line, sizeof line);
    ck_assert_msg(n == 11, "%d fields, not 11: %s", n, line);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bench_row");
    TCase *tc = tcase_create("columns");
    tcase_add_test(tc, wide_figures_stay_apart);
    tcase_add_test(tc, wide_nonblocking_figures_stay_apart);
    suite_add_tcase(s, tc);
    return tcomm_check_run_nofork(s);
}
