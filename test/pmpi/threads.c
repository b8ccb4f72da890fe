/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain MPI program (no tcomm): THREADS threads of an
 * MPI_THREAD_MULTIPLE program call collectives at the same time, each on
 * its own dup of MPI_COMM_WORLD (MPI allows concurrent collectives on
 * different communicators), large enough for libtcomm_pmpi to take them
 * and small, blocking and nonblocking; every result is checked against
 * its formula. Prints one line per thread, call and rank (to
 * argv[1].RANK if given); test/pmpi-check.sh compares them with and
 * without the library. Where MPI gives less than MPI_THREAD_MULTIPLE the
 * threads run one after the other (the line says so). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmpi_test.h"

#define THREADS 3
#define ROUNDS 4
static int me, n;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int id, bad;
    MPI_Comm comm;
} job_t;

static void check(job_t *j, const char *what, int round, const int *got,
                  const int *want, int count)
{
    int wrong = 0;
    for (int k = 0; k < count; k++)
        wrong += got[k] != want[k];
    pthread_mutex_lock(&print_lock);
    printf("%d thread%d %s round%d: %s\n", me, j->id, what, round,
           wrong ? "WRONG" : "right");
    pthread_mutex_unlock(&print_lock);
    j->bad |= wrong;
}

static void *work(void *arg)
{
    job_t *j = arg;
    const int big = 32768; /* 128 KiB of ints: taken at the gates */
    int *in = malloc(sizeof(int) * big * n), *out = malloc(sizeof(int) * big * n);
    int *want = malloc(sizeof(int) * big * n);
    for (int round = 0; round < ROUNDS; round++) {
        int P = round % 2 ? 7 + j->id : big, s = j->id * 100 + round;
        for (int k = 0; k < P; k++)
            in[k] = k + me + s, want[k] = n * (k + s) + n * (n - 1) / 2;
        MPI_Allreduce(in, out, P, MPI_INT, MPI_SUM, j->comm);
        check(j, "allreduce", round, out, want, P);
        MPI_Request rq;
        MPI_Iallreduce(in, out, P, MPI_INT, MPI_MAX, j->comm, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (int k = 0; k < P; k++)
            want[k] = k + n - 1 + s;
        check(j, "iallreduce max", round, out, want, P);
        for (int k = 0; k < P; k++)
            in[k] = k * 3 + me + s, want[k] = k * 3 + j->id % n + s;
        MPI_Bcast(in, P, MPI_INT, j->id % n, j->comm);
        check(j, "bcast", round, in, want, P);
        for (int k = 0; k < P * n; k++)
            in[k] = me * 1000 + k / P + k % P + s,
            want[k] = k / P * 1000 + me + k % P + s;
        MPI_Alltoall(in, P, MPI_INT, out, P, MPI_INT, j->comm);
        check(j, "alltoall", round, out, want, P * n);
        for (int k = 0; k < P * n; k++)
            want[k] = k % P + k / P * 5 + s;
        for (int k = 0; k < P; k++)
            in[k] = k + me * 5 + s;
        MPI_Allgather(in, P, MPI_INT, out, P, MPI_INT, j->comm);
        check(j, "allgather", round, out, want, P * n);
        MPI_Barrier(j->comm);
    }
    free(in), free(out), free(want);
    return NULL;
}

int main(int argc, char **argv)
{
    int concurrent = pmpi_test_start(&argc, &argv, MPI_THREAD_MULTIPLE, &me,
                                     &n) == MPI_THREAD_MULTIPLE;
    printf("%d threads %s\n", me,
           concurrent ? "concurrent" : "one after the other");
    job_t jobs[THREADS];
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (job_t){.id = t};
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 0; t < THREADS; t++)
        if (!concurrent || pthread_create(&th[t], NULL, work, &jobs[t]))
            work(&jobs[t]), th[t] = 0;
    int bad = 0;
    for (int t = 0; t < THREADS; t++) {
        if (concurrent && th[t])
            pthread_join(th[t], NULL);
        bad |= jobs[t].bad;
        MPI_Comm_free(&jobs[t].comm);
    }
    MPI_Finalize();
    return bad;
}
