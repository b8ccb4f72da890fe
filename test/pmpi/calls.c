/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain MPI program (no tcomm) that makes exactly CALLS calls of each
 * function libtcomm_pmpi interposes (MPI_Alloc_mem included), on
 * buffers from MPI_Alloc_mem, some large enough to be taken and some
 * not, and checks every result against its formula (each rank knows
 * what the others hold). test/pmpi-check.sh runs it with the library
 * and TCOMM_PMPI_REPORT=1 and requires the report to count exactly
 * CALLS per rank for every function: none of tcomm's own MPI calls (its
 * progress thread runs the nonblocking ones) may be counted. Prints one
 * line per call and rank (to argv[1].RANK if given). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

#define CALLS 3
static int me, n, bad;

static void check(const char *what, int i, const int *got, const int *want,
                  int count)
{
    int wrong = 0;
    for (int k = 0; k < count; k++)
        wrong += got[k] != want[k];
    printf("%d %s call%d: %s\n", me, what, i, wrong ? "WRONG" : "right");
    bad |= wrong;
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, MPI_THREAD_MULTIPLE, &me, &n);
    MPI_Comm c = MPI_COMM_WORLD;
    /* calls 0 and 2: 256 KiB a part (taken at the library's gates for
     * the reductions and bcast); call 1: 25 ints (passed). The large
     * buffers come from MPI_Alloc_mem (the arena), the small one too
     * (under 4 KiB: MPI's). */
    const int big = 65536, small = 25;
    int *in, *out, *want, *tiny;
    MPI_Alloc_mem((MPI_Aint)sizeof(int) * big * n, MPI_INFO_NULL, &in);
    MPI_Alloc_mem((MPI_Aint)sizeof(int) * big * n, MPI_INFO_NULL, &out);
    MPI_Alloc_mem(64, MPI_INFO_NULL, &tiny);
    want = malloc(sizeof(int) * big * n);
    int *cnt = malloc(sizeof(int) * 2 * n), *dsp = cnt + n;
    for (int i = 0; i < CALLS; i++) {
        int P = i == 1 ? small : big;
        MPI_Request rq;
        for (int r = 0; r < n; r++)
            cnt[r] = P, dsp[r] = r * P;
#define FILL(expr) for (int k = 0; k < P * n; k++) in[k] = (expr)
#define WANT(m, expr) for (int k = 0; k < (m); k++) want[k] = (expr)
        for (int nb = 0; nb < 2; nb++) {
            FILL(k + me);
            WANT(P, n * k + n * (n - 1) / 2);
            if (nb) {
                MPI_Iallreduce(in, out, P, MPI_INT, MPI_SUM, c, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else {
                MPI_Allreduce(in, out, P, MPI_INT, MPI_SUM, c);
            }
            check(nb ? "iallreduce" : "allreduce", i, out, want, P);
            WANT(P, n * (me * P + k) + n * (n - 1) / 2);
            if (nb) {
                MPI_Ireduce_scatter_block(in, out, P, MPI_INT, MPI_SUM, c,
                                          &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else {
                MPI_Reduce_scatter_block(in, out, P, MPI_INT, MPI_SUM, c);
            }
            check(nb ? "ireduce_scatter_block" : "reduce_scatter_block", i,
                  out, want, P);
            FILL(k % P + me * 7);
            WANT(P * n, k % P + k / P * 7);
            if (nb) {
                MPI_Iallgather(in, P, MPI_INT, out, P, MPI_INT, c, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else {
                MPI_Allgather(in, P, MPI_INT, out, P, MPI_INT, c);
            }
            check(nb ? "iallgather" : "allgather", i, out, want, P * n);
            WANT(P, k + (n - 1) * 7);
            if (nb) {
                MPI_Ibcast(in, P, MPI_INT, n - 1, c, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else {
                MPI_Bcast(in, P, MPI_INT, n - 1, c);
            }
            check(nb ? "ibcast" : "bcast", i, in, want, P);
            FILL(me * 1000 + k / P + k % P);
            WANT(P * n, k / P * 1000 + me + k % P);
            if (nb) {
                MPI_Ialltoall(in, P, MPI_INT, out, P, MPI_INT, c, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else {
                MPI_Alltoall(in, P, MPI_INT, out, P, MPI_INT, c);
            }
            check(nb ? "ialltoall" : "alltoall", i, out, want, P * n);
        }
        FILL(k + me);
        WANT(P, n * (me * P + k) + n * (n - 1) / 2);
        MPI_Reduce_scatter(in, out, cnt, MPI_INT, MPI_SUM, c);
        check("reduce_scatter", i, out, want, P);
        FILL(k % P + me * 7);
        WANT(P * n, k % P + k / P * 7);
        MPI_Allgatherv(in, P, MPI_INT, out, cnt, dsp, MPI_INT, c);
        check("allgatherv", i, out, want, P * n);
        FILL(me * 1000 + k / P + k % P);
        WANT(P * n, k / P * 1000 + me + k % P);
        MPI_Alltoallv(in, cnt, dsp, MPI_INT, out, cnt, dsp, MPI_INT, c);
        check("alltoallv", i, out, want, P * n);
        MPI_Barrier(c);
    }
    for (int k = 0; k < 16; k++) /* MPI's block is usable memory */
        tiny[k] = want[k] = k + me;
    check("alloc_mem small", 0, tiny, want, 16);
    MPI_Free_mem(tiny);
    MPI_Free_mem(out);
    MPI_Free_mem(in);
    free(want), free(cnt);
    MPI_Finalize();
    return bad;
}
