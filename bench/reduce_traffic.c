/* SPDX-License-Identifier: BSD-3-Clause */
/* all_reduce's least traffic as one kernel, outside the library (not
 * installed; doc/performance.md, "The bound"): every rank rewrites its
 * input (as --vary does), then after a barrier folds its 1/n chunk of
 * every rank's input (its own from its cache, the peers' just written
 * by their cores) and stores the result into its own output and every
 * peer's (a push): N read, N written, (n-1)/n N of the reads from other
 * cores, the traffic both terms of the Bound count, in the loop that
 * moves it at once. XOR, not an add: no arithmetic cost. The time of a
 * try is the slowest rank's; the best and the median of TRIES tries.
 * How far this is above the Bound is what neither term sees (the bytes
 * from other cores come slower than streamed ones, and a core does not
 * hide the one behind the other); how far tcomm's all_reduce is above
 * this is tcomm's own.
 * usage: mpirun -np N bench/reduce_traffic [MIN_BYTES MAX_BYTES TRIES] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built for AVX2 too where the compiler can pick at run time, as the
 * harness's own loops are (bench_bound.c): the fastest loads and stores
 * this machine has, so that the kernel is no slower than it must be. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void fold(char **in, char **out, int n, size_t at, size_t bytes)
{
    for (size_t i = at; i < at + bytes; i += 32) {
        uint64_t a = 0, b = 0, c = 0, d = 0;
        for (int k = 0; k < n; k++) {
            const uint64_t *p = (const uint64_t *)(in[k] + i);
            a ^= p[0], b ^= p[1], c ^= p[2], d ^= p[3];
        }
        for (int k = 0; k < n; k++) {
            uint64_t *q = (uint64_t *)(out[k] + i);
            q[0] = a, q[1] = b, q[2] = c, q[3] = d;
        }
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The last try's output, which every rank checks whole: the XOR of the
 * ranks' fill bytes. */
static int wrong(const char *out, size_t bytes, int n, int try)
{
    unsigned char want = 0;
    for (int k = 0; k < n; k++)
        want ^= (unsigned char)(k * 31 + try);
    for (size_t i = 0; i < bytes; i++)
        if ((unsigned char)out[i] != want)
            return 1;
    return 0;
}

/* The ranks that share this rank's node, and how many there are. */
static MPI_Comm node_of(int me, int *node_n)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, node_n);
    return node;
}

int main(int argc, char **argv)
{
    int me, n, node_n, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm node = node_of(me, &node_n);
    size_t lo = argc > 1 ? strtoull(argv[1], NULL, 0) : 1048576;
    size_t hi = argc > 2 ? strtoull(argv[2], NULL, 0) : 16777216;
    int tries = argc > 3 ? atoi(argv[3]) : 40;
    if (node_n != n || n > 64 || tries < 1) {
        if (me == 0)
            fprintf(stderr, "reduce_traffic: every rank on one node, at "
                    "most 64 ranks and TRIES >= 1\n");
        MPI_Comm_free(&node);
        MPI_Finalize();
        return 2;
    }
    double *t = malloc(sizeof(double) * (size_t)tries);
    if (me == 0)
        printf("# %d ranks, the slowest rank's time of a try (us)\n"
               "# %-9s %10s %10s\n", n, "bytes", "best", "median");
    for (size_t b = lo; b <= hi && t; b *= 2) {
        size_t chunk = (b / (size_t)n + 63) / 64 * 64, span = chunk * n;
        char *mine, *in[64], *out[64];
        MPI_Win win;
        MPI_Win_allocate_shared((MPI_Aint)(2 * span + 64), 1, MPI_INFO_NULL,
                                node, &mine, &win);
        for (int k = 0; k < n; k++) {
            MPI_Aint size;
            int unit;
            char *at;
            MPI_Win_shared_query(win, k, &size, &unit, &at);
            at += (64 - (uintptr_t)at % 64) % 64; /* a line's boundary */
            in[k] = at, out[k] = at + span;
        }
        for (int c = 0; c < tries; c++) {
            memset(in[me], (me * 31 + c) & 0xff, span); /* new input */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            fold(in, out, n, chunk * (size_t)me, chunk);
            t[c] = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t[c], 1, MPI_DOUBLE, MPI_MAX,
                          MPI_COMM_WORLD); /* also: every store landed */
        }
        bad |= wrong(out[me], span, n, tries - 1);
        qsort(t, (size_t)tries, sizeof(double), by_value);
        if (me == 0)
            printf("  %-9zu %10.2f %10.2f\n", b, t[0] * 1e6,
                   t[tries / 2] * 1e6);
        MPI_Win_free(&win);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && bad)
        printf("# FAIL: an output was wrong\n");
    free(t);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return bad;
}
