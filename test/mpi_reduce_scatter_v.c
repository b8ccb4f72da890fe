/* SPDX-License-Identifier: BSD-3-Clause */
/* tcomm_reduce_scatter_v on host tensors (MPI backend) at 1-4 ranks:
 * every dtype x op along every dim of 1-4-d shapes, with uneven, equal
 * and zero-size chunks (the dim-0 MPI_Reduce_scatter, reduce_scatter's
 * pipeline for equal chunks along dim > 0, split_pack + MPI_Reduce_scatter
 * for uneven ones, whole or in pipelined groups of rows), NaN
 * propagation of float MIN/MAX, empty tensors, the
 * large-count splitting path (count limit lowered by the test hook), and
 * TCOMM_DETERMINISTIC=1, whose result must be bit for bit the left fold
 * in rank order that every rank computes itself, for every rank's chunk
 * (so bitwise equal across ranks). Values are checked against
 * test/mpi_reference.h, from every rank's regenerated input. */
#include <check.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"
#include "mpi_suite.h"
#include "tcomm_config.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi.h"
#include "tcomm_test_hooks.h"

static tcomm_comm_t *comm, *det_comm;
static tcomm_graph_t *graph;
static int rank, nranks;

#define NPATTERNS 4

/* Rank r's chunk along the dim in pattern p: uneven with zeros (0, 1),
 * equal (2), all on the last rank (3). */
static size_t chunk_size(int p, int r)
{
    switch (p) {
    case 0: return (size_t)(r * 2 + 1) % 4;
    case 1: return (size_t)(r * 2 + 2) % 4;
    case 2: return 2;
    default: return r == nranks - 1 ? 3 : 0;
    }
}

static size_t prod(int lo, int hi, const size_t *s)
{
    size_t p = 1;
    for (int i = lo; i < hi; i++)
        p *= s[i];
    return p;
}

/* One call along dim of a shape whose other dims are base's; sizes from
 * pattern p. NaN at element 1 of the last rank's input for float
 * MIN/MAX. */
static void rsv_case(tcomm_dtype_t d, int op, int nd, const size_t *base,
                     int dim, int p)
{
    size_t sizes[4], shape[TCOMM_MAX_DIMS], total = 0, off = 0;
    for (int r = 0; r < nranks; r++) {
        sizes[r] = chunk_size(p, r);
        off += r < rank ? sizes[r] : 0;
        total += sizes[r];
    }
    memcpy(shape, base, (size_t)nd * sizeof *shape);
    shape[dim] = total;
    size_t n = prod(0, nd, shape), es = tcomm_dtype_size(d);
    size_t inner = prod(dim + 1, nd, shape);
    void *host = malloc(n * es + 1);
    ref_fill(d, op, rank, host, n);
    int nan = ref_is_float(d) && (op == TCOMM_MIN || op == TCOMM_MAX) &&
              n > 1;
    if (nan && rank == nranks - 1)
        ref_store_nan(d, host, 1);
    tcomm_tensor_t *in, *out = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(graph, d, host, nd, shape, &in),
                     TCOMM_SUCCESS);
    tcomm_status_t st = tcomm_reduce_scatter_v(comm, in, (tcomm_op_t)op, dim,
                                               sizes, &out);
    ck_assert_msg(st == TCOMM_SUCCESS, "reduce_scatter_v %s %s dim %d: %s",
                  tcomm_dtype_name(d), tcomm_op_name(op), dim,
                  tcomm_last_error());
    ck_assert_int_eq(tcomm_tensor_ndim(out), nd);
    for (int i = 0; i < nd; i++)
        ck_assert_uint_eq(tcomm_tensor_dim(out, i),
                          i == dim ? sizes[rank] : shape[i]);
    ck_assert_uint_eq(tcomm_tensor_graph_id(out), tcomm_graph_id(graph));
    size_t m = tcomm_tensor_numel(out), w = sizes[rank] * inner;
    char *res = malloc(m * es + 1), *now = malloc(n * es + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(out, res, m * es), TCOMM_SUCCESS);
    for (size_t j = 0; j < m; j++) {
        size_t o = j / w, src = o * total * inner + off * inner + j % w;
        double want = nan && src == 1 ? NAN : ref_reduce(d, op, nranks, src);
        double got = ref_load(d, res, j);
        ck_assert_msg(ref_match(d, op, got, want),
                      "reduce_scatter_v %s %s nd %d dim %d pattern %d [%zu]"
                      ": got %g want %g", tcomm_dtype_name(d),
                      tcomm_op_name(op), nd, dim, p, j, got, want);
    }
    ck_assert_int_eq(tcomm_tensor_to_host(in, now, n * es), TCOMM_SUCCESS);
    ck_assert_msg(!memcmp(now, host, n * es), "the input was modified");
    free(now);
    free(res);
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static const size_t base4[4] = {2, 3, 2, 3};

