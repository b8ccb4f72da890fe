/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain MPI program (no tcomm) that calls the nonblocking collectives
 * libtcomm_pmpi interposes and completes their requests every way MPI
 * has, mixed with point-to-point requests: one MPI_Waitall, MPI_Test
 * loops, MPI_Testall, MPI_Waitany, MPI_Waitsome, several in flight
 * waited in reverse order, in place, on a sub-communicator. It prints a hash of every result, one line per rank
 * and step (to argv[1].RANK if given). MPI_Init_thread asks for
 * MPI_THREAD_MULTIPLE, or MPI_THREAD_SINGLE when PMPI_TEST_LEVEL=single
 * (then every call passes to MPI). Values are small integers: floating
 * sums are exact in any order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

enum { BIG = 1 << 15, SMALL = 8 }; /* doubles: 256 KiB and 64 bytes */
static int rank, nprocs;

static void out(const char *what, int n, const void *buf, size_t bytes)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ ((const unsigned char *)buf)[i]) * 1099511628211ull;
    printf("%d %s n=%d %016llx\n", rank, what, n, (unsigned long long)h);
}

static void fill(double *d, int n, int salt)
{
    for (int i = 0; i < n; i++)
        d[i] = (i * 7 + rank * 3 + salt) % 11 + 1;
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "%d: %s failed (%d)\n", rank, what, rc);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Every nonblocking collective at n doubles a rank, with a ring of
 * point-to-point messages, all in one MPI_Waitall (in shuffled order). */
static void waitall(int n, int in_place)
{
    double *a = malloc(n * sizeof *a), *ra = malloc(n * sizeof *ra),
           *b = malloc(n * sizeof *b),
           *g = malloc((size_t)n * nprocs * sizeof *g),
           *gs = malloc(n * sizeof *gs),
           *rs = malloc((size_t)n * nprocs * sizeof *rs),
           *rso = malloc(n * sizeof *rso),
           *t = malloc((size_t)n * nprocs * sizeof *t),
           *to = malloc((size_t)n * nprocs * sizeof *to), ps = rank, pr = -1;
    MPI_Request r[7];
    MPI_Status sts[7];
    fill(a, n, 0);
    fill(b, n, rank == nprocs - 1 ? 5 : 9); /* only the root's counts */
    fill(g + (size_t)rank * n, n, 1);
    memcpy(gs, g + (size_t)rank * n, n * sizeof *gs);
    fill(rs, n * nprocs, 2);
    fill(t, n * nprocs, 3);
    memcpy(ra, a, n * sizeof *a);
    check(MPI_Irecv(&pr, 1, MPI_DOUBLE, (rank + nprocs - 1) % nprocs, 7,
                    MPI_COMM_WORLD, &r[3]), "irecv");
    check(MPI_Iallreduce(in_place ? MPI_IN_PLACE : a, ra, n, MPI_DOUBLE,
                         MPI_SUM, MPI_COMM_WORLD, &r[5]), "iallreduce");
    check(MPI_Ibcast(b, n, MPI_DOUBLE, nprocs - 1, MPI_COMM_WORLD, &r[0]),
          "ibcast");
    check(MPI_Iallgather(in_place ? MPI_IN_PLACE : gs, n,
                         MPI_DOUBLE, g, n, MPI_DOUBLE, MPI_COMM_WORLD, &r[6]),
          "iallgather");
    check(MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : rs,
                                    in_place ? rs : rso, n, MPI_DOUBLE,
                                    MPI_MAX, MPI_COMM_WORLD, &r[2]),
          "ireduce_scatter_block");
    check(MPI_Isend(&ps, 1, MPI_DOUBLE, (rank + 1) % nprocs, 7,
                    MPI_COMM_WORLD, &r[1]), "isend");
    check(MPI_Ialltoall(t, n, MPI_DOUBLE, to, n, MPI_DOUBLE, MPI_COMM_WORLD,
                        &r[4]), "ialltoall");
    check(MPI_Waitall(7, r, sts), "waitall");
    for (int i = 0; i < 7; i++)
        if (r[i] != MPI_REQUEST_NULL)
            check(MPI_ERR_REQUEST, "a request not freed by waitall");
    out(in_place ? "waitall iallreduce in place" : "waitall iallreduce", n,
        ra, n * sizeof *ra);
    out("waitall ibcast", n, b, n * sizeof *b);
    out("waitall iallgather", n, g, (size_t)n * nprocs * sizeof *g);
    out("waitall ireduce_scatter_block", n, in_place ? rs : rso,
        n * sizeof *rso);
    out("waitall ialltoall", n, to, (size_t)n * nprocs * sizeof *to);
    out("waitall ring", n, &pr, sizeof pr);
    free(a), free(ra), free(b), free(g), free(gs), free(rs), free(rso);
    free(t);
    free(to);
}

