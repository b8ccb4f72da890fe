/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_DETERMINISTIC under mpirun (1-4 ranks): f32 sums whose value
 * depends on the order (1e8, 1, -1e8, ... patterns), at sizes from 1 to
 * 4 Mi elements, must equal the left fold in rank order that this test
 * computes itself from regenerated inputs, bit for bit, on every rank and
 * in every repetition; likewise reduce_scatter along dim 0 and dim 1, and
 * f64. With the mode off the same calls still give the sum within
 * rounding. The mode comes from TCOMM_DETERMINISTIC or from
 * tcomm_comm_set_attr. */
#include <check.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "mpi_suite.h"
#include "tcomm_test_hooks.h"

static tcomm_comm_t *comm, *env_comm; /* set_attr / TCOMM_DETERMINISTIC */
static tcomm_graph_t *graph;
static int rank, nranks;

static const size_t sizes[] = {1, 3, 1000, 65537, (1u << 20) + 3,
                               4u << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Rank r's element i: large values of both signs next to small ones, so
 * that every order of summation rounds differently. */
static double value(int r, size_t i)
{
    static const double pick[8] = {1e8, 1, -1e8, 3.25, 1e-3, -7.5e7, 0.1,
                                   -2};
    uint64_t h = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL ^
                 (uint64_t)(r + 1) * 0xc2b2ae3d27d4eb4fULL;
    h ^= h >> 29;
    return pick[h % 8] * (1 + (double)(h >> 40 & 0xff) / 256);
}

static tcomm_tensor_t *input(tcomm_dtype_t d, int nd, const size_t *shape,
                             size_t n)
{
    size_t es = tcomm_dtype_size(d);
    char *b = malloc(n * es + 1);
    for (size_t i = 0; i < n; i++) {
        if (d == TCOMM_F32)
            ((float *)b)[i] = (float)value(rank, i);
        else
            ((double *)b)[i] = value(rank, i);
    }
    tcomm_tensor_t *t;
    ck_assert_int_eq(tcomm_tensor_from_host(graph, d, b, nd, shape, &t),
                     TCOMM_SUCCESS);
    free(b);
    return t;
}

/* ((x0 + x1) + x2) + ... in the dtype, for element i. */
static double fold(tcomm_dtype_t d, size_t i)
{
    if (d == TCOMM_F32) {
        float acc = (float)value(0, i);
        for (int r = 1; r < nranks; r++)
            acc = acc + (float)value(r, i);
        return acc;
    }
    double acc = value(0, i);
    for (int r = 1; r < nranks; r++)
        acc = acc + value(r, i);
    return acc;
}

/* |got - exact sum| within the rounding any order may give. */
static int close_enough(double got, size_t i)
{
    double sum = 0, mag = 0;
    for (int r = 0; r < nranks; r++) {
        sum += (float)value(r, i);
        mag += fabs((float)value(r, i));
    }
    return fabs(got - sum) <= nranks * mag * 1.2e-7;
}

static double load(tcomm_dtype_t d, const void *b, size_t i)
{
    return d == TCOMM_F32 ? ((const float *)b)[i] : ((const double *)b)[i];
}

/* out[k] must be the fold of input element src(k) (bitwise when det). */
static void check(tcomm_dtype_t d, const tcomm_tensor_t *out, int det,
                  size_t outer, size_t chunk, size_t row)
{
    size_t n = tcomm_tensor_numel(out), es = tcomm_dtype_size(d);
    char *got = malloc(n * es + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(out, got, n * es), TCOMM_SUCCESS);
    for (size_t o = 0; o < outer; o++) {
        for (size_t j = 0; j < chunk; j++) {
            size_t k = o * chunk + j, src = o * row + j;
            if (chunk != row) /* reduce_scatter: rank's columns */
                src += (size_t)rank * chunk;
            /* plain tests: a Check assertion per element is slow */
            double g = load(d, got, k), w = fold(d, src);
            if (det && memcmp(&g, &w, sizeof g))
                ck_abort_msg("rank %d n=%zu [%zu]: %.17g != fold %.17g",
                             rank, n, k, g, w);
            if (!det && !close_enough(g, src))
                ck_abort_msg("rank %d n=%zu [%zu]: %.9g", rank, n, k, g);
        }
    }
    free(got);
}

static void all_reduce_at(tcomm_comm_t *c, tcomm_dtype_t d, size_t n,
                          int det)
{
    size_t s[1] = {n};
    tcomm_tensor_t *in = input(d, 1, s, n), *out;
    for (int rep = 0; rep < 2; rep++) { /* every run: twice */
        ck_assert_int_eq(tcomm_all_reduce(c, in, TCOMM_SUM, &out),
                         TCOMM_SUCCESS);
        check(d, out, det, 1, n, n);
        tcomm_tensor_release(out);
    }
    /* in place */
    ck_assert_int_eq(tcomm_all_reduce_into(c, in, TCOMM_SUM, in),
                     TCOMM_SUCCESS);
    check(d, in, det, 1, n, n);
    tcomm_tensor_release(in);
}

START_TEST(all_reduce_is_the_rank_order_fold)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1),
                     TCOMM_SUCCESS);
    for (size_t k = 0; k < NSIZES; k++)
        all_reduce_at(comm, TCOMM_F32, sizes[k], 1);
    all_reduce_at(comm, TCOMM_F64, 4099, 1);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0),
                     TCOMM_SUCCESS);
}
END_TEST

