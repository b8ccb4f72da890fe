/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI backend's all_to_all and all_to_all_v on host tensors, run at
 * 1-4 ranks through the public API: every dtype x every (split, concat)
 * pair of 1-4-d shapes x allocating, _into and in place; both uneven
 * modes with zero-size pieces; empty tensors; the count limit's pieces;
 * sizes that take each of the strided paths, with and without the
 * single copy. Each result is checked element by element against
 * test/mpi_a2a_ref.c. */
#include <check.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_a2a_ref.h"
#include "mpi_reference.h"
#include "mpi_suite.h"
#include "tcomm_backend_mpi.h"
#include "tcomm_mpi.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"

static tcomm_comm_t *comm;
static tcomm_graph_t *graph;
static int rank, nranks;

typedef enum { FORM_ALLOC, FORM_INTO, FORM_INPLACE, FORM_V } form_t;

static const tcomm_dtype_t dtypes[] = {TCOMM_U8,  TCOMM_I8,  TCOMM_I32,
                                       TCOMM_U32, TCOMM_I64, TCOMM_F16,
                                       TCOMM_BF16, TCOMM_F32, TCOMM_F64};
#define NDTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

static size_t numel(int nd, const size_t *s)
{
    size_t p = 1;
    for (int k = 0; k < nd; k++)
        p *= s[k];
    return p;
}

/* One call on c with rank's part of rk, checked; 0 if all is right. */
static int check_call(tcomm_comm_t *c, tcomm_dtype_t d, int nd, int s,
                      int cc, const a2a_rank_t *rk, form_t form)
{
    size_t oshape[A2A_MAX_DIMS], es = tcomm_dtype_size(d);
    size_t n = numel(nd, rk[rank].shape);
    double *want;
    size_t on = a2a_expect(d, nd, s, cc, nranks, rk, rank, oshape, &want);
    void *host = malloc(n * es + 1), *got;
    tcomm_tensor_t *in, *out = NULL;
    tcomm_status_t st;
    int errors = 0;

    ck_assert_msg(on != (size_t)-1, "broken test layout");
    ref_fill(d, -1, rank, host, n);
    ck_assert_int_eq(tcomm_tensor_from_host(graph, d, host, nd,
                                            rk[rank].shape, &in),
                     TCOMM_SUCCESS);
    if (form == FORM_ALLOC)
        st = tcomm_all_to_all(c, in, s, cc, &out);
    else if (form == FORM_V)
        st = tcomm_all_to_all_v(c, in, s, rk[rank].send, cc, &out);
    else {
        if (form == FORM_INPLACE)
            out = tcomm_tensor_retain(in);
        else
            ck_assert_int_eq(tcomm_tensor_empty(graph, d, nd, oshape, &out),
                             TCOMM_SUCCESS);
        st = tcomm_all_to_all_into(c, in, s, cc, out);
    }
    ck_assert_msg(st == TCOMM_SUCCESS, "rank %d: dtype %d nd %d %d/%d form "
                  "%d: %s", rank, d, nd, s, cc, form, tcomm_last_error());
    ck_assert_int_eq(tcomm_tensor_ndim(out), nd);
    for (int k = 0; k < nd; k++)
        ck_assert_uint_eq(tcomm_tensor_dim(out, k), oshape[k]);
    ck_assert_uint_eq(tcomm_tensor_graph_id(out), tcomm_graph_id(graph));
    got = malloc(on * es + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(out, got, on * es), TCOMM_SUCCESS);
    for (size_t i = 0; i < on; i++)
        if (ref_load(d, got, i) != want[i] && errors++ < 3)
            fprintf(stderr, "rank %d: dtype %d nd %d %d/%d form %d: [%zu] "
                    "= %g, want %g\n", rank, d, nd, s, cc, form, i,
                    ref_load(d, got, i), want[i]);
    if (form != FORM_INPLACE) { /* the input is unchanged */
        void *now = malloc(n * es + 1);
        ck_assert_int_eq(tcomm_tensor_to_host(in, now, n * es),
                         TCOMM_SUCCESS);
        ck_assert_msg(!memcmp(now, host, n * es), "the input was modified");
        free(now);
    }
    free(got);
    free(host);
    free(want);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    return errors;
}

