/* SPDX-License-Identifier: BSD-3-Clause */
/* The harness's own barriers and reductions, outside the timed calls:
 * the barrier before each timed block, rank 0's iteration counts, the
 * statistics across ranks and the verdict of -c. Processes (mpi, gloo)
 * use MPI_COMM_WORLD; the threads of the local backend share a pthread
 * barrier and one slot per thread, since MPI calls from those threads
 * would neither be allowed (MPI_THREAD_SINGLE) nor synchronize them. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tcomm_bench.h"

struct bench_sync {
    pthread_barrier_t barrier;
    int n;
    long value;                         /* bench_sync_bcast_long */
    double (*slot)[BENCH_SYNC_MAX];     /* one row per thread */
};

struct bench_sync *bench_sync_create(int nthreads)
{
    struct bench_sync *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->n = nthreads;
    s->slot = calloc((size_t)nthreads, sizeof(*s->slot));
    if (!s->slot ||
        pthread_barrier_init(&s->barrier, NULL, (unsigned)nthreads) != 0) {
        free(s->slot);
        free(s);
        return NULL;
    }
    return s;
}

void bench_sync_destroy(struct bench_sync *s)
{
    if (!s)
        return;
    pthread_barrier_destroy(&s->barrier);
    free(s->slot);
    free(s);
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_tick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 1e-6; /* gettimeofday's, the coarsest timer in use */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bench_sync_barrier(const bench_run_t *r)
{
    if (r->sync)
        pthread_barrier_wait(&r->sync->barrier);
    else
        MPI_Barrier(MPI_COMM_WORLD);
}

void bench_sync_bcast_long(const bench_run_t *r, long *v)
{
    struct bench_sync *s = r->sync;
    if (!s) {
        MPI_Bcast(v, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        return;
    }
    if (r->rank == 0)
        s->value = *v;
    pthread_barrier_wait(&s->barrier);
    *v = s->value;
    /* nobody may write the value again before every thread has read it */
    pthread_barrier_wait(&s->barrier);
}

static MPI_Op mpi_op(bench_reduce_t op)
{
    return op == BENCH_SUM ? MPI_SUM : op == BENCH_MIN ? MPI_MIN : MPI_MAX;
}

static double combine(bench_reduce_t op, double a, double b)
{
    switch (op) {
    case BENCH_SUM: return a + b;
    case BENCH_MIN: return b < a ? b : a;
    case BENCH_MAX: return b > a ? b : a;
    }
    return a;
}

void bench_sync_doubles(const bench_run_t *r, const double *in, double *out,
                        int n, bench_reduce_t op)
{
    struct bench_sync *s = r->sync;
    if (!s) {
        MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out, n, MPI_DOUBLE,
                      mpi_op(op), MPI_COMM_WORLD);
        return;
    }
    memcpy(s->slot[r->rank], in, (size_t)n * sizeof(*in));
    pthread_barrier_wait(&s->barrier);
    /* every thread folds in thread order, so all get the same bits */
    for (int j = 0; j < n; j++) {
        double acc = s->slot[0][j];
        for (int k = 1; k < s->n; k++)
            acc = combine(op, acc, s->slot[k][j]);
        out[j] = acc;
    }
    pthread_barrier_wait(&s->barrier);
}

void bench_sync_int(const bench_run_t *r, int *v, bench_reduce_t op)
{
    if (!r->sync) {
        MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, mpi_op(op),
                      MPI_COMM_WORLD);
        return;
    }
    double d = (double)*v;
    bench_sync_doubles(r, &d, &d, 1, op);
    *v = (int)d;
}

void *bench_sync_calloc(const bench_run_t *r, size_t bytes)
{
    void *p = calloc(1, bytes);
    int bad = p == NULL;
    bench_sync_int(r, &bad, BENCH_MAX);
    if (bad) {
        free(p);
        return NULL;
    }
    return p;
}
