/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of the single-copy all_reduce and reduce_scatter on one node
 * (src/mpi/node/node_reduce.c), on 1-4 ranks. The node calls are called
 * directly (at 3-4 ranks on 2 cores the backend's gate is closed), as
 * mpi_node_broadcast.c does: every dtype and op against the values every rank
 * computes itself (test/mpi_reference.c), NaN through MIN/MAX, sizes
 * that do not divide evenly and smaller than a cache line per rank, in
 * place and not, reduce_scatter along dims 0, 1 and 2, inputs unchanged,
 * bytes past the output untouched; the fold's order bitwise against a
 * left fold computed here and against the deterministic MPI path; a rank
 * whose copies fail or that lives in another PID namespace sending every
 * rank to MPI with the input whole; calls that differ copying nothing;
 * and the public calls, checked or not, deterministic or not, bitwise the
 * same as with TCOMM_SINGLE_COPY=0. Checks are agreed across ranks
 * before ck_assert, so that no rank is left waiting. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_reference.h"
#include "mpi_suite.h"
#include "node_suite.h"
#include "tcomm_backend_mpi.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_node_reduce.h"
#include "tcomm_node_segment.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"

#define GUARD 64 /* bytes past an output that must not change */

static int rank, np;
/* the tier the direct calls take: any way, as above the gates */
#define A TCOMM_NODE_ATTACH
static const tcomm_dtype_t dtypes[] = {TCOMM_U8,   TCOMM_I8,  TCOMM_I32,
                                       TCOMM_U32,  TCOMM_I64, TCOMM_F16,
                                       TCOMM_BF16, TCOMM_F32, TCOMM_F64};
#define NDT (sizeof dtypes / sizeof dtypes[0])

static int is_minmax(int op)
{
    return op == TCOMM_MIN || op == TCOMM_MAX;
}

/* NaN at every 101st element (from 3) of the last rank's input. */
static int nan_at(tcomm_dtype_t d, int op, int nan, size_t i)
{
    return nan && ref_is_float(d) && is_minmax(op) && i % 101 == 3;
}

static void fill(tcomm_dtype_t d, int op, int nan, int r, void *buf, size_t n)
{
    ref_fill(d, op, r, buf, n);
    for (size_t i = 0; r == np - 1 && i < n; i++)
        if (nan_at(d, op, nan, i))
            ref_store_nan(d, buf, i);
}

static int wrong(tcomm_dtype_t d, int op, int nan, const void *out, size_t k,
                 size_t i)
{
    double want = nan_at(d, op, nan, i) ? NAN : ref_reduce(d, op, np, i);
    return !ref_match(d, op, ref_load(d, out, k), want);
}

/* A node all_reduce of numel elements; its wrong values, inputs changed
 * and guard bytes touched; *done as the call said. */
static int all_reduce_case(tcomm_mpi_state_t *st, tcomm_dtype_t d, int op,
                           size_t numel, int in_place, int nan, int *done)
{
    size_t es = tcomm_dtype_size(d), nb = numel * es;
    char *in = malloc(nb + GUARD), *keep = malloc(nb + 1);
    char *out = in_place ? in : malloc(nb + GUARD);
    int bad = 0;
    fill(d, op, nan, rank, in, numel);
    memcpy(keep, in, nb);
    memset(out + (in_place ? nb : 0), 0xa5, in_place ? GUARD : nb + GUARD);
    bad +=
        tcomm_node_all_reduce(st, in, out, numel, d, op, A, done) !=
        MPI_SUCCESS;
    if (*done) {
        for (size_t i = 0; i < numel; i++)
            bad += wrong(d, op, nan, out, i, i);
    }
    if (!in_place || !*done) /* the input for MPI's fallback */
        bad += memcmp(in, keep, nb) != 0;
    for (size_t i = nb; i < nb + GUARD; i++)
        bad += (unsigned char)out[i] != 0xa5;
    if (!in_place)
        free(out);
    free(in);
    free(keep);
    return bad;
}

/* A node reduce_scatter of shape[3] along dim. */
static int reduce_scatter_case(tcomm_mpi_state_t *st, tcomm_dtype_t d, int op,
                               const size_t *shape, int dim, int nan, int *done)
{
    size_t es = tcomm_dtype_size(d), outer = 1, inner = 1;
    for (int k = 0; k < dim; k++)
        outer *= shape[k];
    for (int k = dim + 1; k < 3; k++)
        inner *= shape[k];
    size_t chunk = shape[dim] / (size_t)np * inner, total = outer * np * chunk;
    size_t ob = outer * chunk * es;
    char *in = malloc(total * es + 1), *keep = malloc(total * es + 1);
    char *out = malloc(ob + GUARD);
    int bad = 0;
    fill(d, op, nan, rank, in, total);
    memcpy(keep, in, total * es);
    memset(out, 0xa5, ob + GUARD);
    bad += tcomm_node_reduce_scatter(st, in, out, outer, chunk, dim, d, op,
                                     A, done) != MPI_SUCCESS;
    for (size_t o = 0; *done && o < outer; o++)
        for (size_t c = 0; c < chunk; c++)
            bad += wrong(d, op, nan, out, o * chunk + c,
                         (o * np + rank) * chunk + c);
    bad += memcmp(in, keep, total * es) != 0;
    for (size_t i = ob; i < ob + GUARD; i++)
        bad += (unsigned char)out[i] != 0xa5;
    free(in);
    free(keep);
    free(out);
    return bad;
}

/* Every dtype and op; sizes below one cache line per rank, uneven, over
 * several of the fold's blocks. */
START_TEST(test_all_reduce_matrix)
{
    static const size_t sizes[] = {1, 15, 1003, 40017};
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    int cma = probe_cma(), bad = 0, wrong_done = 0, done;
    for (size_t t = 0; t < NDT; t++)
        for (int op = TCOMM_SUM; op <= TCOMM_AVG; op++) {
            if (op == TCOMM_AVG && !ref_is_float(dtypes[t]))
                continue;
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
                for (int ip = 0; ip < 2; ip++) {
                    bad += all_reduce_case(&st, dtypes[t], op, sizes[k], ip, 1,
                                           &done);
                    wrong_done += done != cma;
                }
        }
    /* the big ones: several blocks per rank */
    bad += all_reduce_case(&st, TCOMM_F32, TCOMM_SUM, 300001, 0, 0, &done);
    bad += all_reduce_case(&st, TCOMM_BF16, TCOMM_AVG, 300001, 1, 0, &done);
    bad += all_reduce_case(&st, TCOMM_I64, TCOMM_MAX, 100003, 1, 0, &done);
    /* in place on rank 0 only (the fences must still pair up) */
    bad += all_reduce_case(&st, TCOMM_F32, TCOMM_SUM, 300001, rank == 0, 0,
                           &done);
    bad += all_reduce_case(&st, TCOMM_F64, TCOMM_MIN, 1003, rank == 1, 1,
                           &done);
    wrong_done += done != cma;
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(wrong_done), 0);
    free_state(&st);
}
END_TEST

