/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather along dim 0 on one node, its two single-copy forms side by
 * side, outside the library (not installed; doc/performance.md,
 * "all_gather against the new bound"):
 *   pull  what tcomm's node path does (src/mpi/node/node_gather.c): each
 *         rank copies its own input into its output and reads every
 *         peer's input into its output (process_vm_readv): per rank n N
 *         read and n N written;
 *   push  each rank writes its input, block by block while the block is
 *         in its cache, into its own output (memcpy) and every peer's
 *         (process_vm_writev): N read, n N written, the least any
 *         all_gather moves (bench_traffic.c).
 * Every call on new input (rewritten before the barrier, as --vary),
 * the output checked after the last call of each size.
 * usage: mpirun -np N bench/gather_traffic [MIN_BYTES MAX_BYTES CALLS] */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define BLOCK ((size_t)256 << 10) /* push: a block stays in L2 */

typedef struct { uint64_t in, out, pid; } peer_t;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int xfer(int push, pid_t pid, void *local, uint64_t remote,
                size_t bytes)
{
    struct iovec l = {local, bytes}, r = {(void *)(uintptr_t)remote, bytes};
    ssize_t got = push ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                       : process_vm_readv(pid, &l, 1, &r, 1, 0);
    return got == (ssize_t)bytes;
}

/* One all_gather of b bytes a rank; 1: every copy done. */
static int gather(int push, int me, int n, const peer_t *p, char *in,
                  char *out, size_t b)
{
    int ok = 1;
    if (!push) {
        memcpy(out + (size_t)me * b, in, b);
        for (int k = 0; k < n; k++)
            if (k != me)
                ok &= xfer(0, (pid_t)p[k].pid, out + (size_t)k * b,
                           p[k].in, b);
        return ok;
    }
    for (size_t at = 0; at < b; at += BLOCK) {
        size_t len = b - at < BLOCK ? b - at : BLOCK;
        memcpy(out + (size_t)me * b + at, in + at, len);
        for (int k = 0; k < n; k++)
            if (k != me)
                ok &= xfer(1, (pid_t)p[k].pid, in + at,
                           p[k].out + (size_t)me * b + at, len);
    }
    return ok;
}

int main(int argc, char **argv)
{
    size_t lo = argc > 1 ? strtoull(argv[1], NULL, 0) : 262144;
    size_t hi = argc > 2 ? strtoull(argv[2], NULL, 0) : 2097152;
    int calls = argc > 3 ? atoi(argv[3]) : 200, me, n, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char *in = aligned_alloc(4096, hi), *out = aligned_alloc(4096, hi * n);
    peer_t mine = {(uintptr_t)in, (uintptr_t)out, (uint64_t)getpid()};
    peer_t *p = malloc(sizeof(peer_t) * (size_t)n);
    MPI_Allgather(&mine, 3, MPI_UINT64_T, p, 3, MPI_UINT64_T,
                  MPI_COMM_WORLD);
    if (me == 0)
        printf("# %d ranks, median of %d calls each (us), new input every "
               "call\n# %-9s %10s %10s %8s\n", n, calls, "bytes", "pull",
               "push", "push/pull");
    for (size_t b = lo; b <= hi; b *= 2) {
        double med[2];
        for (int push = 0; push < 2; push++) {
            double *t = malloc(sizeof(double) * (size_t)calls);
            for (int c = 0; c < calls; c++) {
                memset(in, (me * 31 + c) & 0xff, b); /* new input */
                MPI_Barrier(MPI_COMM_WORLD); /* outputs free, inputs set */
                double t0 = now();
                bad |= !gather(push, me, n, p, in, out, b);
                MPI_Barrier(MPI_COMM_WORLD); /* every copy landed */
                t[c] = now() - t0;
            }
            for (int k = 0; k < n; k++) /* the last call's output */
                for (size_t i = 0; i < b; i += 4093)
                    bad |= (unsigned char)out[(size_t)k * b + i] !=
                           ((k * 31 + calls - 1) & 0xff);
            for (int i = 1; i < calls; i++) /* insertion sort */
                for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
                    double x = t[j];
                    t[j] = t[j - 1], t[j - 1] = x;
                }
            double m = t[calls / 2] * 1e6;
            MPI_Allreduce(&m, &med[push], 1, MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
            med[push] /= n;
            free(t);
        }
        if (me == 0)
            printf("  %-9zu %10.2f %10.2f %8.3f\n", b, med[0], med[1],
                   med[1] / med[0]);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && bad)
        printf("# FAIL: a copy failed or an output was wrong\n");
    free(p);
    free(out);
    free(in);
    MPI_Finalize();
    return bad;
}
