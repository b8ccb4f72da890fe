/* SPDX-License-Identifier: BSD-3-Clause */
/* Times all_to_all's candidates for strided blocks against raw
 * MPI_Alltoall of the same bytes (not installed):
 *
 *   mpirun -np 2 bench/alltoall_candidates [rows] [iters]
 *
 * A [rows, n / rows] f32 tensor of 4 KiB..16 MiB, for (split, concat) =
 * (0, 1), (1, 0) and (1, 1): (a) pack/unpack around MPI_Alltoall,
 * (b) MPI_Alltoallw, (c) per-peer vector messages, (d) per-run messages,
 * (e) the pull (one node). Each entry is the
 * lower quartile of iters calls, interleaved call by call so that the candidates share the
 * machine's noise; ratio is against MPI_Alltoall. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_mpi_all_to_all.h"
#include "tcomm_node_call.h"

typedef int (*a2a_fn)(const tcomm_all_to_all_plan_t *, const void *, void *,
                      MPI_Comm);

static int pack_fn(const tcomm_all_to_all_plan_t *p, const void *in, void *out,
                   MPI_Comm comm)
{
    tcomm_path_t path;
    return tcomm_all_to_all_pack(p, in, out, 1, comm, &path);
}

static int pull_fn(const tcomm_all_to_all_plan_t *p, const void *in, void *out,
                   MPI_Comm comm)
{
    int done;
    return tcomm_all_to_all_pull(p, in, out, comm, TCOMM_NODE_ATTACH, &done);
}

static const struct {
    const char *name;
    a2a_fn fn;
} cand[] = {
    {"raw_MPI_Alltoall", NULL},
    {"(a)_pack_unpack", pack_fn},
    {"(b)_alltoallw", tcomm_all_to_all_alltoallw},
    {"(c)_vector_p2p", tcomm_all_to_all_vector},
    {"(d)_rows_p2p", tcomm_all_to_all_rows},
    {"(e)_pull", pull_fn},
};
#define NC ((int)(sizeof cand / sizeof cand[0]))

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The layout of an equal all_to_all of [rows, cols] (as all_to_all.c). */
static void layout(tcomm_all_to_all_plan_t *p, size_t rows, size_t cols,
                   int split, int concat)
{
    size_t n = (size_t)p->nranks, in[2] = {rows, cols}, out[2] = {rows, cols};
    out[split] /= n;
    out[concat] *= n;
    p->souter = split ? rows : 1;
    p->stotal = split ? cols : rows * cols;
    tcomm_all_to_all_plan_cols(p->sw, p->soff, p->nranks, NULL, in[split] / n,
                               split ? 1 : cols);
    p->router = concat ? out[0] : 1;
    p->rtotal = concat ? out[1] : out[0] * out[1];
    tcomm_all_to_all_plan_cols(p->rw, p->roff, p->nranks, NULL,
                               split == concat ? in[split] / n : in[concat],
                               concat ? 1 : out[1]);
    p->equal = 1;
    p->fits = 1;
}

int main(int argc, char **argv)
{
    static const int pairs[3][2] = {{0, 1}, {1, 0}, {1, 1}};
    int rank, np, iters;
    size_t rows, bytes;
    float *in, *out, *ref;
    double *t;
    tcomm_all_to_all_plan_t p;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rows = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    iters = argc > 2 ? atoi(argv[2]) : 40;
    t = malloc((size_t)NC * (size_t)iters * sizeof *t);
    in = malloc((16u << 20) + 64);
    out = malloc((16u << 20) + 64);
    ref = malloc((16u << 20) + 64);
    tcomm_all_to_all_plan_alloc(&p, TCOMM_F32, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-18s %5s %9s %10s %7s\n", "# candidate", "split", "bytes",
               "us", "ratio");
    for (bytes = 4u << 10; bytes <= 16u << 20; bytes *= 4) {
        size_t n = bytes / sizeof(float), cols = n / rows;
        for (size_t i = 0; i < n; i++)
            in[i] = (float)(i % 1000) + 1000.0f * (float)rank;
        for (int k = 0; k < 3; k++) {
            double q[NC];
            layout(&p, rows, cols, pairs[k][0], pairs[k][1]);
            pack_fn(&p, in, ref, MPI_COMM_WORLD);
            for (int c = 2; c < NC; c++) {
                memset(out, 0, bytes);
                cand[c].fn(&p, in, out, MPI_COMM_WORLD);
                if (memcmp(out, ref, bytes))
                    printf("rank %d: %s gives a wrong result\n", rank,
                           cand[c].name);
            }
            for (int it = 0; it < iters; it++)
                for (int c = 0; c < NC; c++) {
                    double t0;
                    MPI_Barrier(MPI_COMM_WORLD);
                    t0 = MPI_Wtime();
                    if (c == 0)
                        MPI_Alltoall(in, (int)(n / (size_t)np), MPI_FLOAT,
                                     out, (int)(n / (size_t)np), MPI_FLOAT,
                                     MPI_COMM_WORLD);
                    else
                        cand[c].fn(&p, in, out, MPI_COMM_WORLD);
                    t0 = MPI_Wtime() - t0;
                    MPI_Allreduce(MPI_IN_PLACE, &t0, 1, MPI_DOUBLE, MPI_MAX,
                                  MPI_COMM_WORLD);
                    t[c * iters + it] = t0;
                }
            for (int c = 0; c < NC; c++) {
                qsort(t + c * iters, (size_t)iters, sizeof(double), cmp);
                q[c] = t[c * iters + iters / 4]; /* lower quartile */
            }
            for (int c = 0; rank == 0 && c < NC; c++)
                printf("%-18s %3d/%d %9zu %10.1f %7.2f\n", cand[c].name,
                       pairs[k][0], pairs[k][1], bytes, q[c] * 1e6,
                       q[c] / q[0]);
        }
    }
    tcomm_all_to_all_plan_free(&p);
    free(in);
    free(out);
    free(ref);
    free(t);
    MPI_Finalize();
    return 0;
}
