/* SPDX-License-Identifier: BSD-3-Clause */
/* An outside program written only against design.md's C contract: it is
 * built from the installed headers with `pkg-config --cflags --libs
 * tcomm` and checks every collective, dtype, op and dim. Values are
 * small integers, exact in every dtype, so results compare exactly. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tcomm.h>
#include <tcomm_mpi.h>

static int rank, nranks, checks, failures;

static void put(tcomm_dtype_t d, void *b, size_t i, int v)
{
    switch (d) {
    case TCOMM_U8: ((uint8_t *)b)[i] = (uint8_t)v; break;
    case TCOMM_I8: ((int8_t *)b)[i] = (int8_t)v; break;
    case TCOMM_I32: ((int32_t *)b)[i] = v; break;
    case TCOMM_U32: ((uint32_t *)b)[i] = (uint32_t)v; break;
    case TCOMM_I64: ((int64_t *)b)[i] = v; break;
    case TCOMM_F32: ((float *)b)[i] = (float)v; break;
    case TCOMM_F64: ((double *)b)[i] = v; break;
    case TCOMM_BF16: { /* small integers: the top half of the float */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        ((uint16_t *)b)[i] = (uint16_t)(u >> 16);
        break;
    }
    case TCOMM_F16: { /* small integers only: |v| < 2048 */
        uint16_t h = 0;
        if (v) {
            unsigned a = (unsigned)abs(v);
            int e = 0;
            while ((a >> e) > 1)
                e++;
            h = (uint16_t)(((e + 15) << 10) | ((a << (10 - e)) & 0x3ff));
            h |= v < 0 ? 0x8000 : 0;
        }
        ((uint16_t *)b)[i] = h;
        break;
    }
    }
}

static double get(tcomm_dtype_t d, const void *b, size_t i)
{
    switch (d) {
    case TCOMM_U8: return ((const uint8_t *)b)[i];
    case TCOMM_I8: return ((const int8_t *)b)[i];
    case TCOMM_I32: return ((const int32_t *)b)[i];
    case TCOMM_U32: return ((const uint32_t *)b)[i];
    case TCOMM_I64: return (double)((const int64_t *)b)[i];
    case TCOMM_F32: return ((const float *)b)[i];
    case TCOMM_F64: return ((const double *)b)[i];
    case TCOMM_BF16: {
        uint32_t u = (uint32_t)((const uint16_t *)b)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case TCOMM_F16: {
        uint16_t h = ((const uint16_t *)b)[i];
        int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double v = e ? ldexp(m + 1024, e - 25) : ldexp(m, -24);
        return h & 0x8000 ? -v : v;
    }
    }
    return NAN;
}

static int is_unsigned(tcomm_dtype_t d) { return d == TCOMM_U8 || d == TCOMM_U32; }

/* Rank r's element i: 1..4 (PROD stays small), signed types may go
 * negative. */
static int value(tcomm_dtype_t d, int r, size_t i)
{
    int v = (int)((r * 3 + i) % 4) + 1;
    return is_unsigned(d) || (i % 3) ? v : -v;
}

static void expect(int ok, const char *what, tcomm_dtype_t d, int op,
                   int dim)
{
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "rank %d: %s dtype %d op %d dim %d wrong: %s\n",
                rank, what, (int)d, op, dim, tcomm_last_error());
    }
}

static tcomm_tensor_t *input(tcomm_graph_t *g, tcomm_dtype_t d, int nd,
                             const size_t *shape)
{
    size_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    void *b = malloc(n * 8 + 8);
    for (size_t i = 0; i < n; i++)
        put(d, b, i, value(d, rank, i));
    tcomm_tensor_t *t = NULL;
    tcomm_tensor_from_host(g, d, b, nd, shape, &t);
    free(b);
    return t;
}

static double fold(tcomm_dtype_t d, int op, size_t i)
{
    double want = value(d, 0, i);
    for (int r = 1; r < nranks; r++) {
        double v = value(d, r, i);
        want = op == TCOMM_PROD  ? want * v
               : op == TCOMM_MIN ? fmin(want, v)
               : op == TCOMM_MAX ? fmax(want, v)
                                 : want + v;
    }
    return op == TCOMM_AVG ? want / nranks : want;
}

static int close_to(double got, double want, int op)
{
    return fabs(got - want) <= (op == TCOMM_AVG ? 0.02 * fabs(want) : 0);
}