/* Along dims 0, 1, 2: rows shorter than a block (several per block),
 * rows longer than one, a chunk smaller than a cache line. */
START_TEST(test_reduce_scatter_matrix)
{
    size_t n = (size_t)np;
    const size_t shapes[][3] = {
        {7 * n, 3, 1},     {5003 * n, 3, 1}, {5, 3 * n, 1},   {4000, 17 * n, 1},
        {3, 40001 * n, 1}, {2, 3, 5 * n},    {7, 3, 1000 * n}};
    const int dims[] = {0, 0, 1, 1, 1, 2, 2};
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    int cma = probe_cma(), bad = 0, wrong_done = 0, done;
    for (size_t t = 0; t < NDT; t++)
        for (int op = TCOMM_SUM; op <= TCOMM_AVG; op++) {
            if (op == TCOMM_AVG && !ref_is_float(dtypes[t]))
                continue;
            for (size_t k = 0; k < sizeof dims / sizeof *dims; k++) {
                bad += reduce_scatter_case(&st, dtypes[t], op, shapes[k],
                                           dims[k], 1, &done);
                wrong_done += done != cma;
            }
        }
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(wrong_done), 0);
    free_state(&st);
}
END_TEST

/* Values whose sums round: rank r's element i. */
static double rough(int r, size_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(r + 1) << 40;
    h ^= h >> 29;
    return ((double)(h % 2000003) - 1000001.0) / 977.0;
}

