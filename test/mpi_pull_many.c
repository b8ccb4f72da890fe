/* SPDX-License-Identifier: BSD-3-Clause */
/* The single-copy pull of all_gather along dim > 0 above
 * TCOMM_STACK_RANKS ranks (run on 130): its per-rank table moves to the
 * heap there instead of the pull switching itself off. tcomm_all_gather_pull
 * must take the pull exactly when cross-memory attach works here
 * (probed by the test itself) and then deliver every rank's rows in
 * place; the outcome is agreed across ranks before it is judged. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tcomm_mpi_reshape.h"

#define OUTER 3
#define SEG 2

static int rank, np;

/* Can this rank read the next rank's memory, as the pull would? All
 * ranks agree on the answer. */
static int probe_cma(void)
{
    uint32_t mine = 0x7c0ffee0u + (uint32_t)rank, got = 0;
    uint64_t me[2] = {(uintptr_t)&mine, (uint64_t)getpid()};
    uint64_t *all = malloc(2 * (size_t)np * sizeof *all);
    int peer = (rank + 1) % np, ok, every = 0;
    MPI_Allgather(me, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, MPI_COMM_WORLD);
    struct iovec loc = {&got, sizeof got};
    struct iovec rem = {(void *)(uintptr_t)all[2 * peer], sizeof got};
    ok = process_vm_readv((pid_t)all[2 * peer + 1], &loc, 1, &rem, 1, 0) ==
             (ssize_t)sizeof got &&
         got == 0x7c0ffee0u + (uint32_t)peer;
    MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(all);
    return every;
}

static uint32_t value(int r, size_t o, int j)
{
    return (uint32_t)r * 1000u + (uint32_t)o * 10u + (uint32_t)j;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int cma = probe_cma(), done = 0, wrong = 0, fails = 0;
    size_t *seg = malloc((size_t)np * sizeof *seg);
    uint32_t in[OUTER * SEG], *out = calloc(OUTER * SEG * (size_t)np, 4);
    for (int r = 0; r < np; r++)
        seg[r] = SEG;
    for (size_t o = 0; o < OUTER; o++)
        for (int j = 0; j < SEG; j++)
            in[o * SEG + j] = value(rank, o, j);
    tcomm_all_gather_plan_t p;
    int rc =
        tcomm_all_gather_plan_init(&p, TCOMM_U32, OUTER, seg, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) {
        rc = tcomm_all_gather_pull(&p, in, out, OUTER, seg, MPI_COMM_WORLD,
                                   &done);
        tcomm_all_gather_plan_free(&p);
    }
    for (size_t o = 0; done && o < OUTER; o++)
        for (int r = 0; r < np; r++)
            for (int j = 0; j < SEG; j++)
                wrong += out[(o * (size_t)np + (size_t)r) * SEG +
                             (size_t)j] != value(r, o, j);
    int mine = rc != MPI_SUCCESS || done != cma || wrong != 0;
    MPI_Allreduce(&mine, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mine)
        fprintf(stderr, "rank %d of %d: rc %d, pull %s (cross-memory "
                "attach %s), %d wrong elements\n", rank, np, rc,
                done ? "taken" : "not taken", cma ? "works" : "refused",
                wrong);
    if (rank == 0)
        printf("%d ranks, pull %s: %s\n", np, cma ? "expected" : "refused",
               fails ? "FAIL" : "ok");
    free(seg);
    free(out);
    MPI_Finalize();
    return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
