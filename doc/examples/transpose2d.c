/* SPDX-License-Identifier: BSD-3-Clause */
/* A 2-D discrete Fourier transform of an n x m complex array split into
 * slabs of rows over the ranks (uneven slabs when n does not divide), the
 * way a distributed FFT swaps pencils:
 *   1. each rank transforms its rows along m (the dim it holds whole);
 *   2. one all_to_all turns the row slabs into column slabs: the local
 *      [rows][m][2] (re, im) is split along dim 1 (the columns, m_j of
 *      them to rank j) and the pieces are concatenated along dim 0, so
 *      every rank ends up with [n][m_me][2], all the rows of its columns;
 *   3. each rank transforms its columns along n.
 * When both n and m divide by the world size the swap is
 * tcomm_all_to_all_into (every rank sends the same shape); otherwise it
 * is tcomm_all_to_all_v with the column counts as send_sizes (a
 * transpose: every rank passes the same send_sizes, the ranks' row counts
 * may differ).
 *
 * Every rank then transforms the whole array serially, the same steps in
 * the same order, and compares its columns: the exit status is 0 only if
 * all ranks agree bitwise.
 *
 *   mpicc transpose2d.c $(pkg-config --cflags --libs tcomm) -lm \
 *       -o transpose2d
 *   mpirun -np 3 ./transpose2d [n m] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tcomm_mpi.h>

#define CHECK(call)                                                         \
    do {                                                                    \
        if ((call) != TCOMM_SUCCESS) {                                      \
            fprintf(stderr, "transpose2d: %s\n", tcomm_last_error());      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                   \
        }                                                                   \
    } while (0)

static const double pi = 3.14159265358979323846;

/* The input at global (i, j): re and im. */
static void input(int i, int j, double *v)
{
    v[0] = sin(0.3 * i + 0.1 * j * j) + 0.05 * j;
    v[1] = cos(0.7 * i * j) - 0.5;
}

/* The DFT of n complex values, stride apart (in units of complex), in
 * place: X[k] = sum_t x[t] exp(-2 pi i t k / n). */
static void dft(double *x, int n, size_t stride, double *tmp)
{
    for (int k = 0; k < n; k++) {
        double re = 0, im = 0;
        for (int t = 0; t < n; t++) {
            double a = -2 * pi * (double)((long)t * k % n) / n;
            const double *v = x + 2 * stride * (size_t)t;
            re += v[0] * cos(a) - v[1] * sin(a);
            im += v[0] * sin(a) + v[1] * cos(a);
        }
        tmp[2 * k] = re;
        tmp[2 * k + 1] = im;
    }
    for (int k = 0; k < n; k++)
        memcpy(x + 2 * stride * (size_t)k, tmp + 2 * k, 2 * sizeof *x);
}

/* The share of rank r in n things: the first n % np ranks get one more. */
static int share(int n, int np, int r)
{
    return n / np + (r < n % np);
}

static int first(int n, int np, int r)
{
    return r * (n / np) + (r < n % np ? r : n % np);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tcomm_comm_t *comm = NULL;
    tcomm_graph_t *graph = NULL;
    tcomm_comm_info_t info;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    CHECK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    CHECK(tcomm_comm_info(comm, &info));
    CHECK(tcomm_graph_create(host, &graph));
    int me = info.rank, np = info.world_size;
    int n = argc > 1 ? atoi(argv[1]) : 10, m = argc > 2 ? atoi(argv[2]) : 12;
    if (n < 1 || m < 1) {
        if (me == 0)
            fprintf(stderr, "usage: transpose2d [n m] (both 1 or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *tmp = malloc(2 * sizeof(double) * (size_t)(n > m ? n : m));

    /* my rows i0 .. i0+nl-1, all m columns: [nl][m][2] */
    int nl = share(n, np, me), i0 = first(n, np, me);
    double *rows = malloc(sizeof(double) * 2 * (size_t)nl * (size_t)m);
    for (int i = 0; i < nl; i++)
        for (int j = 0; j < m; j++)
            input(i0 + i, j, rows + 2 * ((size_t)i * m + j));
    for (int i = 0; i < nl; i++) /* 1. along m */
        dft(rows + 2 * (size_t)i * m, m, 1, tmp);

    /* 2. the pencil swap: [nl][m][2] -> [n][ml][2] */
    int ml = share(m, np, me), j0 = first(m, np, me);
    int even = n % np == 0 && m % np == 0;
    tcomm_tensor_t *trows = NULL, *tcols = NULL;
    size_t rshape[3] = {(size_t)nl, (size_t)m, 2};
    CHECK(tcomm_tensor_wrap(graph, TCOMM_F64, rows, 3, rshape, &trows));
    if (even) {
        size_t cshape[3] = {(size_t)n, (size_t)ml, 2};
        CHECK(tcomm_tensor_empty(graph, TCOMM_F64, 3, cshape, &tcols));
        CHECK(tcomm_all_to_all_into(comm, trows, 1, 0, tcols));
    } else {
        size_t *send_sizes = malloc(sizeof *send_sizes * (size_t)np);
        for (int r = 0; r < np; r++)
            send_sizes[r] = (size_t)share(m, np, r);
        CHECK(tcomm_all_to_all_v(comm, trows, 1, send_sizes, 0, &tcols));
        free(send_sizes);
    }
    double *cols = tcomm_tensor_data(tcols);
    for (int j = 0; j < ml; j++) /* 3. along n */
        dft(cols + 2 * (size_t)j, n, (size_t)ml, tmp);

    /* the whole array, serially, the same way */
    double *all = malloc(sizeof(double) * 2 * (size_t)n * (size_t)m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            input(i, j, all + 2 * ((size_t)i * m + j));
    for (int i = 0; i < n; i++)
        dft(all + 2 * (size_t)i * m, m, 1, tmp);
    for (int j = 0; j < m; j++)
        dft(all + 2 * (size_t)j, n, (size_t)m, tmp);
    double diff = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < ml; j++)
            for (int c = 0; c < 2; c++) {
                double d = fabs(cols[2 * ((size_t)i * ml + j) + c] -
                                all[2 * ((size_t)i * m + j0 + j) + c]);
                diff = d > diff ? d : diff;
            }

    /* the largest difference over the ranks */
    tcomm_tensor_t *tdiff = NULL;
    size_t one[1] = {1};
    CHECK(tcomm_tensor_wrap(graph, TCOMM_F64, &diff, 1, one, &tdiff));
    CHECK(tcomm_all_reduce_into(comm, tdiff, TCOMM_MAX, tdiff));
    int pass = diff == 0;
    if (me == 0)
        printf("transpose2d (C): %d ranks, %dx%d array, %s, X[0][0] = "
               "%.6f%+.6fi, max |parallel - serial| = %.1e: %s\n",
               np, n, m, even ? "all_to_all" : "all_to_all_v", all[0],
               all[1], diff, pass ? "PASS" : "FAIL");

    tcomm_tensor_release(tdiff);
    tcomm_tensor_release(tcols);
    tcomm_tensor_release(trows);
    free(all);
    free(rows);
    free(tmp);
    CHECK(tcomm_graph_destroy(graph));
    CHECK(tcomm_comm_destroy(comm));
    MPI_Finalize();
    return pass ? 0 : 1;
}