/* The fold's order, bitwise: f32/f64 SUM against the left fold computed
 * here, every dtype against the deterministic MPI path (ordered.c). */
START_TEST(test_fold_order)
{
    const size_t numel = 70001;
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    int cma = probe_cma(), bad = 0;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    for (size_t t = 0; t < NDT; t++) {
        tcomm_dtype_t d = dtypes[t];
        size_t es = tcomm_dtype_size(d), shape[1] = {numel};
        char *in = malloc(numel * es), *a = malloc(numel * es),
             *b = malloc(numel * es);
        for (size_t i = 0; i < numel; i++)
            ref_store(d, in, i, rough(rank, i));
        int done = 0;
        bad += tcomm_node_all_reduce(&st, in, a, numel, d, TCOMM_SUM, A, &done) !=
               MPI_SUCCESS;
        bad += done != cma;
        tcomm_tensor_t *tin, *tb;
        tcomm_tensor_wrap(g, d, in, 1, shape, &tin);
        tcomm_tensor_wrap(g, d, b, 1, shape, &tb);
        bad += tcomm_mpi_all_reduce_ordered(&st, tin, TCOMM_SUM, tb) !=
               TCOMM_SUCCESS;
        bad += done && memcmp(a, b, numel * es) != 0;
        for (size_t i = 0; done && d == TCOMM_F32 && i < numel; i++) {
            float acc = (float)rough(0, i);
            for (int r = 1; r < np; r++)
                acc += (float)rough(r, i);
            bad += memcmp(&acc, (float *)a + i, 4) != 0;
        }
        for (size_t i = 0; done && d == TCOMM_F64 && i < numel; i++) {
            double acc = rough(0, i);
            for (int r = 1; r < np; r++)
                acc += rough(r, i);
            bad += memcmp(&acc, (double *)a + i, 8) != 0;
        }
        tcomm_tensor_release(tin);
        tcomm_tensor_release(tb);
        free(in);
        free(a);
        free(b);
    }
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_graph_destroy(g);
    free_state(&st);
}
END_TEST

/* The last rank cannot copy (set by spoil): every rank hears it, the
 * inputs stay whole (in place too) for MPI's answer, and the
 * communicator stays off the single copies. */
static void expect_fallback(void (*spoil)(int on))
{
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    int done = -1, bad = 0, any = 0;
    spoil(rank == np - 1);
    bad += all_reduce_case(&st, TCOMM_F32, TCOMM_SUM, 1u << 16, 1, 0, &done);
    any += done;
    bad += all_reduce_case(&st, TCOMM_F32, TCOMM_SUM, 1u << 16, 0, 0, &done);
    any += done;
    bad += all_reduce_case(&st, TCOMM_F32, TCOMM_SUM, 1u << 16, rank == 0, 0,
                           &done);
    any += done;
    const size_t shape[3] = {64, 512 * (size_t)np, 1};
    bad += reduce_scatter_case(&st, TCOMM_BF16, TCOMM_MAX, shape, 1, 0, &done);
    any += done;
    spoil(0);
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(any), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), PULL_OFF);
    ck_assert(
        !tcomm_node_reduce_applies(&st, TCOMM_NODE_ALL_REDUCE, 1, 1u << 20));
    ck_assert(!tcomm_node_reduce_applies(&st, TCOMM_NODE_REDUCE_SCATTER, 1,
                                         1u << 20));
    free_state(&st);
}

START_TEST(test_fallback)
{
    expect_fallback(refuse_copies);
}
END_TEST

START_TEST(test_other_pid_namespace)
{
    expect_fallback(own_pid_namespace);
}
END_TEST

/* Calls that differ (TCOMM_CHECK=0 lets them through): lengths, ops,
 * rows. Nothing is copied (outputs untouched), every rank is told, and
 * the communicator keeps the single copies. */
