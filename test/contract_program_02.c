/* SPDX-License-Identifier: BSD-3-Clause */
/* An outside program written only against design.md's contract 0.2
 * (all_to_all along any dims, its uneven forms, reduce_scatter_v), built
 * from the installed headers with pkg-config and run at 1-4 ranks. Every
 * expected value is computed here from the rule "rank r holds
 * r * 1000 + flat index", never by tcomm. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tcomm.h>
#include <tcomm_mpi.h>

static int rank, nranks, failures;
static tcomm_comm_t *comm;
static tcomm_graph_t *graph;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "rank %d: ", rank);                             \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

static size_t numel(int nd, const size_t *s)
{
    size_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= s[i];
    return n;
}

/* This rank's input: r * 1000 + flat index, as i64. */
static tcomm_tensor_t *input(int nd, const size_t *s)
{
    size_t n = numel(nd, s);
    int64_t *v = malloc((n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = rank * 1000 + (int64_t)i;
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_from_host(graph, TCOMM_I64, v, nd, s, &t))
        CHECK(0, "tensor_from_host: %s", tcomm_last_error());
    free(v);
    return t;
}

static int64_t *fetch(const tcomm_tensor_t *t, size_t n)
{
    int64_t *v = malloc((n + 1) * sizeof *v);
    if (tcomm_tensor_to_host(t, v, n * sizeof *v))
        CHECK(0, "tensor_to_host: %s", tcomm_last_error());
    return v;
}

/* all_to_all of [2n, 3n, 2n] for every (split, concat) pair. */
static void even(void)
{
    size_t n = (size_t)nranks, s[3] = {2 * n, 3 * n, 2 * n};
    tcomm_tensor_t *in = input(3, s);
    for (int sd = 0; sd < 3; sd++)
        for (int cd = 0; cd < 3; cd++) {
            tcomm_tensor_t *out = NULL;
            tcomm_status_t st = tcomm_all_to_all(comm, in, sd, cd, &out);
            CHECK(st == TCOMM_SUCCESS, "all_to_all(%d, %d): %s", sd, cd,
                  tcomm_last_error());
            if (st)
                continue;
            size_t os[3] = {s[0], s[1], s[2]}, c = s[sd] / n;
            if (sd != cd) { /* else the shape is unchanged */
                os[sd] = c;
                os[cd] *= n;
            }
            CHECK(tcomm_tensor_dim(out, sd) == os[sd] &&
                      tcomm_tensor_dim(out, cd) == os[cd],
                  "all_to_all(%d, %d): wrong shape", sd, cd);
            int64_t *v = fetch(out, numel(3, os));
            for (size_t f = 0; f < numel(3, os); f++) {
                size_t o[3] = {f / (os[1] * os[2]), f / os[2] % os[1],
                               f % os[2]};
                size_t i[3] = {o[0], o[1], o[2]}, r;
                if (sd == cd) {
                    r = o[cd] / c;
                    i[sd] = (size_t)rank * c + o[cd] % c;
                } else {
                    r = o[cd] / s[cd];
                    i[cd] = o[cd] % s[cd];
                    i[sd] = (size_t)rank * c + o[sd];
                }
                int64_t want = (int64_t)r * 1000 +
                               (int64_t)((i[0] * s[1] + i[1]) * s[2] + i[2]);
                CHECK(v[f] == want, "all_to_all(%d, %d)[%zu] = %lld, want "
                      "%lld", sd, cd, f, (long long)v[f], (long long)want);
            }
            free(v);
            tcomm_tensor_release(out);
        }
    tcomm_tensor_release(in);
}

/* Token exchange along dim 0 of [len, 3]: rank r sends (r + j) % 3 rows
 * to rank j. */
static void tokens(void)
{
    size_t send[4], len[4] = {0}, total = 0;
    for (int r = 0; r < nranks; r++)
        for (int j = 0; j < nranks; j++)
            len[r] += (size_t)((r + j) % 3);
    for (int j = 0; j < nranks; j++)
        send[j] = (size_t)((rank + j) % 3);
    size_t s[2] = {len[rank], 3};
    tcomm_tensor_t *in = input(2, s), *out = NULL;
    tcomm_status_t st = tcomm_all_to_all_v(comm, in, 0, send, 0, &out);
    CHECK(st == TCOMM_SUCCESS, "all_to_all_v tokens: %s",
          tcomm_last_error());
    for (int r = 0; r < nranks; r++)
        total += (size_t)((r + rank) % 3);
    if (!st) {
        CHECK(tcomm_tensor_dim(out, 0) == total, "tokens: wrong shape");
        int64_t *v = fetch(out, total * 3);
        size_t row = 0;
        for (int r = 0; r < nranks; r++) {
            size_t off = 0; /* where r's piece for me starts */
            for (int j = 0; j < rank; j++)
                off += (size_t)((r + j) % 3);
            for (size_t k = 0; k < (size_t)((r + rank) % 3); k++, row++)
                for (size_t c = 0; c < 3; c++) {
                    int64_t want = r * 1000 + (int64_t)((off + k) * 3 + c);
                    CHECK(v[row * 3 + c] == want, "tokens[%zu][%zu] = %lld, "
                          "want %lld", row, c, (long long)v[row * 3 + c],
                          (long long)want);
                }
        }
        free(v);
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
}

/* The pencil transpose: rank r holds r + 1 rows of M columns and sends
 * columns [off_j, off_j + j + 1) to rank j (split 1, concat 0). */
static void transpose(void)
{
    size_t send[4], m = 0, rows = 0, off = 0;
    for (int j = 0; j < nranks; j++) {
        send[j] = (size_t)j + 1;
        m += send[j];
        rows += (size_t)j + 1;
        off += j < rank ? send[j] : 0;
    }
    size_t s[2] = {(size_t)rank + 1, m}, w = send[rank];
    tcomm_tensor_t *in = input(2, s), *out = NULL;
    tcomm_status_t st = tcomm_all_to_all_v(comm, in, 1, send, 0, &out);
    CHECK(st == TCOMM_SUCCESS, "all_to_all_v transpose: %s",
          tcomm_last_error());
    if (!st) {
        CHECK(tcomm_tensor_dim(out, 0) == rows &&
                  tcomm_tensor_dim(out, 1) == w, "transpose: wrong shape");
        int64_t *v = fetch(out, rows * w);
        size_t row = 0;
        for (int r = 0; r < nranks; r++)
            for (size_t k = 0; k <= (size_t)r; k++, row++)
                for (size_t c = 0; c < w; c++) {
                    int64_t want = r * 1000 + (int64_t)(k * m + off + c);
                    CHECK(v[row * w + c] == want, "transpose[%zu][%zu] = "
                          "%lld, want %lld", row, c,
                          (long long)v[row * w + c], (long long)want);
                }
        free(v);
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
}

/* reduce_scatter_v SUM along dim 1 of [2, L]: rank r keeps r columns
 * (rank 0 an empty chunk). */
static void reduce_scatter_v(void)
{
    size_t sizes[4], l = 0, off = 0;
    for (int r = 0; r < nranks; r++) {
        sizes[r] = (size_t)r;
        off += r < rank ? sizes[r] : 0;
        l += sizes[r];
    }
    size_t s[2] = {2, l}, w = sizes[rank];
    tcomm_tensor_t *in = input(2, s), *out = NULL;
    tcomm_status_t st = tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 1, sizes,
                                               &out);
    CHECK(st == TCOMM_SUCCESS, "reduce_scatter_v: %s", tcomm_last_error());
    if (!st) {
        CHECK(tcomm_tensor_dim(out, 1) == w, "reduce_scatter_v: shape");
        int64_t *v = fetch(out, 2 * w);
        for (size_t i = 0; i < 2; i++)
            for (size_t c = 0; c < w; c++) {
                int64_t want = 1000LL * nranks * (nranks - 1) / 2 +
                               nranks * (int64_t)(i * l + off + c);
                CHECK(v[i * w + c] == want, "reduce_scatter_v[%zu][%zu] = "
                      "%lld, want %lld", i, c, (long long)v[i * w + c],
                      (long long)want);
            }
        free(v);
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (nranks > 4 || tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) ||
        tcomm_graph_create(host, &graph)) {
        fprintf(stderr, "setup: %s (1-4 ranks)\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    even();
    tokens();
    transpose();
    reduce_scatter_v();
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(graph);
    int any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("contract 0.2 at %d ranks: %s\n", nranks,
               any ? "FAILED" : "all results correct");
    MPI_Finalize();
    return any ? 1 : 0;
}