START_TEST(env_variable_turns_it_on)
{
    int v = -1;
    ck_assert_int_eq(tcomm_comm_get_attr(env_comm, TCOMM_ATTR_DETERMINISTIC,
                                         &v),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(v, 1);
    all_reduce_at(env_comm, TCOMM_F32, 777, 1);
    all_reduce_at(env_comm, TCOMM_F32, 1u << 20, 1);
}
END_TEST

/* reduce_scatter of [outer, nranks * chunk] along dim 1 (outer = 1 is
 * dim 0 of a 1-d tensor). */
static void reduce_scatter_at(size_t outer, size_t chunk, int det)
{
    size_t row = (size_t)nranks * chunk, n = outer * row;
    size_t s2[2] = {outer, row}, s1[1] = {row};
    int dim = outer > 1;
    tcomm_tensor_t *in = input(TCOMM_F32, dim ? 2 : 1, dim ? s2 : s1, n);
    tcomm_tensor_t *out;
    for (int rep = 0; rep < 2; rep++) {
        ck_assert_int_eq(tcomm_reduce_scatter(comm, in, TCOMM_SUM, dim,
                                              &out),
                         TCOMM_SUCCESS);
        check(TCOMM_F32, out, det, outer, chunk, row);
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
}

START_TEST(reduce_scatter_is_the_rank_order_fold)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1),
                     TCOMM_SUCCESS);
    static const size_t chunks[] = {1, 1000, 1u << 19};
    for (size_t k = 0; k < 3; k++)
        reduce_scatter_at(1, chunks[k], 1);
    reduce_scatter_at(3, 5, 1);
    reduce_scatter_at(7, 4096, 1);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0),
                     TCOMM_SUCCESS);
}
END_TEST

/* The count limit (a test hook) splits the exchange into pieces; 0 must
 * mean "no limit", not a loop of empty pieces that never ends. */
START_TEST(count_limit_zero_and_seven_do_not_hang)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1),
                     TCOMM_SUCCESS);
    static const long limits[] = {0, 7};
    alarm(30); /* a hang fails here, not after the suite's 240 s */
    for (size_t k = 0; k < 2; k++) {
        tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, limits[k]);
        all_reduce_at(comm, TCOMM_F32, 1000, 1);
        reduce_scatter_at(1, 101, 1);
    }
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
    alarm(240);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0),
                     TCOMM_SUCCESS);
}
END_TEST

/* Every rank holds the same bits (AVG: the fold divided on each rank). */
START_TEST(every_rank_holds_the_same_bits)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1),
                     TCOMM_SUCCESS);
    size_t n = 100003, s[1] = {n};
    tcomm_tensor_t *in = input(TCOMM_F32, 1, s, n), *out;
    ck_assert_int_eq(tcomm_all_reduce(comm, in, TCOMM_AVG, &out),
                     TCOMM_SUCCESS);
    float *b = malloc(n * sizeof *b);
    tcomm_tensor_to_host(out, b, n * sizeof *b);
    uint64_t h = 1469598103934665603ULL, lo, hi;
    for (size_t i = 0; i < n * sizeof *b; i++)
        h = (h ^ ((unsigned char *)b)[i]) * 1099511628211ULL;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    ck_assert_msg(lo == hi, "ranks hold different bits");
    free(b);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0),
                     TCOMM_SUCCESS);
}
END_TEST

