/* SPDX-License-Identifier: BSD-3-Clause */
/* Times the candidate algorithms of the reshaping collectives against
 * the raw MPI call on the same bytes (not installed):
 *
 *   mpirun -np 2 bench/reshape_candidates [rows] [iters]
 *
 * all_gather along dim 1 of a [rows, n / rows] f32 output of 1..16 MiB
 * (each rank contributes [rows, n / rows / np]) against MPI_Allgather of
 * n / np floats; reduce_scatter along dim 1 of a [rows, n / rows] f32
 * input against MPI_Reduce_scatter_block of n / np floats. Each entry is
 * the best of 5 rounds of the mean over iters calls (the machine this
 * was tuned on is shared and noisy); ratio is against raw MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_mpi_kernels.h"
#include "allgather_candidates.h"

typedef int (*ag_fn)(const void *, void *, tcomm_dtype_t, size_t,
                     const size_t *, MPI_Comm);
typedef int (*rs_fn)(const void *, void *, tcomm_dtype_t, MPI_Op, size_t,
                     size_t, MPI_Comm);

static const struct {
    const char *name;
    ag_fn fn;
} ag[] = {
    {"ag_raw_MPI_Allgather", NULL},
    {"ag_(a)_tmp_unpack", tcomm_mpi_all_gather_dim_tmp},
    {"ag_(b)_alltoallw", tcomm_mpi_all_gather_dim_alltoallw},
    {"ag_(c)_rows_p2p", tcomm_mpi_all_gather_dim_rows},
    {"ag_(c')_vector_p2p", tcomm_mpi_all_gather_dim_vec},
    {"ag_(d)_pipelined", tcomm_mpi_all_gather_dim_pipe},
    {"ag_(e)_pull", tcomm_mpi_all_gather_dim_pull},
    {"ag_dispatch", tcomm_mpi_all_gather_dim},
};

static const struct { const char *name; rs_fn fn; } rs[] = {
    {"rs_raw_MPI_Reduce_scatter_block", NULL},
    {"rs_pack", tcomm_mpi_reduce_scatter_dim_pack},
    {"rs_pipelined", tcomm_mpi_reduce_scatter_dim_pipe},
    {"rs_dispatch", tcomm_mpi_reduce_scatter_dim},
};

#define NAG ((int)(sizeof ag / sizeof ag[0]))
#define NRS ((int)(sizeof rs / sizeof rs[0]))

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rank, np, iters;
    size_t rows, bytes, n, cols, seg[64];
    float *in, *out, *ref;
    double *times;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rows = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    iters = argc > 2 ? atoi(argv[2]) : 20;
    times = malloc((size_t)(NAG + NRS) * (size_t)iters * sizeof *times);
    in = malloc((16u << 20) + 64);
    out = malloc((16u << 20) + 64);
    ref = malloc((16u << 20) + 64);
    if (rank == 0)
        printf("%-34s %10s %10s %7s\n", "# candidate", "bytes", "us",
               "ratio");
    for (bytes = 1u << 20; bytes <= 16u << 20; bytes *= 2) {
        double best[NAG + NRS];
        n = bytes / sizeof(float);
        cols = n / rows / (size_t)np; /* per rank */
        for (int r = 0; r < np; r++)
            seg[r] = cols;
        for (size_t i = 0; i < n; i++)
            in[i] = (float)(i % 1000) + (float)rank;
        /* validate against (a), once */
        tcomm_mpi_all_gather_dim_tmp(in, ref, TCOMM_F32, rows, seg,
                                     MPI_COMM_WORLD);
        for (int c = 2; c < NAG; c++) {
            memset(out, 0, rows * cols * np * sizeof(float));
            ag[c].fn(in, out, TCOMM_F32, rows, seg, MPI_COMM_WORLD);
            if (memcmp(out, ref, rows * cols * np * sizeof(float)))
                printf("rank %d: %s gives a wrong result\n", rank,
                       ag[c].name);
        }
        /* candidates interleaved call by call, so that they share the
         * machine's noise; each call after a barrier, its time the
         * slowest rank's */
        for (int it = 0; it < iters; it++) {
            for (int c = 0; c < NAG + NRS; c++) {
                double t;
                MPI_Barrier(MPI_COMM_WORLD);
                t = MPI_Wtime();
                if (c == 0)
                    MPI_Allgather(in, (int)(rows * cols), MPI_FLOAT, out,
                                  (int)(rows * cols), MPI_FLOAT,
                                  MPI_COMM_WORLD);
                else if (c < NAG)
                    ag[c].fn(in, out, TCOMM_F32, rows, seg, MPI_COMM_WORLD);
                else if (c == NAG)
                    MPI_Reduce_scatter_block(in, out, (int)(rows * cols),
                                             MPI_FLOAT, MPI_SUM,
                                             MPI_COMM_WORLD);
                else
                    rs[c - NAG].fn(in, out, TCOMM_F32, MPI_SUM, rows, cols,
                                   MPI_COMM_WORLD);
                t = MPI_Wtime() - t;
                MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX,
                              MPI_COMM_WORLD);
                times[c * iters + it] = t;
            }
        }
        for (int c = 0; c < NAG + NRS; c++) {
            qsort(times + c * iters, (size_t)iters, sizeof(double), cmp);
            best[c] = times[c * iters + iters / 4]; /* lower quartile */
        }
        for (int c = 0; rank == 0 && c < NAG + NRS; c++) {
            const char *name = c < NAG ? ag[c].name : rs[c - NAG].name;
            double base = c < NAG ? best[0] : best[NAG];
            printf("%-34s %10zu %10.1f %7.2f\n", name, bytes, best[c] * 1e6,
                   best[c] / base);
        }
    }
    free(in);
    free(out);
    free(ref);
    free(times);
    MPI_Finalize();
    return 0;
}
