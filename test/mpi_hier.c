/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives at sizes from one element to beyond the single-copy
 * thresholds, on arena tensors and on wrapped (foreign) buffers, against
 * the independent reference (test/mpi_reference.c): all_reduce with every
 * op (new output and in place), reduce_scatter and all_gather along dim 0
 * (all_gather with uneven sizes), broadcast from every root, reduce to
 * each root in turn (in place and not); and
 * an unchecked barrier that no rank leaves early;
 * TCOMM_DETERMINISTIC=1 results bit for bit equal to those of a
 * communicator made with TCOMM_HIER=0. On one node this checks the flat
 * paths; in the namespace bed (test/netns/netns-check.sh: 2 x 2 ranks,
 * 1 + 2, ranks by node) the two-level ones of src/mpi/hier_colls.c,
 * also under TCOMM_TIMEOUT with MPI_HIER_COUNT_LIMIT (the bounded step
 * across nodes of src/mpi/hier_cross.c, in pieces).
 * Prints "mpi_hier: N checks, M failures" on rank 0; exits 1 on any
 * failure on any rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_reference.h"
#include "tcomm.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_test_hooks.h"

static int rank, nranks;
static long checks, failures;
static tcomm_graph_t *graph;

static void fail(const char *what, size_t i, double got, double want)
{
    if (failures++ < 10)
        fprintf(stderr, "mpi_hier rank %d: %s [%zu]: got %g want %g\n",
                rank, what, i, got, want);
}

static void ok_status(tcomm_status_t s, const char *what)
{
    checks++;
    if (s != TCOMM_SUCCESS && failures++ < 10)
        fprintf(stderr, "mpi_hier rank %d: %s: %s\n", rank, what,
                tcomm_last_error());
}

/* A 1-d tensor of n elements: from tcomm's arena, or over a malloc'd
 * buffer (*keep, freed by the caller) when wrapped. */
static tcomm_tensor_t *tensor(tcomm_dtype_t d, size_t n, int wrapped,
                              void **keep)
{
    tcomm_tensor_t *t = NULL;
    size_t shape[1] = {n};
    *keep = NULL;
    if (wrapped) {
        *keep = malloc(n * 8 + 8);
        tcomm_tensor_wrap(graph, d, *keep, 1, shape, &t);
    } else {
        tcomm_tensor_empty(graph, d, 1, shape, &t);
    }
    return t;
}

static void all_reduce_case(tcomm_comm_t *c, tcomm_dtype_t d, int op,
                            size_t n, int wrapped, int in_place)
{
    void *kin, *kout;
    tcomm_tensor_t *in = tensor(d, n, wrapped, &kin);
    tcomm_tensor_t *out = in_place ? in : tensor(d, n, wrapped, &kout);
    ref_fill(d, op, rank, tcomm_tensor_data(in), n);
    ok_status(tcomm_all_reduce_into(c, in, (tcomm_op_t)op, out),
              "all_reduce");
    const void *res = tcomm_tensor_data(out);
    for (size_t i = 0; i < n; i++) {
        double want = ref_reduce(d, op, nranks, i), got = ref_load(d, res, i);
        checks++;
        if (!ref_match(d, op, got, want))
            fail("all_reduce", i, got, want);
    }
    if (!in_place) {
        tcomm_tensor_release(out);
        free(kout);
    }
    tcomm_tensor_release(in);
    free(kin);
}

static void reduce_scatter_case(tcomm_comm_t *c, tcomm_dtype_t d, int op,
                                size_t chunk, int wrapped)
{
    void *kin, *kout;
    tcomm_tensor_t *in = tensor(d, chunk * (size_t)nranks, wrapped, &kin);
    tcomm_tensor_t *out = tensor(d, chunk, wrapped, &kout);
    ref_fill(d, op, rank, tcomm_tensor_data(in), chunk * (size_t)nranks);
    ok_status(tcomm_reduce_scatter_into(c, in, (tcomm_op_t)op, 0, out),
              "reduce_scatter");
    const void *res = tcomm_tensor_data(out);
    for (size_t i = 0; i < chunk; i++) {
        double want = ref_reduce(d, op, nranks, (size_t)rank * chunk + i);
        double got = ref_load(d, res, i);
        checks++;
        if (!ref_match(d, op, got, want))
            fail("reduce_scatter", i, got, want);
    }
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    free(kin);
    free(kout);
}