/* AVG in the mode: the rank-order fold divided once by the ranks, on
 * whichever rank folds the element, for all_reduce, reduce_scatter and
 * reduce (the result on rank 0). */
static void avg_equals_fold_over_ranks(const tcomm_tensor_t *out,
                                       size_t first, const char *what)
{
    size_t n = tcomm_tensor_numel(out);
    float *got = malloc(n * sizeof *got + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(out, got, n * sizeof *got),
                     TCOMM_SUCCESS);
    for (size_t k = 0; k < n; k++) {
        float want = (float)fold(TCOMM_F32, first + k) / (float)nranks;
        if (memcmp(&got[k], &want, sizeof want))
            ck_abort_msg("%s rank %d [%zu]: %.9g, want the fold / %d = %.9g",
                         what, rank, k, got[k], nranks, want);
    }
    free(got);
}

static void avg_on(tcomm_comm_t *c)
{
    ck_assert_int_eq(tcomm_comm_set_attr(c, TCOMM_ATTR_DETERMINISTIC, 1),
                     TCOMM_SUCCESS);
    size_t chunk = 1001, n = (size_t)nranks * chunk, s[1] = {n};
    tcomm_tensor_t *in = input(TCOMM_F32, 1, s, n), *out;
    ck_assert_int_eq(tcomm_all_reduce(c, in, TCOMM_AVG, &out),
                     TCOMM_SUCCESS);
    avg_equals_fold_over_ranks(out, 0, "all_reduce");
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_reduce_scatter(c, in, TCOMM_AVG, 0, &out),
                     TCOMM_SUCCESS);
    avg_equals_fold_over_ranks(out, (size_t)rank * chunk, "reduce_scatter");
    tcomm_tensor_release(out);
    out = NULL;
    if (rank == 0)
        ck_assert_int_eq(tcomm_tensor_empty(graph, TCOMM_F32, 1, s, &out),
                         TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_reduce_into(c, in, TCOMM_AVG, 0, out),
                     TCOMM_SUCCESS);
    if (rank == 0)
        avg_equals_fold_over_ranks(out, 0, "reduce");
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* The default paths (single copies on one node), then the exchange and
 * fold of src/mpi/ordered.c put first by TCOMM_TUNE. */
START_TEST(avg_is_the_fold_divided_once)
{
    avg_on(comm);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0),
                     TCOMM_SUCCESS);
    setenv("TCOMM_TUNE",
           "all_reduce:0-:mpi_ordered_fold,reduce_scatter:0-:mpi_ordered_fold,"
           "reduce:0-:mpi_ordered_fold",
           1);
    tcomm_config_reload();
    tcomm_comm_t *tuned = NULL;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &tuned),
                     TCOMM_SUCCESS);
    unsetenv("TCOMM_TUNE");
    tcomm_config_reload();
    avg_on(tuned);
    tcomm_comm_destroy(tuned);
}
END_TEST

/* Mode off: the same calls work and are right within rounding. */
START_TEST(mode_off_still_works)
{
    for (size_t k = 0; k < NSIZES; k += 2)
        all_reduce_at(comm, TCOMM_F32, sizes[k], 0);
    reduce_scatter_at(1, 1000, 0);
    reduce_scatter_at(3, 5, 0);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    int ok = tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) == TCOMM_SUCCESS;
    setenv("TCOMM_DETERMINISTIC", "1", 1);
    tcomm_config_reload();
    ok = ok && tcomm_comm_create_mpi(MPI_COMM_WORLD, &env_comm) ==
                   TCOMM_SUCCESS;
    unsetenv("TCOMM_DETERMINISTIC");
    tcomm_config_reload();
    if (!ok || tcomm_graph_create(host, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    alarm(240); /* a hang fails the test */
    Suite *s = suite_create("mpi_determinism");
    TCase *tc = tcase_create("determinism");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, all_reduce_is_the_rank_order_fold);
    tcase_add_test(tc, env_variable_turns_it_on);
    tcase_add_test(tc, reduce_scatter_is_the_rank_order_fold);
    tcase_add_test(tc, every_rank_holds_the_same_bits);
    tcase_add_test(tc, avg_is_the_fold_divided_once);
    tcase_add_test(tc, count_limit_zero_and_seven_do_not_hang);
    tcase_add_test(tc, mode_off_still_works);
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    tcomm_comm_destroy(env_comm);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(graph);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