static void check_equal(tcomm_comm_t *c, tcomm_dtype_t d, int nd,
                        const size_t *shape, int s, int cc, form_t form)
{
    a2a_rank_t rk[A2A_MAX_RANKS];
    a2a_equal_ranks(rk, nranks, nd, shape, s);
    ck_assert_int_eq(check_call(c, d, nd, s, cc, rk, form), 0);
}

/* Every dtype, every pair of 1-4-d shapes, the three forms. */
START_TEST(equal_every_dtype_and_pair)
{
    static const size_t base[A2A_MAX_DIMS] = {3, 2, 4, 2};
    for (int t = 0; t < NDTYPES; t++)
        for (int nd = 1; nd <= 4; nd++)
            for (int s = 0; s < nd; s++)
                for (int cc = 0; cc < nd; cc++) {
                    size_t shape[A2A_MAX_DIMS];
                    memcpy(shape, base, sizeof shape);
                    shape[s] *= (size_t)nranks;
                    check_equal(comm, dtypes[t], nd, shape, s, cc,
                                FORM_ALLOC);
                    check_equal(comm, dtypes[t], nd, shape, s, cc,
                                FORM_INTO);
                    if (s == cc)
                        check_equal(comm, dtypes[t], nd, shape, s, cc,
                                    FORM_INPLACE);
                }
}
END_TEST

/* A dim of size 0 anywhere, the split dim's included. */
START_TEST(equal_empty)
{
    for (int nd = 1; nd <= 3; nd++)
        for (int z = 0; z < nd; z++)
            for (int s = 0; s < nd; s++)
                for (int cc = 0; cc < nd; cc++) {
                    size_t shape[A2A_MAX_DIMS] = {2, 3, 2, 1};
                    shape[s] *= (size_t)nranks;
                    shape[z] = 0;
                    check_equal(comm, TCOMM_F32, nd, shape, s, cc,
                                FORM_ALLOC);
                    check_equal(comm, TCOMM_I8, nd, shape, s, cc, FORM_INTO);
                }
}
END_TEST

START_TEST(uneven_every_dtype_and_pair)
{
    static const size_t base[A2A_MAX_DIMS] = {2, 3, 2, 2};
    a2a_rank_t rk[A2A_MAX_RANKS];
    for (int t = 0; t < NDTYPES; t++)
        for (int nd = 1; nd <= 4; nd++)
            for (int s = 0; s < nd; s++)
                for (int cc = 0; cc < nd; cc++) {
                    int seed = t + s + cc;
                    if (s == cc)
                        a2a_token_ranks(rk, nranks, nd, base, s, seed, 1);
                    else
                        a2a_transpose_ranks(rk, nranks, nd, base, s, cc, seed,
                                            1);
                    ck_assert_int_eq(check_call(comm, dtypes[t], nd, s, cc,
                                                rk, FORM_V),
                                     0);
                }
}
END_TEST

/* The count limit lowered to 7 elements: every exchange goes as pieces
 * (the flat one, the one under pack/unpack, the agreed one of the token
 * mode). */
START_TEST(large_count_pieces)
{
    long saved = tcomm_test_hook(TCOMM_HOOK_COUNT_LIMIT);
    static const size_t base[3] = {5, 3, 4};
    a2a_rank_t rk[A2A_MAX_RANKS];
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 7);
    for (int s = 0; s < 3; s++)
        for (int cc = 0; cc < 3; cc++) {
            size_t shape[3] = {5, 3, 4};
            shape[s] *= (size_t)nranks;
            check_equal(comm, TCOMM_F32, 3, shape, s, cc, FORM_ALLOC);
            check_equal(comm, TCOMM_BF16, 3, shape, s, cc, FORM_INTO);
            if (s == cc)
                a2a_token_ranks(rk, nranks, 3, base, s, s, 1);
            else
                a2a_transpose_ranks(rk, nranks, 3, base, s, cc, s + cc, 1);
            ck_assert_int_eq(check_call(comm, TCOMM_I64, 3, s, cc, rk,
                                        FORM_V),
                             0);
        }
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, saved);
}
END_TEST

/* Sizes that take every strided path of the dispatch (the temporary,
 * per-peer vectors, per-run messages, MPI_Alltoallw, the single copy),
 * on c. */