/* reduce to root: the reduction there (in place or not), out untouched
 * (NULL allowed) elsewhere. */
static void reduce_case(tcomm_comm_t *c, tcomm_dtype_t d, int op, size_t n,
                        int root, int in_place)
{
    void *kin, *kout = NULL;
    tcomm_tensor_t *in = tensor(d, n, 0, &kin), *out = NULL;
    ref_fill(d, op, rank, tcomm_tensor_data(in), n);
    if (rank == root)
        out = in_place ? in : tensor(d, n, 1, &kout);
    ok_status(tcomm_reduce_into(c, in, (tcomm_op_t)op, root, out), "reduce");
    for (size_t i = 0; out && i < n; i++) {
        double want = ref_reduce(d, op, nranks, i);
        double got = ref_load(d, tcomm_tensor_data(out), i);
        checks++;
        if (!ref_match(d, op, got, want))
            fail("reduce", i, got, want);
    }
    for (size_t i = 0; rank != root && i < n; i++) { /* input kept */
        checks++;
        if (ref_load(d, tcomm_tensor_data(in), i) != ref_value(d, op, rank, i))
            fail("reduce: input changed", i,
                 ref_load(d, tcomm_tensor_data(in), i),
                 ref_value(d, op, rank, i));
    }
    if (out && out != in)
        tcomm_tensor_release(out);
    free(kout);
    tcomm_tensor_release(in);
    free(kin);
}

/* Rank r contributes base + r elements. */
static void all_gather_case(tcomm_comm_t *c, tcomm_dtype_t d, size_t base,
                            int wrapped)
{
    size_t total = 0;
    for (int r = 0; r < nranks; r++)
        total += base + (size_t)r;
    void *kin, *kout;
    tcomm_tensor_t *in = tensor(d, base + (size_t)rank, wrapped, &kin);
    tcomm_tensor_t *out = tensor(d, total, wrapped, &kout);
    ref_fill(d, -1, rank, tcomm_tensor_data(in), base + (size_t)rank);
    ok_status(tcomm_all_gather_into(c, in, 0, out), "all_gather");
    const void *res = tcomm_tensor_data(out);
    size_t at = 0;
    for (int r = 0; r < nranks; r++)
        for (size_t i = 0; i < base + (size_t)r; i++, at++) {
            double want = ref_value(d, -1, r, i), got = ref_load(d, res, at);
            checks++;
            if (got != want)
                fail("all_gather", at, got, want);
        }
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    free(kin);
    free(kout);
}

static void broadcast_case(tcomm_comm_t *c, tcomm_dtype_t d, size_t n,
                           int root, int wrapped)
{
    void *kin, *kout;
    tcomm_tensor_t *in = tensor(d, n, wrapped, &kin);
    tcomm_tensor_t *out = tensor(d, n, wrapped, &kout);
    ref_fill(d, -1, rank == root ? root : nranks + rank,
             tcomm_tensor_data(in), n);
    ok_status(tcomm_broadcast_into(c, in, root, out), "broadcast");
    const void *res = tcomm_tensor_data(out);
    for (size_t i = 0; i < n; i++) {
        double want = ref_value(d, -1, root, i), got = ref_load(d, res, i);
        checks++;
        if (got != want)
            fail("broadcast", i, got, want);
    }
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    free(kin);
    free(kout);
}

/* all_reduce f32 SUM of non-integer values on a (deterministic) comm:
 * the bytes, to compare across communicators. */
static void *fold_bytes(tcomm_comm_t *c, size_t n)
{
    size_t shape[1] = {n};
    tcomm_tensor_t *in;
    tcomm_tensor_empty(graph, TCOMM_F32, 1, shape, &in);
    float *x = tcomm_tensor_data(in);
    for (size_t i = 0; i < n; i++)
        x[i] = 1.0f / (float)(1 + rank + 3 * (i % 101)) + 1e-3f * (float)i;
    ok_status(tcomm_all_reduce_into(c, in, TCOMM_SUM, in), "deterministic");
    void *copy = malloc(n * sizeof(float));
    memcpy(copy, x, n * sizeof(float));
    tcomm_tensor_release(in);
    return copy;
}

