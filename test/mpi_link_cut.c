/* SPDX-License-Identifier: BSD-3-Clause */
/* A link cut during a two-level call (test/netns/netns-check.sh):
 *   TCOMM_TIMEOUT=T mpirun ... test/mpi_link_cut COLL BYTES DIR
 * runs COLL (all_reduce, reduce_scatter, all_gather, broadcast or reduce)
 * on BYTES of f32 in a loop, each result checked against its value, and
 * writes DIR/ready once 3 calls have completed everywhere; the script then
 * cuts a host's link. The rank whose call fails writes one line to
 * DIR/rank.R (a file: the far host's output reaches mpirun only over the
 * link that is down):
 *   rank R: call K failed after X.XXX s (status S): <tcomm's error>
 * and leaves with status 3 without MPI_Finalize (MPI still holds the
 * request it gave up on). A wrong result: "rank R: call K wrong ..." and
 * status 1; no failure within 120 s: status 2. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm.h"
#include "tcomm_mpi.h"

static int rank, nranks;
static const char *dir;

/* One line to DIR/rank.R: "rank R: call K " and the rest. */
static void say(long k, const char *fmt, ...)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(f, "rank %d: call %ld ", rank, k);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
    fclose(f);
}

/* Element i of rank r's input, and what each collective must give. */
static float in_at(int r, size_t i)
{
    return (float)(r + 1 + (int)(i % 7));
}

static float sum_at(size_t i)
{
    float s = 0;
    for (int r = 0; r < nranks; r++)
        s += in_at(r, i);
    return s;
}

/* Checks every 997th element of out (n elements) after call k. */
static int wrong(const char *coll, const tcomm_tensor_t *out, size_t n,
                 size_t m, long k)
{
    const float *y = tcomm_tensor_data(out);
    int root = (int)(k % nranks);
    if (!strcmp(coll, "reduce") && rank != root)
        return 0;
    for (size_t i = 0; i < n; i += 997) {
        float want;
        if (!strcmp(coll, "reduce_scatter"))
            want = sum_at((size_t)rank * m + i);
        else if (!strcmp(coll, "all_gather"))
            want = in_at((int)(i / m), i % m);
        else if (!strcmp(coll, "broadcast"))
            want = in_at(root, i);
        else /* all_reduce, reduce */
            want = sum_at(i);
        if (y[i] != want) {
            say(k, "wrong: %s element %zu is %g, not %g", coll, i, y[i], want);
            return 1;
        }
    }
    return 0;
}

static tcomm_status_t run(tcomm_comm_t *c, const char *coll, long k,
                          tcomm_tensor_t *in, tcomm_tensor_t *part,
                          tcomm_tensor_t *out)
{
    int root = (int)(k % nranks);
    if (!strcmp(coll, "all_reduce"))
        return tcomm_all_reduce_into(c, in, TCOMM_SUM, out);
    if (!strcmp(coll, "reduce_scatter"))
        return tcomm_reduce_scatter_into(c, in, TCOMM_SUM, 0, out);
    if (!strcmp(coll, "all_gather"))
        return tcomm_all_gather_into(c, part, 0, out);
    if (!strcmp(coll, "broadcast"))
        return tcomm_broadcast_into(c, rank == root ? in : out, root, out);
    return tcomm_reduce_into(c, in, TCOMM_SUM, root, out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 4) {
        fprintf(stderr, "usage: mpi_link_cut COLL BYTES DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    const char *coll = argv[1];
    dir = argv[3];
    size_t n = (size_t)atol(argv[2]) / 4 / (size_t)nranks * (size_t)nranks;
    size_t m = n / (size_t)nranks;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    tcomm_comm_t *c;
    int rs = !strcmp(coll, "reduce_scatter");
    tcomm_tensor_t *in, *part, *out;
    size_t shape[1] = {n}, pshape[1] = {m};
    if (tcomm_graph_create(host, &g) != TCOMM_SUCCESS ||
        tcomm_comm_create_mpi(MPI_COMM_WORLD, &c) != TCOMM_SUCCESS ||
        tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &in) != TCOMM_SUCCESS ||
        tcomm_tensor_empty(g, TCOMM_F32, 1, pshape, &part) != TCOMM_SUCCESS ||
        tcomm_tensor_empty(g, TCOMM_F32, 1, rs ? pshape : shape, &out) !=
            TCOMM_SUCCESS) {
        fprintf(stderr, "mpi_link_cut: setup: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    float *x = tcomm_tensor_data(in), *p = tcomm_tensor_data(part);
    for (size_t i = 0; i < n; i++)
        x[i] = in_at(rank, i);
    for (size_t i = 0; i < m; i++)
        p[i] = in_at(rank, i);
    double t_end = MPI_Wtime() + 120;
    for (long k = 0; MPI_Wtime() < t_end; k++) {
        double t0 = MPI_Wtime();
        tcomm_status_t s = run(c, coll, k, in, part, out);
        if (s != TCOMM_SUCCESS) {
            say(k, "failed after %.3f s (status %d): %s", MPI_Wtime() - t0,
                (int)s, tcomm_last_error());
            _exit(3);
        }
        if (wrong(coll, out, rs ? m : n, m, k))
            _exit(1);
        if (k == 2 && rank == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/ready", dir);
            fclose(fopen(path, "w"));
        }
    }
    say(0, "and after: no failure within 120 s");
    _exit(2);
}
