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

#endif /* TCOMM_BENCH_TIMING_H */