START_TEST(test_calls_differ)
{
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    int cma = probe_cma(), bad = 0, any = 0, done = -1;
    size_t n = rank == 0 ? 1u << 16 : 1u << 15;
    float *in = malloc(4 * (1u << 16)), *out = malloc(4 * (1u << 16));
    for (size_t i = 0; i < 1u << 16; i++)
        in[i] = (float)(rank + 1);
    memset(out, 0xa5, 4 * (1u << 16));
    bad += tcomm_node_all_reduce(&st, in, out, n, TCOMM_F32, TCOMM_SUM, A,
                                 &done) != MPI_SUCCESS;
    any += done;
    bad += tcomm_node_all_reduce(&st, in, out, n, TCOMM_F32,
                                 rank == 0 ? TCOMM_MAX : TCOMM_SUM, A,
                                 &done) != MPI_SUCCESS;
    any += done;
    bad += tcomm_node_reduce_scatter(&st, in, out, rank == 0 ? 2 : 4,
                                     (1u << 14) / (size_t)np, 1, TCOMM_F32,
                                     TCOMM_SUM, A, &done) != MPI_SUCCESS;
    any += done;
    for (size_t i = 0; i < 1u << 16; i++)
        bad += in[i] != (float)(rank + 1);
    for (size_t i = 0; i < 4 * (1u << 16); i++)
        bad += ((unsigned char *)out)[i] != 0xa5;
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(any), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), PULL_UNKNOWN);
    /* and a right call still takes it */
    ck_assert_int_eq(agree_sum(all_reduce_case(&st, TCOMM_F32, TCOMM_SUM,
                                               1u << 15, 0, 0, &done)),
                     0);
    ck_assert_int_eq(agree_sum(done != cma), 0);
    free(in);
    free(out);
    free_state(&st);
}
END_TEST

/* One public call into res: all_reduce (dim < 0) or reduce_scatter of
 * [64, cols] along dim, rough values. */
static int public_call(tcomm_comm_t *comm, tcomm_graph_t *g, tcomm_dtype_t d,
                       tcomm_op_t op, size_t cols, int dim, int in_place,
                       void *res)
{
    size_t es = tcomm_dtype_size(d), shape[2] = {48, cols}, numel = 48 * cols;
    size_t oshape[2] = {dim == 0 ? 48 / (size_t)np : 48,
                        dim == 1 ? cols / (size_t)np : cols};
    tcomm_tensor_t *in, *out;
    int bad = 0;
    tcomm_tensor_empty(g, d, 2, shape, &in);
    tcomm_tensor_empty(g, d, 2, dim < 0 ? shape : oshape, &out);
    char *a = tcomm_tensor_data(in);
    for (size_t i = 0; i < numel; i++)
        ref_store(d, a, i, rough(rank, i));
    if (dim < 0) {
        tcomm_tensor_t *dst = in_place ? in : out;
        bad += tcomm_all_reduce_into(comm, in, op, dst) != TCOMM_SUCCESS;
        memcpy(res, tcomm_tensor_data(dst), numel * es);
    } else {
        bad +=
            tcomm_reduce_scatter_into(comm, in, op, dim, out) != TCOMM_SUCCESS;
        memcpy(res, tcomm_tensor_data(out), numel / (size_t)np * es);
    }
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
    return bad;
}

/* The public calls around the gate, checked or not, deterministic or not:
 * bitwise the same as with TCOMM_SINGLE_COPY=0 (MPI's answer) where
 * deterministic, and a copy refused on one rank still answered. */