/* MPI_Test until done (with a status: MPI's content differs by MPI);
 * MPI_Testall over two. */
static void tests(int n)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
           *c = malloc(n * sizeof *c);
    int flag = 0;
    MPI_Request r[2];
    MPI_Status st, sts[2];
    fill(a, n, 4);
    check(MPI_Iallreduce(MPI_IN_PLACE, a, n, MPI_DOUBLE, MPI_MIN,
                         MPI_COMM_WORLD, &r[0]), "iallreduce");
    while (!flag)
        check(MPI_Test(&r[0], &flag, &st), "test");
    if (r[0] != MPI_REQUEST_NULL)
        check(MPI_ERR_REQUEST, "test's request");
    out("test iallreduce min", n, a, n * sizeof *a);
    fill(b, n, 5);
    fill(c, n, 6);
    check(MPI_Ibcast(b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]), "ibcast");
    check(MPI_Iallreduce(MPI_IN_PLACE, c, n, MPI_DOUBLE, MPI_MAX,
                         MPI_COMM_WORLD, &r[1]), "iallreduce");
    for (flag = 0; !flag;)
        check(MPI_Testall(2, r, &flag, sts), "testall");
    out("testall ibcast", n, b, n * sizeof *b);
    out("testall iallreduce max", n, c, n * sizeof *c);
    free(a), free(b), free(c);
}

/* Four in flight, completed by MPI_Waitany, then four by MPI_Waitsome,
 * then four by MPI_Wait in reverse order. */
static void any_some_reverse(int n)
{
    double *d[4];
    MPI_Request r[4];
    MPI_Status sts[4];
    for (int i = 0; i < 4; i++)
        d[i] = malloc(n * sizeof *d[i]);
    for (int how = 0; how < 3; how++) {
        for (int i = 0; i < 4; i++) {
            fill(d[i], n, 10 * how + i);
            check(MPI_Iallreduce(MPI_IN_PLACE, d[i], n, MPI_DOUBLE, MPI_SUM,
                                 MPI_COMM_WORLD, &r[i]), "iallreduce");
        }
        int left = 4, idx, outc, idxs[4];
        while (how == 0 && left > 0) {
            check(MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE), "waitany");
            left--;
        }
        while (how == 1 && left > 0) {
            check(MPI_Waitsome(4, r, &outc, idxs, sts),
                  "waitsome");
            left -= outc;
        }
        for (int i = 3; how == 2 && i >= 0; i--)
            check(MPI_Wait(&r[i], MPI_STATUS_IGNORE), "wait");
        static const char *const names[] = {"waitany", "waitsome",
                                            "wait reversed"};
        for (int i = 0; i < 4; i++)
            out(names[how], n, d[i], n * sizeof *d[i]);
    }
    for (int i = 0; i < 4; i++)
        free(d[i]);
}

/* Calls on a sub-communicator and on MPI_COMM_WORLD in flight together.
 * (Freeing the sub-communicator before the wait is correct MPI, but
 * Open MPI 4.1's own nonblocking collectives crash on it.) */
static void two_comms(int n)
{
    MPI_Comm half;
    MPI_Request r[2];
    MPI_Status sts[2];
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    fill(a, n, 7);
    fill(b, n, 8);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    check(MPI_Iallreduce(MPI_IN_PLACE, a, n, MPI_DOUBLE, MPI_SUM, half,
                         &r[0]), "iallreduce on half");
    check(MPI_Iallreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE, MPI_SUM,
                         MPI_COMM_WORLD, &r[1]), "iallreduce");
    check(MPI_Waitall(2, r, sts), "waitall");
    MPI_Comm_free(&half);
    out("half iallreduce", n, a, n * sizeof *a);
    out("world iallreduce", n, b, n * sizeof *b);
    free(a), free(b);
}

int main(int argc, char **argv)
{
    const char *lv = getenv("PMPI_TEST_LEVEL");
    int want = lv && strcmp(lv, "single") == 0 ? MPI_THREAD_SINGLE
                                               : MPI_THREAD_MULTIPLE;
    pmpi_test_start(&argc, &argv, want, &rank, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static const int sizes[] = {SMALL, BIG};
    for (int s = 0; s < 2; s++) {
        waitall(sizes[s], 0);
        waitall(sizes[s], 1);
        tests(sizes[s]);
        any_some_reverse(sizes[s]);
        two_comms(sizes[s]);
    }
    MPI_Finalize();
    return 0;
}
