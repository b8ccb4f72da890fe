/* SPDX-License-Identifier: BSD-3-Clause */
/* --vary: every timed call, tcomm's and the MPI baseline's alike, finds
 * input data that differ from the previous call's, written just before
 * the call's barrier (outside the timed region), as the coll/xhc team's
 * data-varying OSU variants (osu_allreduce_dv.c) do. Without it a loop
 * over one unchanged buffer lets a rank read a peer's input out of its
 * own cache, where the previous call left a clean copy of those lines;
 * rewriting them takes that copy away, so each call pays for the data
 * moving between the cores again.
 * Rotating through buffers larger than the last-level cache was the other
 * way: with the L3 of this machine (480 MiB, doc/performance.md) the
 * rotation would need gigabytes per run, so the rewrite it is.
 * Call g's input is the run's input pattern shifted by g % SHIFTS
 * elements: element i holds value(rank, i + shift), so the expected
 * output is known (bench_input_value) and every element changes from one
 * call to the next (bench_value's period is 8 = SHIFTS, with
 * consecutive values distinct). The rewrite is one memcpy from a pattern
 * filled once per size, so that a 16 MiB size costs a copy, not a
 * conversion per element.
 * The output of the last tcomm call of each size (and the baseline's,
 * where it reduces in the run's dtype) is compared with the expected
 * values: a result that does not follow its input is a Fail. The
 * environment variable TCOMM_BENCH_FAULT=stale-input (for the tests
 * only) skips the data rewrite of the last checked call while the
 * expected values move on, which a correct check must catch. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_bench.h"

#define SHIFTS 8

static size_t in_bytes(const bench_run_t *r)
{
    return r->in_count * r->esize;
}

double bench_input_value(const bench_run_t *r, int rank, size_t i)
{
    double (*value)(int, size_t) = r->coll->value ? r->coll->value
                                                  : bench_value;
    return value(rank, i + r->vary_shift);
}

int bench_vary_alloc(bench_run_t *r)
{
    if (!r->opt->vary || !r->coll->sized)
        return 1;
    r->vary_src = malloc(r->in_cap + SHIFTS * 8);
    return r->vary_src != NULL;
}

void bench_vary_free(bench_run_t *r)
{
    free(r->vary_src);
    r->vary_src = NULL;
}

/* The pattern of this size: value(rank, j) for j < in_count + SHIFTS, in
 * the run's dtype; the input of shift s starts at its element s. */
void bench_vary_size(bench_run_t *r)
{
    if (!r->vary_src)
        return;
    size_t keep = r->vary_shift, n = r->in_count + SHIFTS;
    r->vary_shift = 0;
    for (size_t i = 0; i < n; i++) {
        double v = bench_input_value(r, r->rank, i);
        bench_store(r->opt->dtype, r->vary_src, i, v);
    }
    r->vary_shift = keep;
    r->vary_gen = 0;
}

/* The broadcast's input is the root's buffer alone: the others' is its
 * output, which the call overwrites. */
static int has_input(const bench_run_t *r)
{
    return r->coll->kind != BENCH_BCAST || r->rank == 0;
}

void bench_vary_next(bench_run_t *r)
{
    if (!r->vary_src)
        return;
    r->vary_gen++;
    r->vary_shift = r->vary_gen % SHIFTS;
    if (has_input(r))
        memcpy(r->in_buf, (char *)r->vary_src + r->vary_shift * r->esize,
               in_bytes(r));
}

/* The fault the check must catch: the last call's input left as the one
 * before it (the expected values do move on). */
static int fault_stale(void)
{
    const char *f = getenv("TCOMM_BENCH_FAULT");
    return f && strcmp(f, "stale-input") == 0;
}

void bench_vary_last(bench_run_t *r)
{
    if (!r->vary_src)
        return;
    if (!fault_stale()) {
        bench_vary_next(r);
        return;
    }
    r->vary_gen++;
    r->vary_shift = r->vary_gen % SHIFTS;
}

size_t bench_vary_check(const bench_run_t *r, const void *out,
                        const char *side)
{
    size_t bad = bench_compare(r, out);
    if (bad)
        fprintf(stderr, "%s: rank %d: --vary: %zu of %zu elements of %s's "
                "output wrong at %zu bytes (input shifted by %zu)\n",
                r->opt->prog, r->rank, bad, r->out_count, side, r->bytes,
                r->vary_shift);
    return bad;
}
