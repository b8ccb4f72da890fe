/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking programs (osu_tcomm_iallreduce and the others), timed
 * as OSU 7.4's osu_iallreduce does. For each size and side: the pure
 * communication time first (start, then wait, nothing between; a barrier
 * before each call), then the overall time of start, a compute of about
 * that rank's own pure time, wait. Compute is OSU's (the time the compute
 * took; OSU's default of no MPI_Test calls during it, on both sides), and
 * Overlap = max(0, 100 * (1 - (overall - compute) / pure)) from the means
 * over the ranks. --compute busy spins on a small matrix product as OSU's
 * dummy compute does; --compute sleep sleeps instead, leaving the core
 * free, as a rank that waits on its GPU would. --baseline times the MPI_I*
 * call on the same bytes the same way; --blocking-ref times the blocking
 * tcomm call as the pure loop does, so Pure Comm. can be set against it. */
#include <stdlib.h>
#include <time.h>

#include "bench_nonblocking.h"
#include "bench_output.h"

#define SIZE_W 10
#define COL_W 18
#define SHORT_W 15
#define MAT 16 /* the busy compute's matrix: MAT x MAT floats */

static volatile float sink; /* keeps the busy loop from being optimized */

static void fail(const bench_run_t *r, const char *what, tcomm_status_t st)
{
    fprintf(stderr, "%s: rank %d: %s failed at %zu bytes: %s: %s\n",
            r->opt->prog, r->rank, what, r->bytes, tcomm_status_string(st),
            tcomm_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static tcomm_status_t start(bench_run_t *r, tcomm_request_t **req)
{
    const bench_opts_t *o = r->opt;
    switch (r->coll->kind) {
    case BENCH_ALLREDUCE:
        return tcomm_all_reduce_start(r->comm, r->in, TCOMM_SUM, r->out, req);
    case BENCH_ALLGATHER:
        return tcomm_all_gather_start(r->comm, r->in, o->dim, r->out, req);
    case BENCH_REDUCE_SCATTER:
        return tcomm_reduce_scatter_start(r->comm, r->in, TCOMM_SUM, o->dim,
                                          r->out, req);
    case BENCH_BCAST:
        return tcomm_broadcast_start(r->comm, r->in, 0, r->in, req);
    case BENCH_ALLTOALL:
        return tcomm_all_to_all_start(r->comm, r->in, o->split_dim,
                                      o->concat_dim, r->out, req);
    default:
        return tcomm_barrier_start(r->comm, req);
    }
}

/* The raw MPI_I* call on the same bytes (errors are fatal on r->mpi). */
static void mpi_start(bench_run_t *r, MPI_Request *req)
{
    int n = (int)r->mpi_count;
    MPI_Datatype t = r->mpi_type;
    switch (r->coll->kind) {
    case BENCH_ALLREDUCE:
        MPI_Iallreduce(r->mpi_in, r->mpi_out, n, t, MPI_SUM, r->mpi, req);
        break;
    case BENCH_ALLGATHER:
        MPI_Iallgather(r->mpi_in, n, t, r->mpi_out, n, t, r->mpi, req);
        break;
    case BENCH_REDUCE_SCATTER:
        MPI_Ireduce_scatter_block(r->mpi_in, r->mpi_out, n, t, MPI_SUM,
                                  r->mpi, req);
        break;
    case BENCH_BCAST:
        MPI_Ibcast(r->mpi_in, n, t, 0, r->mpi, req);
        break;
    case BENCH_ALLTOALL:
        MPI_Ialltoall(r->mpi_in, n, t, r->mpi_out, n, t, r->mpi, req);
        break;
    default:
        MPI_Ibarrier(r->mpi, req);
    }
}

/* One pass of the busy compute: a small matrix-vector product. */
static void busy_pass(void)
{
    static float a[MAT][MAT], x[MAT];
    float acc = sink;
    for (int i = 0; i < MAT; i++) {
        float s = x[i];
        for (int j = 0; j < MAT; j++)
            s += a[i][j] * a[j][i] + 1.0f;
        x[i] = s * 1e-3f;
        acc += s;
    }
    sink = acc;
}

/* About @p seconds of "compute"; the seconds it took. */
static double compute(const bench_run_t *r, double seconds)
{
    double t0 = bench_now();
    if (r->opt->compute_sleep) {
        if (seconds > 0.0) {
            struct timespec ts = {(time_t)seconds,
                                  (long)((seconds - (double)(time_t)seconds) *
                                         1e9)};
            while (nanosleep(&ts, &ts) != 0) {
            }
        }
    } else {
        while (bench_now() - t0 < seconds)
            busy_pass();
    }
    return bench_now() - t0;
}

enum { SIDE_TCOMM, SIDE_MPI, SIDE_BLOCKING };

/* One call of a side with @p seconds of compute between start and wait
 * (< 0: none, the pure loop); adds the compute's time to *comp. */
static void one_call(bench_run_t *r, int side, double seconds, double *comp)
{
    if (side == SIDE_BLOCKING) {
        tcomm_status_t st = r->coll->run(r);
        if (st != TCOMM_SUCCESS)
            fail(r, r->coll->name, st);
    } else if (side == SIDE_MPI) {
        MPI_Request req;
        mpi_start(r, &req);
        if (seconds >= 0.0)
            *comp += compute(r, seconds);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        tcomm_request_t *req = NULL;
        tcomm_status_t st = start(r, &req);
        if (st != TCOMM_SUCCESS)
            fail(r, "the start", st);
        if (seconds >= 0.0)
            *comp += compute(r, seconds);
        st = tcomm_wait(&req);
        if (st != TCOMM_SUCCESS)
            fail(r, "tcomm_wait", st);
    }
}

void bench_nb_call(bench_run_t *r)
{
    double comp = 0.0;
    one_call(r, SIDE_TCOMM, 10e-6, &comp);
}

/* Mean seconds per call of @p n calls, each after a barrier; *comp: the
 * mean compute seconds. */
static double loop(bench_run_t *r, int side, long n, double seconds,
                   double *comp)
{
    double total = 0.0, c = 0.0;
    for (long i = 0; i < n; i++) {
        bench_vary_next(r); /* --vary: new input, outside the timing */
        bench_sync_barrier(r);
        double t0 = bench_now();
        one_call(r, side, seconds, &c);
        total += bench_now() - t0;
    }
    if (comp)
        *comp = c / (double)n;
    return total / (double)n;
}

/* --vary: one more start and wait on new input after the timed ones,
 * its output compared with the expected values. */
static void vary_check(bench_run_t *r)
{
    double c = 0.0;
    if (!r->vary_src)
        return;
    bench_vary_last(r);
    bench_sync_barrier(r);
    one_call(r, SIDE_TCOMM, -1.0, &c);
    if (bench_vary_check(r, tcomm_tensor_data(r->out ? r->out : r->in),
                         "tcomm"))
        r->vary_failed = 1;
}

/* Warm-up of a side, then the iterations it may run: -i, capped so that
 * both loops (pure, then overall: a call and a compute of about a call,
 * which takes longer when sleeping, nanosleep's granularity) take about
 * --max-time together, at least BENCH_MIN_ITERS (rank 0's choice on
 * every rank). */
static long warm_and_pick(bench_run_t *r, int side, long iters, long warmup)
{
    double lat = loop(r, side, warmup > 0 ? warmup : 1, -1.0, NULL);
    if (r->opt->max_time > 0.0) {
        double per = 2.0 * lat + compute(r, lat); /* both loops' call */
        long cap = per > 0.0 ? (long)(r->opt->max_time / per) : iters;
        iters = cap < iters ? cap : iters;
        iters = iters < BENCH_MIN_ITERS ? BENCH_MIN_ITERS : iters;
        bench_sync_bcast_long(r, &iters);
    }
    return iters;
}

/* OSU's figures of one side, combined over the ranks as OSU does. */
static void time_side(bench_run_t *r, int side, long iters,
                      bench_nb_side_t *s)
{
    double mine[3], sum[3], comp = 0.0;
    double pure = loop(r, side, iters, -1.0, NULL);
    double overall = loop(r, side, iters, pure, &comp);
    mine[0] = overall * 1e6, mine[1] = comp * 1e6, mine[2] = pure * 1e6;
    bench_sync_doubles(r, mine, sum, 3, BENCH_SUM);
    s->overall_us = sum[0] / r->np;
    s->compute_us = sum[1] / r->np;
    s->pure_us = sum[2] / r->np;
    double ov = s->pure_us > 0.0
                    ? 100.0 * (1.0 - (s->overall_us - s->compute_us) /
                                         s->pure_us)
                    : 0.0;
    s->overlap = ov > 0.0 ? ov : 0.0;
}

void bench_nb_time_size(bench_run_t *r, bench_nb_result_t *res)
{
    const bench_opts_t *o = r->opt;
    int large = r->bytes > BENCH_LARGE_MESSAGE;
    long iters = large ? o->iters_large : o->iters;
    long warmup = large ? o->warmup_large : o->warmup;
    res->bytes = r->bytes;
    res->has_mpi = o->baseline && r->mpi_count > 0;
    res->iters = warm_and_pick(r, SIDE_TCOMM, iters, warmup);
    time_side(r, SIDE_TCOMM, res->iters, &res->tc);
    vary_check(r);
    if (res->has_mpi) {
        warm_and_pick(r, SIDE_MPI, 0, warmup); /* tcomm's count */
        time_side(r, SIDE_MPI, res->iters, &res->mpi);
    }
    if (o->blocking_ref) {
        double mine, sum;
        loop(r, SIDE_BLOCKING, warmup > 0 ? warmup : 1, -1.0, NULL);
        mine = loop(r, SIDE_BLOCKING, res->iters, -1.0, NULL) * 1e6;
        bench_sync_doubles(r, &mine, &sum, 1, BENCH_SUM);
        res->blocking_us = sum / r->np;
    }
}

static const char *progress_mode(void)
{
    const char *v = getenv("TCOMM_PROGRESS");
    return v && *v ? v : "default";
}

void bench_nb_print_header(bench_run_t *r)
{
    const bench_opts_t *o = r->opt;
    int level = 0;
    MPI_Query_thread(&level);
    printf("# OSU MPI-tcomm Non-blocking %s Latency Test v%d.%d.%d\n",
           r->coll->title, TCOMM_VERSION_MAJOR, TCOMM_VERSION_MINOR,
           TCOMM_VERSION_PATCH);
    printf("# ranks %d%s, backend %s, dtype %s, device %s",
           r->np, o->backend == BENCH_BACKEND_LOCAL ? " (threads)" : "",
           bench_backend_name(o->backend), bench_dtype_name(o->dtype),
           o->cuda ? "cuda" : "host");
    if (r->coll->has_dim)
        printf(", dim %d of [rows<=64, n/rows]", o->dim);
    printf(",\n# compute %s, TCOMM_PROGRESS=%s, MPI thread level %s\n",
           o->compute_sleep ? "sleep" : "busy", progress_mode(),
           level == MPI_THREAD_MULTIPLE ? "multiple" : "below multiple");
    if (r->coll->kind == BENCH_ALLTOALL)
        bench_alltoall_header(r);
    printf("# Overall = start + compute + wait; Pure Comm. = start + wait; "
           "Compute about Pure Comm.\n");
    if (o->baseline)
        printf("# MPI: the MPI_I* call on the same bytes, timed the same "
               "way after tcomm\n");
    if (o->blocking_ref)
        printf("# Blocking: the blocking tcomm call, timed as Pure Comm.\n");
    bench_sizes_print(r);
    printf("%-*s", SIZE_W, "# Size");
    bench_col(COL_W, "Overall(us)");
    bench_col(COL_W, "Compute(us)");
    bench_col(COL_W, "Pure Comm.(us)");
    bench_col(COL_W, "Overlap(%%)");
    if (o->blocking_ref)
        bench_col(SHORT_W, "Blocking(us)");
    if (o->baseline) {
        bench_col(SHORT_W, "MPI Overall");
        bench_col(SHORT_W, "MPI Compute");
        bench_col(SHORT_W, "MPI Pure");
        bench_col(SHORT_W, "MPI Overlap");
    }
    if (o->validate)
        bench_col(12, "Validation");
    printf("\n");
    fflush(stdout);
}

/* One side's Overall, Compute, Pure Comm. and Overlap columns. */
static void side_cols(int width, const bench_nb_side_t *x)
{
    bench_col(width, "%.2f", x->overall_us);
    bench_col(width, "%.2f", x->compute_us);
    bench_col(width, "%.2f", x->pure_us);
    bench_col(width, "%.2f", x->overlap);
}

void bench_nb_print_row(const bench_run_t *r, const bench_nb_result_t *res)
{
    const bench_opts_t *o = r->opt;
    const bench_nb_side_t *t = &res->tc, *m = &res->mpi;
    printf("%-*zu", SIZE_W, res->bytes);
    side_cols(COL_W, t);
    if (o->blocking_ref)
        bench_col(SHORT_W, "%.2f", res->blocking_us);
    if (o->baseline && res->has_mpi)
        side_cols(SHORT_W, m);
    else if (o->baseline)
        for (int i = 0; i < 4; i++)
            bench_col(SHORT_W, "-");
    if (o->validate)
        bench_col(12, "%s", res->valid ? "Pass" : "Fail");
    printf("\n");
    fflush(stdout);
}

void bench_nb_json(FILE *f, const bench_run_t *r)
{
    int level = 0;
    MPI_Query_thread(&level);
    fprintf(f, "\"nonblocking\": 1, \"compute\": \"%s\", \"progress\": "
            "\"%s\", \"thread_multiple\": %d, ",
            r->opt->compute_sleep ? "sleep" : "busy", progress_mode(),
            level == MPI_THREAD_MULTIPLE);
}

/* One result per line, as bench_json_row (the sweep reads it by line). */
void bench_nb_json_row(FILE *f, const bench_run_t *r,
                       const bench_nb_result_t *res, int first)
{
    const bench_opts_t *o = r->opt;
    const bench_nb_side_t *t = &res->tc, *m = &res->mpi;
    fprintf(f, "%s\n  {\"bytes\": %zu, \"iterations\": %ld, "
            "\"overall_us\": %.3f, \"compute_us\": %.3f, \"pure_us\": %.3f, "
            "\"overlap_pct\": %.2f", first ? "" : ",", res->bytes,
            res->iters, t->overall_us, t->compute_us, t->pure_us,
            t->overlap);
    if (o->blocking_ref)
        fprintf(f, ", \"blocking_us\": %.3f", res->blocking_us);
    if (o->baseline && res->has_mpi)
        fprintf(f, ", \"mpi_overall_us\": %.3f, \"mpi_compute_us\": %.3f, "
                "\"mpi_pure_us\": %.3f, \"mpi_overlap_pct\": %.2f",
                m->overall_us, m->compute_us, m->pure_us, m->overlap);
    if (o->validate)
        fprintf(f, ", \"validation\": \"%s\"", res->valid ? "pass" : "fail");
    fprintf(f, "}");
}