/* An unchecked barrier (the backend's own, hier_barrier across nodes):
 * in each round one rank arrives 50 ms late, after the others have
 * written a file each; none may leave before the late rank's file exists
 * (the ranks share a file system, the bed's hosts too). */
static void barrier_case(tcomm_comm_t *c)
{
    char dir[256] = "";
    if (rank == 0) {
        snprintf(dir, sizeof dir, "%s/mpi_hier.XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(dir))
            dir[0] = '\0';
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!dir[0]) {
        fail("barrier: no temporary directory", 0, 0, 0);
        return;
    }
    tcomm_comm_set_attr(c, TCOMM_ATTR_CHECK, 0);
    for (int k = 0; k < 2 * nranks; k++) {
        char path[300];
        if (rank == k % nranks)
            usleep(50000);
        snprintf(path, sizeof path, "%s/%d.%d", dir, k, rank);
        FILE *f = fopen(path, "w");
        if (f)
            fclose(f);
        ok_status(tcomm_barrier(c), "barrier");
        snprintf(path, sizeof path, "%s/%d.%d", dir, k, k % nranks);
        checks++;
        if (access(path, F_OK) != 0)
            fail("barrier: left before the late rank arrived", (size_t)k, 0, 0);
    }
    tcomm_comm_set_attr(c, TCOMM_ATTR_CHECK, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 2 * nranks; k++) {
        char path[300];
        snprintf(path, sizeof path, "%s/%d.%d", dir, k, rank);
        unlink(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        rmdir(dir);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    /* MPI_HIER_COUNT_LIMIT=N: MPI calls of at most N elements, so that
     * the step across nodes goes in pieces (test/netns/netns-check.sh) */
    const char *lim = getenv("MPI_HIER_COUNT_LIMIT");
    if (lim)
        tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, atol(lim));
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_comm_t *c;
    if (tcomm_graph_create(host, &graph) != TCOMM_SUCCESS ||
        tcomm_comm_create_mpi(MPI_COMM_WORLD, &c) != TCOMM_SUCCESS) {
        fprintf(stderr, "mpi_hier: setup: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    static const tcomm_dtype_t dtypes[] = {TCOMM_F32, TCOMM_I32, TCOMM_F64,
                                           TCOMM_BF16, TCOMM_U8};
    static const size_t sizes[] = {1, 13, 2048, 300000};
    for (size_t k = 0; k < sizeof dtypes / sizeof *dtypes; k++)
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(dtypes[k]))
                continue;
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                for (int w = 0; w < 2; w++) {
                    all_reduce_case(c, dtypes[k], op, sizes[s], w, w);
                    reduce_scatter_case(c, dtypes[k], op, sizes[s] / 2 + 1, w);
                    reduce_case(c, dtypes[k], op, sizes[s],
                                (int)(s + k) % nranks, w);
                }
        }
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int w = 0; w < 2; w++) {
            all_gather_case(c, TCOMM_F32, sizes[s], w);
            all_gather_case(c, TCOMM_U8, sizes[s] + 1, w);
            for (int root = 0; root < nranks; root++)
                broadcast_case(c, TCOMM_I32, sizes[s], root, w);
        }
    barrier_case(c);
    /* deterministic: the same bytes as a communicator without levels */
    tcomm_comm_set_attr(c, TCOMM_ATTR_DETERMINISTIC, 1);
    setenv("TCOMM_HIER", "0", 1);
    tcomm_config_reload();
    tcomm_comm_t *flat;
    ok_status(tcomm_comm_create_mpi(MPI_COMM_WORLD, &flat), "flat comm");
    tcomm_comm_set_attr(flat, TCOMM_ATTR_DETERMINISTIC, 1);
    for (size_t s = 1; s < sizeof sizes / sizeof *sizes; s++) {
        void *a = fold_bytes(c, sizes[s]), *b = fold_bytes(flat, sizes[s]);
        checks++;
        if (memcmp(a, b, sizes[s] * sizeof(float)))
            fail("deterministic bytes differ from the flat path", sizes[s],
                 0, 0);
        free(a);
        free(b);
    }
    tcomm_comm_destroy(flat);
    tcomm_comm_destroy(c);
    tcomm_graph_destroy(graph);
    long all[2], mine[2] = {checks, failures};
    MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_hier: %ld checks, %ld failures (%d ranks)\n", all[0],
               all[1], nranks);
    MPI_Finalize();
    return all[1] ? 1 : 0;
}