static void strided_sizes(tcomm_comm_t *c)
{
    /* [r, cols] with the split dim's size times the world size */
    const struct { size_t r, cols; int s, cc; } k[] = {
        {8, 64, 1, 0},    {16, 64, 0, 1},   /* < 16 KiB */
        {64, 128, 1, 0},  {64, 128, 1, 1},  /* < 256 KiB */
        {4, 8192, 0, 1},  {4, 8192, 1, 0},  /* runs of 32 KiB */
        {4, 8192, 1, 1},  {64, 1024, 1, 1}, /* >= 256 KiB */
        {64, 1024, 0, 1}, {64, 1024, 1, 0},
        {96, 2048, 0, 1}, {96, 2048, 1, 1},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        size_t shape[2] = {k[i].r, k[i].cols};
        shape[k[i].s] *= (size_t)nranks;
        check_equal(c, TCOMM_F32, 2, shape, k[i].s, k[i].cc, FORM_INTO);
    }
    for (int s = 0; s < 3; s++)
        for (int cc = 0; cc < 3; cc++) {
            size_t shape[3] = {8, 32, 512};
            shape[s] *= (size_t)nranks;
            check_equal(c, TCOMM_BF16, 3, shape, s, cc, FORM_ALLOC);
        }
}

START_TEST(strided_paths_single_copy)
{
    tcomm_comm_t *c;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    strided_sizes(c);
    tcomm_comm_destroy(c);
}
END_TEST

/* The last rank's single copies fail: everyone falls back in the same
 * call (out rewritten whole) and keeps to MPI afterwards. */
START_TEST(strided_paths_without_single_copy)
{
    tcomm_comm_t *c;
    size_t shape[2] = {64 * (size_t)nranks, 2048};
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, rank == nranks - 1);
    check_equal(c, TCOMM_F32, 2, shape, 0, 1, FORM_ALLOC);
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, 0);
    strided_sizes(c);
    tcomm_comm_destroy(c);
}
END_TEST

/* The last rank in a PID namespace of its own (a container sharing
 * /dev/shm): its pid means another process here, so no rank copies by
 * it; everyone falls back as above. */
START_TEST(strided_paths_other_pid_namespace)
{
    tcomm_comm_t *c;
    size_t rows[2] = {64 * (size_t)nranks, 2048};
    size_t cols[2] = {64, 2048 * (size_t)nranks};
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE,
                        rank == nranks - 1 ? 12345 : 0);
    check_equal(c, TCOMM_F32, 2, cols, 1, 0, FORM_ALLOC);
    check_equal(c, TCOMM_F32, 2, rows, 0, 1, FORM_INTO);
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE, 0);
    /* nobody copied: the communicator keeps to MPI */
    tcomm_mpi_state_t *st = c->state;
    if (nranks > 1)
        ck_assert_int_eq(tcomm_mpi_pull_state(st->comm), PULL_OFF);
    strided_sizes(c);
    tcomm_comm_destroy(c);
}
END_TEST

/* A failed check leaves its test at once: no hook outlives it. */
static void reset_hooks(void)
{
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, 0);
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE, 0);
}

int main(int argc, char **argv)
{
    int failed;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks > A2A_MAX_RANKS ||
        tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph) !=
            TCOMM_SUCCESS) {
        fprintf(stderr, "mpi_all_to_all: setup failed: %s\n",
                tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    Suite *s = suite_create("mpi_all_to_all");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, reset_hooks, reset_hooks);
    tcase_add_test(tc, equal_every_dtype_and_pair);
    tcase_add_test(tc, equal_empty);
    tcase_add_test(tc, uneven_every_dtype_and_pair);
    tcase_add_test(tc, large_count_pieces);
    tcase_add_test(tc, strided_paths_single_copy);
    tcase_add_test(tc, strided_paths_without_single_copy);
    tcase_add_test(tc, strided_paths_other_pid_namespace);
    suite_add_tcase(s, tc);
    failed = tcomm_test_run_suite(s, 0);
    tcomm_graph_destroy(graph);
    tcomm_comm_destroy(comm);
    MPI_Finalize();
    return failed ? 1 : 0;
}
