/* SPDX-License-Identifier: BSD-3-Clause */
/* The cost of tcomm's safety modes against raw MPI (not installed):
 *
 *   mpirun -np 2 bench/check_cost [max_bytes [min_bytes]]
 *   TCOMM_TIMEOUT=300 mpirun -np 2 bench/check_cost   (the timeout's cost)
 *
 * f32 SUM all_reduce into a preallocated output, per size: raw
 * MPI_Allreduce on the same buffers, tcomm with TCOMM_CHECK=0, with
 * TCOMM_CHECK=1 (agreement), and deterministic mode (checked). The modes
 * are interleaved in batches, so that the machine's drift hits them
 * alike; each figure is the best over batches of the mean latency in
 * microseconds (the least disturbed by other load on the machine; every
 * rank's time is averaged, rank 0 prints). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_mpi.h"

enum { M_MPI, M_CHECK0, M_CHECK1, M_DET, NMODES };
static const char *const names[NMODES] = {"mpi", "check=0", "check=1",
                                          "determ."};
#define BATCHES 21

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double run(int mode, tcomm_comm_t *c, tcomm_tensor_t *in,
                  tcomm_tensor_t *out, size_t n, int iters)
{
    void *src = tcomm_tensor_data(in), *dst = tcomm_tensor_data(out);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (mode == M_MPI)
            MPI_Allreduce(src, dst, (int)n, MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD);
        else if (tcomm_all_reduce_into(c, in, TCOMM_SUM, out) !=
                 TCOMM_SUCCESS) {
            fprintf(stderr, "%s\n", tcomm_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    double us = (MPI_Wtime() - t0) * 1e6 / iters, sum = 0;
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Allreduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / np;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t max_bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : 16u << 20;
    size_t min_bytes = argc > 2 ? strtoull(argv[2], NULL, 0) : 4;
    tcomm_comm_t *comm[NMODES] = {NULL};
    tcomm_graph_t *g;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_graph_create(host, &g) != TCOMM_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int m = M_CHECK0; m < NMODES; m++) {
        if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm[m]) !=
            TCOMM_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        tcomm_comm_set_attr(comm[m], TCOMM_ATTR_CHECK, m != M_CHECK0);
        tcomm_comm_set_attr(comm[m], TCOMM_ATTR_DETERMINISTIC, m == M_DET);
    }
    const char *to = getenv("TCOMM_TIMEOUT");
    if (rank == 0) {
        printf("# tcomm check_cost: f32 SUM all_reduce_into, %d ranks, "
               "TCOMM_TIMEOUT=%s, best of %d batches (us)\n",
               np, to ? to : "unset", BATCHES);
        printf("%10s %9s %9s %9s %9s %10s %9s %8s\n", "bytes", names[0],
               names[1], names[2], names[3], "check cost", "check %",
               "det/mpi");
    }
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
        size_t n = bytes / 4, s[1] = {n};
        float *v = malloc(bytes);
        for (size_t i = 0; i < n; i++)
            v[i] = (float)(rank + i % 7);
        tcomm_tensor_t *in, *out;
        tcomm_tensor_from_host(g, TCOMM_F32, v, 1, s, &in);
        tcomm_tensor_empty(g, TCOMM_F32, 1, s, &out);
        free(v);
        int iters = (int)(bytes <= 4096 ? 2000 : (64u << 20) / bytes);
        iters = iters < 5 ? 5 : iters;
        double t[NMODES][BATCHES], med[NMODES];
        for (int m = 0; m < NMODES; m++) /* warm up */
            run(m, comm[m], in, out, n, iters / 4 + 1);
        for (int b = 0; b < BATCHES; b++)
            for (int m = 0; m < NMODES; m++)
                t[m][b] = run(m, comm[m], in, out, n, iters);
        for (int m = 0; m < NMODES; m++) {
            qsort(t[m], BATCHES, sizeof(double), cmp);
            med[m] = t[m][0];
        }
        double cost = med[M_CHECK1] - med[M_CHECK0];
        if (rank == 0)
            printf("%10zu %9.2f %9.2f %9.2f %9.2f %10.2f %8.1f%% %8.2f\n",
                   bytes, med[0], med[1], med[2], med[3], cost,
                   100 * cost / med[M_CHECK0], med[M_DET] / med[M_MPI]);
        tcomm_tensor_release(out);
        tcomm_tensor_release(in);
    }
    for (int m = M_CHECK0; m < NMODES; m++)
        tcomm_comm_destroy(comm[m]);
    tcomm_graph_destroy(g);
    MPI_Finalize();
    return 0;
}