/* Every dim of 1-4-d shapes, every pattern. */
static void every_dim(tcomm_dtype_t d, int op)
{
    for (int nd = 1; nd <= 4; nd++)
        for (int dim = 0; dim < nd; dim++)
            for (int p = 0; p < NPATTERNS; p++)
                rsv_case(d, op, nd, base4, dim, p);
}

START_TEST(every_dtype_op_dim)
{
    tcomm_dtype_t d = (tcomm_dtype_t)_i;
    for (int op = 0; op < TCOMM_OP_COUNT; op++)
        if (op != TCOMM_AVG || ref_is_float(d))
            every_dim(d, op);
}
END_TEST

/* A zero-size dim besides the scattered one, and all chunks empty. */
START_TEST(empty_tensors)
{
    static const size_t e3[3] = {0, 3, 2}, z2[2] = {4, 0};
    for (int op = 0; op < TCOMM_OP_COUNT; op++) {
        rsv_case(TCOMM_F32, op, 3, e3, 1, 0);
        rsv_case(TCOMM_F32, op, 3, e3, 2, 2);
        rsv_case(TCOMM_I32, op == TCOMM_AVG ? TCOMM_SUM : op, 2, z2, 0, 0);
    }
    if (nranks > 1) { /* every rank's chunk 0: shape[dim] = 0 */
        size_t shape[2] = {3, 0}, sizes[4] = {0, 0, 0, 0};
        tcomm_tensor_t *in, *out = NULL;
        ck_assert_int_eq(tcomm_tensor_empty(graph, TCOMM_F64, 2, shape, &in),
                         TCOMM_SUCCESS);
        ck_assert_int_eq(tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 1,
                                                sizes, &out),
                         TCOMM_SUCCESS);
        ck_assert_uint_eq(tcomm_tensor_numel(out), 0);
        ck_assert_uint_eq(tcomm_tensor_dim(out, 0), 3);
        tcomm_tensor_release(out);
        tcomm_tensor_release(in);
    }
}
END_TEST

/* Inputs above the 16 KiB that the packed temporary takes on the stack
 * (the cached or malloc'd and agreed one), and of several pipeline
 * groups (512 KiB for two): of rows, of pieces of rows wider than a
 * group, and along dim 0 from 2 MiB. */
START_TEST(big_uneven_along_dim_1)
{
    static const size_t b3[3] = {64, 0, 16}, rows[3] = {2048, 0, 8};
    static const size_t wide[3] = {2, 0, 30000}; /* rows > 256 KiB */
    static const size_t flat[2] = {0, 100000}; /* dim 0 from 2 MiB */
    for (int p = 0; p < NPATTERNS; p++) {
        rsv_case(TCOMM_F64, TCOMM_SUM, 3, b3, 1, p);
        rsv_case(TCOMM_BF16, TCOMM_MAX, 3, b3, 1, p);
        rsv_case(TCOMM_I32, TCOMM_PROD, 3, b3, 2, p);
        rsv_case(TCOMM_F32, TCOMM_SUM, 3, rows, 1, p);
        rsv_case(TCOMM_BF16, TCOMM_MIN, 3, rows, 1, p);
        rsv_case(TCOMM_F32, TCOMM_MAX, 3, wide, 1, p);
        rsv_case(TCOMM_F64, TCOMM_SUM, 2, flat, 0, p);
    }
}
END_TEST

/* At most 7 elements per MPI call: the per-block MPI_Reduce fallback of
 * tcomm_mpi_reduce_scatter_counts (counts above INT_MAX take it where
 * MPI has no large-count call). */
START_TEST(large_count_splitting_path)
{
    long saved = tcomm_test_hook(TCOMM_HOOK_COUNT_LIMIT);
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 7);
    static const size_t big[3] = {5, 2, 11};
    static const tcomm_dtype_t dts[] = {TCOMM_F32, TCOMM_BF16, TCOMM_I64};
    for (size_t k = 0; k < 3; k++)
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(dts[k]))
                continue;
            for (int dim = 0; dim < 3; dim++)
                for (int p = 0; p < NPATTERNS; p++)
                    rsv_case(dts[k], op, 3, big, dim, p);
        }
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, saved);
}
END_TEST

/* Values of both signs and magnitudes, so that the order of the fold
 * shows in the rounding (in range for f16). */
static double order_value(int r, size_t i)
{
    static const double pick[8] = {1000, 1, -1000, 3.25, 1e-3, -750, 0.1,
                                   -2};
    uint64_t h = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL ^
                 (uint64_t)(r + 1) * 0xc2b2ae3d27d4eb4fULL;
    h ^= h >> 29;
    return pick[h % 8] * (1 + (double)(h >> 40 & 0xff) / 256);
}

