/* SPDX-License-Identifier: BSD-3-Clause */
/* Results of one message size and how the harness prints them. */
#ifndef TCOMM_BENCH_OUTPUT_H
#define TCOMM_BENCH_OUTPUT_H

#include <stdio.h>

#include "tcomm_bench.h"

typedef struct {
    size_t bytes;
    long iters;       /* timed calls per side */
    double avg_us;    /* mean over ranks of each rank's mean (OSU) */
    double min_us;    /* min over ranks of each rank's mean */
    double max_us;    /* max over ranks of each rank's mean */
    double med_us;    /* mean over ranks of the median block mean */
    int has_mpi;      /* the baseline ran at this size */
    double mpi_avg_us;
    double mpi_med_us;
    double ratio;     /* med_us / mpi_med_us (bench_combine) */
    double diff_us;   /* med_us - mpi_med_us */
    double best_us;   /* mean over ranks of the fastest block's mean */
    double mpi_best_us;
    int valid;        /* -c: every element on every rank matched */
    int mpi_form;     /* the formulation the MPI columns are of: the
                         fastest (lowest mpi_med_us) of bench_mpi_forms */
    int mpi_forms;
    double alt_mpi_med_us; /* the other formulation's (mpi_forms 2) */
    double bound_us;  /* bench_traffic_at: any algorithm's; 0: none */
    bench_terms_t terms; /* the two lower bounds it is the larger of */
    double single_copy_us; /* bench_bound_at: a single-copy algorithm's */
    double copy_gbs, add_gbs; /* the rates that one rests on */
} bench_result_t;

/* One column of a table: the value printf makes of @p fmt, right-aligned
 * in @p width after at least one space, so that a figure wider than its
 * column still stands apart from the one before. */
void bench_col(int width, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The title and settings, the sizes skipped or rounded, the column heads
 * (setup of each size runs again on @p r). */
void bench_print_header(bench_run_t *r);
void bench_print_row(const bench_run_t *r, const bench_result_t *res);
FILE *bench_json_open(const bench_run_t *r);
void bench_json_row(FILE *f, const bench_run_t *r, const bench_result_t *res,
                    int first);
int bench_json_close(FILE *f);

#endif /* TCOMM_BENCH_OUTPUT_H */
