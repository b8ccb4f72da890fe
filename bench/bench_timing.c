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
 * of its block means (Med, robust to a preempted block); the blocks of
 * both sides span the same time, so load that drifts slowly on a shared
 * machine moves both medians alike. The fastest block of each side
 * (Best) is kept too: on a loaded machine it is the closest to the
 * undisturbed latency. The row combines each figure over the ranks, and
 * its ratio and difference tcomm vs MPI are those of the combined Med
 * columns (bench_combine), not a mean of the ranks' own ratios: a
 * broadcast root's eager MPI_Bcast returns almost at once, and its own
 * ratio would outweigh the receivers'. The clock is the harness's own
 * monotonic one, the same for every backend (bench_now). */
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

/* Seconds spent in @p n calls of one side, each after a barrier; with
 * @p warm one untimed call first. --vary: each call's input new, written
 * before the barrier; with @p last the last call's is the checked one. */
static double time_block(bench_run_t *r, int mpi, long n, int warm,
                         int last)
{
    double total = 0.0;
    for (long i = -warm; i < n; i++) {
        if (last && i == n - 1)
            bench_vary_last(r);
        else
            bench_vary_next(r);
        bench_sync_barrier(r);
        double t0 = bench_now();
        if (mpi) {
            r->coll->baseline(r); /* MPI errors are fatal on r->mpi */
        } else {
            tcomm_status_t st = r->coll->run(r);
            if (st != TCOMM_SUCCESS)
                fail_tcomm(r, st);
        }
        if (i >= 0)
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
            warm_s = time_block(r, 0, 1, 0, 0);
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

/* --vary: the output of the call just made (tcomm's, or with @p mpi the
 * baseline's where it holds the same elements: all_reduce in the run's
 * dtype and broadcast; the others' MPI calls lay the result out as MPI
 * does, not as the tensor's dim asks) against the expected values. */
static void vary_check(bench_run_t *r, int mpi)
{
    const void *out;
    if (!r->vary_src)
        return;
    if (mpi) {
        int same = (r->coll->kind == BENCH_ALLREDUCE &&
                    bench_baseline_dtype(r) == r->opt->dtype) ||
                   r->coll->kind == BENCH_BCAST;
        if (!same)
            return;
        out = r->mpi_out;
    } else {
        tcomm_tensor_t *t = r->result ? r->result : r->out ? r->out : r->in;
        out = tcomm_tensor_data(t);
    }
    if (bench_vary_check(r, out, mpi ? bench_mpi_call(r, r->mpi_form)
                                     : "tcomm"))
        r->vary_failed = 1;
}

/* Rank figures of MPI formulation f (avg, median, best), from its block
 * means (sorted by median()). */
static void mpi_figures(double *mblk, int nb, double msum, long iters,
                        double *fig)
{
    fig[0] = msum * 1e6 / (double)iters;
    fig[1] = median(mblk, nb);
    fig[2] = mblk[0];
}

void bench_time_size(bench_run_t *r, bench_result_t *res)
{
    const bench_opts_t *o = r->opt;
    int large = r->bytes > BENCH_LARGE_MESSAGE;
    long iters = large ? o->iters_large : o->iters;
    long warmup = large ? o->warmup_large : o->warmup;
    int base = o->baseline && r->mpi_count > 0;
    int forms = base ? bench_mpi_forms(r) : 0;

    /* warm-up, both sides; --max-time caps it at a quarter of the cap */
    bench_sync_barrier(r);
    double t0 = bench_now();
    for (long i = 0; i < warmup; i++) {
        bench_vary_next(r);
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
    for (int f = 0; f < forms; f++) {
        r->mpi_form = f;
        for (long i = 0; i < warmup; i++) {
            bench_vary_next(r);
            r->coll->baseline(r);
        }
    }
    iters = pick_iters(r, iters, warm_s, warmup);

    /* each block: tcomm, then every MPI formulation; every other block
     * the reverse order. Where the sides alternate, each block starts
     * with an untimed call of its own, so that its timed calls find the
     * caches as that side's loop keeps them (as in OSU's loop of one
     * call), not as the other side's block left them: a collective whose
     * data fits the L3 (4-8 MiB here) otherwise pays the other side's
     * evictions in every block's first call, and at the large sizes,
     * where --max-time leaves one call a block, in every call. */
    int warm = base;
    int nb = iters < BENCH_BLOCKS ? (int)iters : BENCH_BLOCKS;
    long per = iters / nb;
    double blk[BENCH_BLOCKS], mblk[2][BENCH_BLOCKS], sum = 0.0;
    double msum[2] = {0.0, 0.0};
    for (int b = 0; b < nb; b++) {
        int mpi_first = base && (b % 2);
        int last = b == nb - 1; /* --vary: its calls' outputs checked */
        for (int k = 0; mpi_first && k < forms; k++) {
            r->mpi_form = forms - 1 - k;
            mblk[r->mpi_form][b] = time_block(r, 1, per, warm, last);
            if (last)
                vary_check(r, 1);
        }
        blk[b] = time_block(r, 0, per, warm, last);
        if (last)
            vary_check(r, 0);
        for (int f = 0; !mpi_first && f < forms; f++) {
            r->mpi_form = f;
            mblk[f][b] = time_block(r, 1, per, warm, last);
            if (last)
                vary_check(r, 1);
        }
        sum += blk[b];
        blk[b] *= 1e6 / (double)per;
        for (int f = 0; f < forms; f++) {
            msum[f] += mblk[f][b];
            mblk[f][b] *= 1e6 / (double)per;
        }
    }
    res->bytes = r->bytes;
    res->iters = per * nb;
    res->has_mpi = base;
    res->mpi_forms = forms;

    /* across ranks: the mean of each figure, min and max of the means.
     * Threads of the local backend report the slowest thread instead:
     * they run one collective together, which ends with the last. */
    int threads = o->backend == BENCH_BACKEND_LOCAL;
    double mine[BENCH_FIGS], tot[BENCH_FIGS], lo, hi, fig[2][3] = {{0}};
    for (int f = 0; f < forms; f++)
        mpi_figures(mblk[f], nb, msum[f], res->iters, fig[f]);
    mine[BENCH_FIG_AVG] = sum * 1e6 / (double)res->iters;
    mine[BENCH_FIG_MED] = median(blk, nb);
    mine[BENCH_FIG_BEST] = blk[0]; /* sorted by median() */
    mine[BENCH_FIG_MPI_AVG] = fig[0][0];
    mine[BENCH_FIG_MPI_MED] = fig[0][1];
    mine[BENCH_FIG_MPI_BEST] = fig[0][2];
    bench_reduce_t how = threads ? BENCH_MAX : BENCH_SUM;
    bench_sync_doubles(r, mine, tot, BENCH_FIGS, how);
    if (forms == 2) {
        /* the faster formulation is the baseline (on the combined
         * medians, the same choice on every rank); the other's median
         * is kept for the JSON */
        double alt[3];
        bench_sync_doubles(r, fig[1], alt, 3, how);
        res->alt_mpi_med_us = alt[1] / (threads ? 1.0 : (double)r->np);
        if (alt[1] < tot[BENCH_FIG_MPI_MED]) {
            res->alt_mpi_med_us =
                tot[BENCH_FIG_MPI_MED] / (threads ? 1.0 : (double)r->np);
            tot[BENCH_FIG_MPI_AVG] = alt[0];
            tot[BENCH_FIG_MPI_MED] = alt[1];
            tot[BENCH_FIG_MPI_BEST] = alt[2];
            res->mpi_form = 1;
        }
    }
    bench_sync_doubles(r, &mine[BENCH_FIG_AVG], &lo, 1, BENCH_MIN);
    bench_sync_doubles(r, &mine[BENCH_FIG_AVG], &hi, 1, BENCH_MAX);
    bench_combine(res, tot, threads ? 1.0 : (double)r->np, lo, hi);
}

void bench_combine(bench_result_t *res, const double *tot, double div,
                   double lo, double hi)
{
    res->avg_us = tot[BENCH_FIG_AVG] / div;
    res->med_us = tot[BENCH_FIG_MED] / div;
    res->mpi_avg_us = tot[BENCH_FIG_MPI_AVG] / div;
    res->mpi_med_us = tot[BENCH_FIG_MPI_MED] / div;
    res->best_us = tot[BENCH_FIG_BEST] / div;
    res->mpi_best_us = tot[BENCH_FIG_MPI_BEST] / div;
    res->ratio = res->mpi_med_us > 0.0 ? res->med_us / res->mpi_med_us : 0.0;
    res->diff_us = res->med_us - res->mpi_med_us;
    res->min_us = lo;
    res->max_us = hi;
}
