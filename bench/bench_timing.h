/* SPDX-License-Identifier: BSD-3-Clause */
/* Timing of one message size (bench_timing.c). */
#ifndef TCOMM_BENCH_TIMING_H
#define TCOMM_BENCH_TIMING_H

#include "bench_output.h"
#include "tcomm_bench.h"

/* One tcomm call of the current size; aborts the job if it fails. */
void bench_call(bench_run_t *r);
/* Warm-up, then the timed blocks (interleaved with the baseline);
 * fills every field of @p res but valid. Collective over the world. */
void bench_time_size(bench_run_t *r, bench_result_t *res);

/* A rank's own figures of one size, in microseconds. */
enum {
    BENCH_FIG_AVG, BENCH_FIG_MED, BENCH_FIG_MPI_AVG, BENCH_FIG_MPI_MED,
    BENCH_FIG_BEST, BENCH_FIG_MPI_BEST, BENCH_FIGS
};
/* The latency, ratio and difference fields of @p res from the ranks'
 * figures combined figure by figure: @p tot holds their sums (@p div: the
 * number of ranks) or the slowest rank's (@p div 1); @p lo and @p hi are
 * the least and largest Avg. ratio = med_us / mpi_med_us (0 when that is
 * 0) and diff_us = med_us - mpi_med_us, so that a row's Ratio is its Med
 * over its MPI Med, whatever each rank's own ratio was. */
void bench_combine(bench_result_t *res, const double *tot, double div,
                   double lo, double hi);

#endif /* TCOMM_BENCH_TIMING_H */