/* The input is [rows, cols] = [2n, 3n]: both dims split over n ranks. */
static void test_dtype(tcomm_comm_t *c, tcomm_graph_t *g, tcomm_dtype_t d)
{
    size_t n = (size_t)nranks, rows = 2 * n, cols = 3 * n;
    size_t shape[2] = {rows, cols};
    tcomm_tensor_t *in = input(g, d, 2, shape), *out;
    char *buf = malloc(rows * cols * n * 8);
    int fl = d == TCOMM_F16 || d == TCOMM_BF16 || d == TCOMM_F32 ||
             d == TCOMM_F64;
    for (int op = TCOMM_SUM; op <= TCOMM_AVG; op++) {
        if (op == TCOMM_AVG && !fl) {
            out = NULL;
            expect(tcomm_all_reduce(c, in, op, &out) == TCOMM_ERR_DTYPE &&
                       !out,
                   "avg on integers", d, op, -1);
            continue;
        }
        int ok = tcomm_all_reduce(c, in, op, &out) == TCOMM_SUCCESS &&
                 tcomm_tensor_graph_id(out) == tcomm_graph_id(g);
        if (ok) {
            tcomm_tensor_to_host(out, buf, rows * cols * 8);
            for (size_t i = 0; i < rows * cols; i++)
                ok &= close_to(get(d, buf, i), fold(d, op, i), op);
            tcomm_tensor_release(out);
        }
        expect(ok, "all_reduce", d, op, -1);
        for (int dim = 0; dim < 2; dim++) {
            ok = tcomm_reduce_scatter(c, in, op, dim, &out) ==
                 TCOMM_SUCCESS;
            size_t orows = dim ? rows : rows / n, ocols = dim ? cols / n
                                                              : cols;
            if (ok) {
                ok = tcomm_tensor_dim(out, 0) == orows &&
                     tcomm_tensor_dim(out, 1) == ocols;
                tcomm_tensor_to_host(out, buf, rows * cols * 8);
                for (size_t i = 0; ok && i < orows * ocols; i++) {
                    size_t r = i / ocols, k = i % ocols;
                    size_t src = dim ? r * cols + (size_t)rank * ocols + k
                                     : ((size_t)rank * orows + r) * cols + k;
                    ok = close_to(get(d, buf, i), fold(d, op, src), op);
                }
                tcomm_tensor_release(out);
            }
            expect(ok, "reduce_scatter", d, op, dim);
        }
    }
    for (int dim = 0; dim < 2; dim++) {
        int ok = tcomm_all_gather(c, in, dim, &out) == TCOMM_SUCCESS;
        size_t orows = dim ? rows : rows * n, ocols = dim ? cols * n : cols;
        if (ok) {
            ok = n == 1 || (tcomm_tensor_dim(out, 0) == orows &&
                            tcomm_tensor_dim(out, 1) == ocols);
            tcomm_tensor_to_host(out, buf, rows * cols * n * 8);
            for (size_t i = 0; ok && i < orows * ocols; i++) {
                size_t r = i / ocols, k = i % ocols;
                size_t q = dim ? k / cols : r / rows;
                size_t li = dim ? r * cols + k % cols : (r % rows) * cols + k;
                ok = get(d, buf, i) == value(d, (int)q, li);
            }
            tcomm_tensor_release(out);
        }
        expect(ok, "all_gather", d, -1, dim);
    }
    for (int root = 0; root < nranks; root++) {
        int ok = tcomm_broadcast(c, in, root, &out) == TCOMM_SUCCESS;
        if (ok) {
            tcomm_tensor_to_host(out, buf, rows * cols * 8);
            for (size_t i = 0; i < rows * cols; i++)
                ok &= get(d, buf, i) == value(d, root, i);
            tcomm_tensor_release(out);
        }
        expect(ok, "broadcast", d, -1, root);
    }
    free(buf);
    tcomm_tensor_release(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_comm_t *c;
    tcomm_graph_t *g;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &c) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &g) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int d = TCOMM_U8; d <= TCOMM_F64; d++)
        test_dtype(c, g, (tcomm_dtype_t)d);
    expect(tcomm_barrier(c) == TCOMM_SUCCESS, "barrier", 0, -1, -1);
    tcomm_comm_destroy(c);
    tcomm_graph_destroy(g);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("contract program at %d ranks: %d checks per rank, %d "
               "failures\n",
               nranks, checks, total);
    MPI_Finalize();
    return total ? EXIT_FAILURE : EXIT_SUCCESS;
}
