/* SPDX-License-Identifier: BSD-3-Clause */
/* Timing of one message size. The timed calls are split into
 * BENCH_BLOCKS blocks; with --baseline each tcomm block is followed (or,
 * every other block, preceded) by a block of the raw MPI call, so machine
 * noise hits both alike. As in the OSU benchmarks, every call starts
 * after a barrier and only the call is timed: a collective's latency when
 * the ranks arrive together, not the rate at which a root can inject
 * back-to-back broadcasts (an eager MPI_Bcast returns on the root before
 * anyone received it, so a loop of them hides the latency that any
 * synchronizing call, such as the checked mode's agreement, shows).
 * A rank's latency is its mean over all calls (OSU's Avg) and the median
 * of its block means (Med, robust to a preempted block). The ratio and the
 * difference tcomm - MPI are medians over the pairs of adjacent blocks,
 * so that load that drifts slowly on a shared machine cancels. The
 * fastest block of each side (Best) is kept too: on a loaded machine it
 * is the closest to the undisturbed latency. The clock is the harness's
 * own monotonic one, the same for every backend (bench_now). */
#include <stdio.h>
#include <stdlib.h>

#include "bench_timing.h"

static void fail_tcomm(const bench_run_t *r, tcomm_status_t st)
{
    fprintf(stderr, "%s: rank %d: %s failed at %zu bytes: %s: %s\n",
            r->opt->prog, r->rank, r->coll->name, r->bytes,
            tcomm_status_string(st), tcomm_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void bench_call(bench_run_t *r)
{
    tcomm_status_t st = r->coll->run(r);
    if (st != TCOMM_SUCCESS)
        fail_tcomm(r, st);
}

/* Seconds spent in @p n calls of one side, each after a barrier. */
static double time_block(bench_run_t *r, int mpi, long n)
{
    double total = 0.0;
    for (long i = 0; i < n; i++) {
        bench_sync_barrier(r);
        double t0 = bench_now();
        if (mpi) {
            r->coll->baseline(r); /* MPI errors are fatal on r->mpi */
        } else {
            tcomm_status_t st = r->coll->run(r);
            if (st != TCOMM_SUCCESS)
                fail_tcomm(r, st);
        }
        total += bench_now() - t0;
    }
    return total;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The timed calls per side: -i, capped by --max-time from the warm-up's
 * latency but at least BENCH_MIN_ITERS; rank 0 decides so that every
 * rank runs the same count. */
static long pick_iters(bench_run_t *r, long iters, double warm_s,
                       long warm_n)
{
    if (r->opt->max_time > 0.0) {
        if (warm_n == 0) {
            warm_s = time_block(r, 0, 1);
            warm_n = 1;
        }
        double lat = warm_s / (double)warm_n;
        long cap = lat > 0.0 ? (long)(r->opt->max_time / lat) : iters;
        if (cap < iters)
            iters = cap;
        if (iters < BENCH_MIN_ITERS)
            iters = BENCH_MIN_ITERS;
        bench_sync_bcast_long(r, &iters);
    }
    return iters;
}

void bench_time_size(bench_run_t *r, bench_result_t *res)
{
    const bench_opts_t *o = r->opt;
    int large = r->bytes > BENCH_LARGE_MESSAGE;
    long iters = large ? o->iters_large : o->iters;
    long warmup = large ? o->warmup_large : o->warmup;
    int base = o->baseline && r->mpi_count > 0;

    /* warm-up, both sides; --max-time caps it at a quarter of the cap */
    bench_sync_barrier(r);
    double t0 = bench_now();
    for (long i = 0; i < warmup; i++) {
        bench_call(r);
        if (i == 0 && o->max_time > 0.0) {
            double first = bench_now() - t0;
            long cap = first > 0.0 ? (long)(o->max_time / 4 / first) : 1;
            cap = cap < 2 ? 2 : cap; /* the same on every rank: */
            bench_sync_bcast_long(r, &cap);
            warmup = cap < warmup ? cap : warmup;
        }
    }
    double warm_s = bench_now() - t0;
    for (long i = 0; base && i < warmup; i++)
        r->coll->baseline(r);
    iters = pick_iters(r, iters, warm_s, warmup);

    int nb = iters < BENCH_BLOCKS ? (int)iters : BENCH_BLOCKS;
    long per = iters / nb;
    double blk[BENCH_BLOCKS], mblk[BENCH_BLOCKS], rat[BENCH_BLOCKS];
    double dif[BENCH_BLOCKS], sum = 0.0, msum = 0.0;
    for (int b = 0; b < nb; b++) {
        int mpi_first = base && (b % 2);
        if (mpi_first)
            mblk[b] = time_block(r, 1, per);
        blk[b] = time_block(r, 0, per);
        if (base && !mpi_first)
            mblk[b] = time_block(r, 1, per);
        sum += blk[b];
        msum += base ? mblk[b] : 0.0;
        blk[b] *= 1e6 / (double)per;
        mblk[b] = base ? mblk[b] * 1e6 / (double)per : 0.0;
        rat[b] = mblk[b] > 0.0 ? blk[b] / mblk[b] : 1.0;
        dif[b] = blk[b] - mblk[b];
    }
    res->bytes = r->bytes;
    res->iters = per * nb;
    res->has_mpi = base;

    /* across ranks: mean, min, max of the means; mean of the medians.
     * Threads of the local backend report the slowest thread instead:
     * they run one collective together, which ends with the last. */
    int threads = o->backend == BENCH_BACKEND_LOCAL;
    double mine[8] = {sum * 1e6 / (double)res->iters, median(blk, nb),
                      msum * 1e6 / (double)res->iters, median(mblk, nb),
                      median(rat, nb), median(dif, nb), blk[0], mblk[0]};
    double tot[8], lo, hi, div = threads ? 1.0 : (double)r->np;
    bench_sync_doubles(r, mine, tot, 8, threads ? BENCH_MAX : BENCH_SUM);
    bench_sync_doubles(r, &mine[0], &lo, 1, BENCH_MIN);
    bench_sync_doubles(r, &mine[0], &hi, 1, BENCH_MAX);
    res->avg_us = tot[0] / div;
    res->med_us = tot[1] / div;
    res->mpi_avg_us = tot[2] / div;
    res->mpi_med_us = tot[3] / div;
    res->ratio = tot[4] / div;
    res->diff_us = tot[5] / div;
    res->best_us = tot[6] / div; /* blk[] is sorted by median() */
    res->mpi_best_us = tot[7] / div;
    res->min_us = lo;
    res->max_us = hi;
}