START_TEST(test_public)
{
    static const tcomm_dtype_t pd[] = {TCOMM_F32, TCOMM_BF16, TCOMM_F16,
                                       TCOMM_F64, TCOMM_I32};
    static const size_t cols[] = {12, 128, 4096};
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    tcomm_comm_t *node, *mpi;
    int bad = 0;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &node),
                     TCOMM_SUCCESS);
    setenv("TCOMM_SINGLE_COPY", "0", 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &mpi),
                     TCOMM_SUCCESS);
    unsetenv("TCOMM_SINGLE_COPY");
    tcomm_config_reload();
    char *r1 = malloc(64 * 4096 * 8), *r2 = malloc(64 * 4096 * 8);
    for (int check = 0; check < 2; check++)
        for (int det = 0; det < 2; det++) {
            tcomm_comm_t *c[2] = {node, mpi};
            for (int k = 0; k < 2; k++) {
                tcomm_comm_set_attr(c[k], TCOMM_ATTR_CHECK, check);
                tcomm_comm_set_attr(c[k], TCOMM_ATTR_DETERMINISTIC, det);
            }
            for (size_t t = 0; t < sizeof pd / sizeof *pd; t++)
                for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
                    for (int dim = -1; dim < 2; dim++) {
                        tcomm_op_t op = ref_is_float(pd[t]) && dim == 0
                                            ? TCOMM_AVG
                                            : TCOMM_SUM;
                        size_t bytes = 48 * cols[k] * tcomm_dtype_size(pd[t]);
                        if (dim == 1 && cols[k] % (size_t)np)
                            continue;
                        bad += public_call(node, g, pd[t], op, cols[k], dim,
                                           k == 1, r1);
                        bad += public_call(mpi, g, pd[t], op, cols[k], dim,
                                           k == 1, r2);
                        size_t rb = dim < 0 ? bytes : bytes / (size_t)np;
                        /* integers: the same in any order */
                        if (det || !ref_is_float(pd[t]))
                            bad += memcmp(r1, r2, rb) != 0;
                    }
        }
    /* a copy refused on the last rank: MPI answers, the same */
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, rank == np - 1);
    bad += public_call(node, g, TCOMM_F32, TCOMM_SUM, 4096, -1, 1, r1);
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, 0);
    bad += public_call(mpi, g, TCOMM_F32, TCOMM_SUM, 4096, -1, 1, r2);
    bad += memcmp(r1, r2, 48 * 4096 * 4) != 0;
    ck_assert_int_eq(agree_sum(bad), 0);
    free(r1);
    free(r2);
    tcomm_comm_destroy(node);
    tcomm_comm_destroy(mpi);
    tcomm_graph_destroy(g);
}
END_TEST

/* The MPI answer along dim 0 with single copies off (what 3-4 ranks on
 * this machine and ranks on several nodes run): from 256 KiB it is
 * MPI_Reduce_scatter with equal counts, below MPI_Reduce_scatter_block;
 * both against the reference, every op, inputs unchanged. */
START_TEST(test_mpi_dim0_counts)
{
    static const tcomm_dtype_t td[] = {TCOMM_F32, TCOMM_I32, TCOMM_BF16};
    static const size_t per[] = {1000, 70000}; /* elements a rank */
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    tcomm_comm_t *mpi;
    int bad = 0;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    setenv("TCOMM_SINGLE_COPY", "0", 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &mpi),
                     TCOMM_SUCCESS);
    unsetenv("TCOMM_SINGLE_COPY");
    tcomm_config_reload();
    for (size_t t = 0; t < sizeof td / sizeof *td; t++)
        for (size_t k = 0; k < sizeof per / sizeof *per; k++)
            for (int op = TCOMM_SUM; op <= TCOMM_AVG; op++) {
                size_t es = tcomm_dtype_size(td[t]), numel = per[k] * np;
                size_t shape[1] = {numel}, oshape[1] = {per[k]};
                tcomm_tensor_t *in, *out;
                if (op == TCOMM_AVG && !ref_is_float(td[t]))
                    continue;
                tcomm_tensor_empty(g, td[t], 1, shape, &in);
                tcomm_tensor_empty(g, td[t], 1, oshape, &out);
                char *a = tcomm_tensor_data(in), *keep = malloc(numel * es);
                fill(td[t], op, 0, rank, a, numel);
                memcpy(keep, a, numel * es);
                bad += tcomm_reduce_scatter_into(mpi, in, op, 0, out) !=
                       TCOMM_SUCCESS;
                for (size_t i = 0; i < per[k]; i++)
                    bad += wrong(td[t], op, 0, tcomm_tensor_data(out), i,
                                 (size_t)rank * per[k] + i);
                bad += memcmp(keep, a, numel * es) != 0;
                free(keep);
                tcomm_tensor_release(in);
                tcomm_tensor_release(out);
            }
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_comm_destroy(mpi);
    tcomm_graph_destroy(g);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_node_reduce");
    TCase *tc = tcase_create("node_reduce");
    int any;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_all_reduce_matrix);
    tcase_add_test(tc, test_reduce_scatter_matrix);
    tcase_add_test(tc, test_fold_order);
    tcase_add_test(tc, test_fallback);
    tcase_add_test(tc, test_other_pid_namespace);
    tcase_add_test(tc, test_calls_differ);
    tcase_add_test(tc, test_public);
    tcase_add_test(tc, test_mpi_dim0_counts);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