static void order_fill(tcomm_dtype_t d, int r, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ref_store(d, buf, i, order_value(r, i));
}

/* Deterministic: every rank's chunk, gathered to all, equals the left
 * fold in rank order of the whole input, bit for bit. */
static void det_case(tcomm_dtype_t d, int op, int nd, int dim, int p)
{
    size_t sizes[4], shape[TCOMM_MAX_DIMS], total = 0;
    for (int r = 0; r < nranks; r++)
        total += sizes[r] = chunk_size(p, r);
    memcpy(shape, base4, sizeof base4);
    shape[dim] = total;
    size_t n = prod(0, nd, shape), es = tcomm_dtype_size(d);
    size_t outer = prod(0, dim, shape), inner = prod(dim + 1, nd, shape);
    char *x = malloc(n * es + 1), *want = malloc(n * es + 1);
    order_fill(d, 0, want, n);
    for (int r = 1; r < nranks; r++) {
        order_fill(d, r, x, n);
        tcomm_host_reduce(d, (tcomm_op_t)op, want, x, n);
    }
    if (op == TCOMM_AVG)
        tcomm_host_divide(d, want, n, nranks);
    order_fill(d, rank, x, n);
    tcomm_tensor_t *in, *out = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(graph, d, x, nd, shape, &in),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_reduce_scatter_v(det_comm, in, (tcomm_op_t)op,
                                            dim, sizes, &out),
                     TCOMM_SUCCESS);
    /* everybody's chunks: [rank][outer][sizes[rank] * inner] */
    int cnt[4], dsp[4], at = 0;
    for (int r = 0; r < nranks; r++) {
        cnt[r] = (int)(outer * sizes[r] * inner * es);
        dsp[r] = at;
        at += cnt[r];
    }
    char *mine = malloc(n * es + 1), *all = malloc(n * es + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(out, mine, (size_t)cnt[rank]),
                     TCOMM_SUCCESS);
    MPI_Allgatherv(mine, cnt[rank], MPI_BYTE, all, cnt, dsp, MPI_BYTE,
                   MPI_COMM_WORLD);
    for (int r = 0, col = 0; r < nranks; col += (int)sizes[r++]) {
        size_t row = sizes[r] * inner * es;
        for (size_t o = 0; o < outer; o++)
            ck_assert_msg(!memcmp(all + dsp[r] + o * row,
                                  want + (o * total + (size_t)col) * inner *
                                             es, row),
                          "deterministic %s %s nd %d dim %d pattern %d: "
                          "rank %d's chunk is not the rank-order fold",
                          tcomm_dtype_name(d), tcomm_op_name(op), nd, dim,
                          p, r);
    }
    free(mine);
    free(all);
    free(x);
    free(want);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

START_TEST(deterministic_left_fold)
{
    static const tcomm_dtype_t dts[] = {TCOMM_F16, TCOMM_BF16, TCOMM_F32,
                                        TCOMM_F64};
    long saved = tcomm_test_hook(TCOMM_HOOK_COUNT_LIMIT);
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, _i ? 5 : 0);
    for (size_t k = 0; k < 4; k++)
        for (int op = 0; op < TCOMM_OP_COUNT; op++)
            for (int nd = 1; nd <= 4; nd++)
                for (int dim = 0; dim < nd; dim++)
                    for (int p = 0; p < NPATTERNS; p++)
                        det_case(dts[k], op, nd, dim, p);
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, saved);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    setenv("TCOMM_DETERMINISTIC", "0", 1);
    tcomm_config_reload();
    int ok = tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) == TCOMM_SUCCESS;
    setenv("TCOMM_DETERMINISTIC", "1", 1);
    tcomm_config_reload();
    ok = ok && tcomm_comm_create_mpi(MPI_COMM_WORLD, &det_comm) ==
                   TCOMM_SUCCESS;
    unsetenv("TCOMM_DETERMINISTIC");
    tcomm_config_reload();
    if (!ok || tcomm_graph_create(host, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    Suite *s = suite_create("mpi_reduce_scatter_v");
    TCase *tc = tcase_create("reduce_scatter_v");
    tcase_set_timeout(tc, 0);
    tcase_add_loop_test(tc, every_dtype_op_dim, 0, TCOMM_DTYPE_COUNT);
    tcase_add_test(tc, empty_tensors);
    tcase_add_test(tc, big_uneven_along_dim_1);
    tcase_add_test(tc, large_count_splitting_path);
    tcase_add_loop_test(tc, deterministic_left_fold, 0, 2);
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    tcomm_graph_destroy(graph);
    tcomm_comm_destroy(det_comm);
    tcomm_comm_destroy(comm);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
