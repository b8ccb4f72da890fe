/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking programs osu_tcomm_i<collective> (bench_nonblocking.c):
 * OSU's nonblocking layout (osu_iallreduce and the others). */
#ifndef TCOMM_BENCH_NONBLOCKING_H
#define TCOMM_BENCH_NONBLOCKING_H

#include <stdio.h>

#include "tcomm_bench.h"

/* One side's figures of one size, means over the ranks (OSU). */
typedef struct {
    double overall_us; /* start + compute + wait */
    double compute_us; /* the compute alone */
    double pure_us;    /* start + wait, nothing between */
    double overlap;    /* percent, OSU's formula */
} bench_nb_side_t;

typedef struct {
    size_t bytes;
    long iters;           /* timed calls per loop */
    bench_nb_side_t tc;   /* tcomm_*_start + tcomm_wait */
    bench_nb_side_t mpi;  /* --baseline: MPI_I* + MPI_Wait */
    int has_mpi;
    double blocking_us;   /* --blocking-ref: the blocking tcomm call */
    int valid;
} bench_nb_result_t;

/* One start + compute + wait of the current size (-c); aborts on error. */
void bench_nb_call(bench_run_t *r);
/* Both loops of each side (tcomm, MPI with --baseline) and the blocking
 * call with --blocking-ref; fills all of @p res but valid. Collective. */
void bench_nb_time_size(bench_run_t *r, bench_nb_result_t *res);
/* Rank 0 only. */
void bench_nb_print_header(bench_run_t *r);
void bench_nb_print_row(const bench_run_t *r, const bench_nb_result_t *res);
void bench_nb_json(FILE *f, const bench_run_t *r);
void bench_nb_json_row(FILE *f, const bench_run_t *r,
                       const bench_nb_result_t *res, int first);

#endif /* TCOMM_BENCH_NONBLOCKING_H */
