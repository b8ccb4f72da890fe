/* SPDX-License-Identifier: BSD-3-Clause */
/* Arguments that are valid on each rank but differ between ranks, under
 * mpirun (2-4 ranks), in three modes: checked (TCOMM_CHECK=1), unchecked
 * with a timeout (TCOMM_CHECK=0, TCOMM_TIMEOUT=1) and, for the size
 * arrays that choose a path, unchecked without one (issue 27). The last
 * rank passes the odd argument: sizes arrays, dims, root, dtype, element
 * count (small against 1 MiB, which takes another path), op, and the
 * nonblocking form. Before, unchecked reduce_scatter_v with unequal sizes
 * on one rank hung for good (rank 0 in MPI_Reduce_scatter_block, the
 * other in MPI_Reduce_scatter), with or without the timeout, and so did
 * every call whose ranks chose different paths from their own arguments.
 * Wanted: TCOMM_ERR_MISMATCH on every rank naming what differs, within
 * the timeout; nobody hangs or aborts; the communicator stays usable. */
#include <check.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "mpi_suite.h"

#define TIMEOUT_S 1.0
#define SLACK_S 4.0
#define BIG (512 * 512) /* 1 MiB of f32: the node's single-copy paths */

static tcomm_graph_t *graph;
static int rank, nranks, last, odd;

#define expect(...) tcomm_test_expect(rank, __VA_ARGS__)

static tcomm_tensor_t *filled(tcomm_dtype_t dt, size_t rows, size_t cols)
{
    size_t s[2] = {rows, cols}, esize = tcomm_dtype_size(dt);
    unsigned char *v = calloc(rows * cols, esize);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; dt == TCOMM_F32 && i < rows * cols; i++)
        ((float *)v)[i] = (float)(rank + (int)(i % 7));
    tcomm_tensor_t *t = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(graph, dt, v, 2, s, &t),
                     TCOMM_SUCCESS);
    free(v);
    return t;
}

/* One case: the call with this rank's arguments (the last rank's odd),
 * and the field every rank's sentence must name. */
typedef struct {
    const char *name;
    tcomm_status_t (*call)(tcomm_comm_t *c);
    const char *field;
    int sizes_array; /* checked also without the agreement round */
} bad_case_t;

static tcomm_status_t released(tcomm_status_t st, tcomm_tensor_t *in,
                               tcomm_tensor_t *out)
{
    ck_assert_msg(st != TCOMM_SUCCESS || out, "no output on success");
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    return st;
}

/* reduce_scatter_v: rank 0 equal sizes, the last rank unequal ones (the
 * issue's reproduction). */
static tcomm_status_t rsv_sizes(tcomm_comm_t *c)
{
    size_t sizes[64];
    for (int r = 0; r < nranks; r++)
        sizes[r] = 4;
    if (odd) {
        sizes[0] = 3;
        sizes[1] = 5;
    }
    tcomm_tensor_t *x = filled(TCOMM_F32, 4 * (size_t)nranks, 3), *y = NULL;
    return released(tcomm_reduce_scatter_v(c, x, TCOMM_SUM, 0, sizes, &y),
                    x, y);
}

/* all_to_all_v's transpose needs the same send_sizes on every rank. */
static tcomm_status_t a2av_sizes(tcomm_comm_t *c)
{
    size_t sizes[64];
    for (int r = 0; r < nranks; r++)
        sizes[r] = 2;
    if (odd) {
        sizes[0] = 1;
        sizes[1] = 3;
    }
    tcomm_tensor_t *x = filled(TCOMM_F32, 2 * (size_t)nranks, 3), *y = NULL;
    return released(tcomm_all_to_all_v(c, x, 0, sizes, 1, &y), x, y);
}

static tcomm_status_t ar_count(tcomm_comm_t *c)
{
    tcomm_tensor_t *x = odd ? filled(TCOMM_F32, 512, BIG / 512)
                            : filled(TCOMM_F32, 2, 3),
                   *y = NULL;
    return released(tcomm_all_reduce(c, x, TCOMM_SUM, &y), x, y);
}

static tcomm_status_t ar_dtype(tcomm_comm_t *c)
{
    tcomm_tensor_t *x = filled(odd ? TCOMM_F64 : TCOMM_F32, 64, 32),
                   *y = NULL;
    return released(tcomm_all_reduce(c, x, TCOMM_SUM, &y), x, y);
}

static tcomm_status_t ar_op(tcomm_comm_t *c)
{
    tcomm_tensor_t *x = filled(TCOMM_F32, 512, BIG / 512), *y = NULL;
    return released(tcomm_all_reduce(c, x, odd ? TCOMM_MAX : TCOMM_SUM, &y),
                    x, y);
}

static tcomm_status_t ag_dim(tcomm_comm_t *c)
{
    tcomm_tensor_t *x = filled(TCOMM_F32, 512, BIG / 512), *y = NULL;
    return released(tcomm_all_gather(c, x, odd ? 1 : 0, &y), x, y);
}

static tcomm_status_t rs_dim(tcomm_comm_t *c)
{
    size_t n = (size_t)nranks;
    tcomm_tensor_t *x = filled(TCOMM_F32, 64 * n, 64 * n), *y = NULL;
    return released(tcomm_reduce_scatter(c, x, TCOMM_SUM, odd ? 1 : 0, &y),
                    x, y);
}

static tcomm_status_t bcast_root(tcomm_comm_t *c)
{
    tcomm_tensor_t *x = filled(TCOMM_F32, 512, BIG / 512), *y = NULL;
    return released(tcomm_broadcast(c, x, odd ? last : 0, &y), x, y);
}

static tcomm_status_t a2a_dims(tcomm_comm_t *c)
{
    size_t n = (size_t)nranks;
    tcomm_tensor_t *x = filled(TCOMM_F32, 64 * n, 64 * n), *y = NULL;
    return released(tcomm_all_to_all(c, x, odd ? 1 : 0, odd ? 0 : 1, &y), x,
                    y);
}

/* The nonblocking form: the same agreement, on the request's side. */
static tcomm_status_t ar_start_count(tcomm_comm_t *c)
{
    tcomm_tensor_t *x = odd ? filled(TCOMM_F32, 512, BIG / 512)
                            : filled(TCOMM_F32, 4, 8),
                   *y = odd ? filled(TCOMM_F32, 512, BIG / 512)
                            : filled(TCOMM_F32, 4, 8);
    tcomm_request_t *req = NULL;
    tcomm_status_t st = tcomm_all_reduce_start(c, x, TCOMM_SUM, y, &req);
    if (st == TCOMM_SUCCESS)
        st = tcomm_wait(&req);
    tcomm_tensor_release(y);
    tcomm_tensor_release(x);
    return st;
}

static const bad_case_t cases[] = {
    {"reduce_scatter_v sizes", rsv_sizes, "ranks disagree on sizes", 1},
    {"all_to_all_v transpose sizes", a2av_sizes,
     "ranks disagree on send_sizes", 1},
    {"all_reduce count", ar_count, "ranks disagree on shape", 0},
    {"all_reduce dtype", ar_dtype, "ranks disagree on dtype", 0},
    {"all_reduce op", ar_op, "ranks disagree on op", 0},
    {"all_gather dim", ag_dim, "ranks disagree on dim", 0},
    {"reduce_scatter dim", rs_dim, "ranks disagree on dim", 0},
    {"broadcast root", bcast_root, "ranks disagree on root", 0},
    {"all_to_all dims", a2a_dims, "ranks disagree on split_dim", 0},
    {"all_reduce_start count", ar_start_count, "ranks disagree on shape", 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* A communicator of the mode: TCOMM_CHECK and TCOMM_TIMEOUT as given
 * (the settings are read when a communicator is created). */
static tcomm_comm_t *comm_of(int check, const char *timeout)
{
    setenv("TCOMM_CHECK", check ? "1" : "0", 1);
    setenv("TCOMM_TIMEOUT", timeout, 1);
    tcomm_config_reload();
    tcomm_comm_t *c = NULL;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    return c;
}

/* The communicator still computes the right sum. */
static void still_works(tcomm_comm_t *c)
{
    float v[4] = {(float)rank, 1, 2, 3}, got[4];
    size_t s[1] = {4};
    tcomm_tensor_t *in = NULL, *out = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(graph, TCOMM_F32, v, 1, s, &in),
                     TCOMM_SUCCESS);
    expect(tcomm_all_reduce(c, in, TCOMM_SUM, &out), TCOMM_SUCCESS,
           (char *)NULL);
    tcomm_tensor_to_host(out, got, sizeof got);
    ck_assert(got[0] == (float)(nranks * (nranks - 1) / 2));
    ck_assert(got[3] == (float)(3 * nranks));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* Every case of the mode on one communicator, in turn. */
static void run_mode(int check, const char *timeout, int sizes_only)
{
    tcomm_comm_t *c = comm_of(check, timeout);
    for (size_t i = 0; i < NCASES; i++) {
        if (sizes_only && !cases[i].sizes_array)
            continue;
        double t0 = MPI_Wtime();
        if (rank == 0) /* the last line before a hang names the case */
            fprintf(stderr, "%s (TCOMM_CHECK=%d TCOMM_TIMEOUT=%s)\n",
                    cases[i].name, check, timeout);
        tcomm_status_t st = cases[i].call(c);
        double dt = MPI_Wtime() - t0;
        ck_assert_msg(st == TCOMM_ERR_MISMATCH,
                      "%s (check %d, timeout %s): rank %d got %d: %s",
                      cases[i].name, check, timeout, rank, st,
                      tcomm_last_error());
        expect(st, TCOMM_ERR_MISMATCH, cases[i].field, (char *)NULL);
        ck_assert_msg(dt < TIMEOUT_S + SLACK_S, "%s: rank %d took %.2f s",
                      cases[i].name, rank, dt);
        expect(tcomm_barrier(c), TCOMM_SUCCESS, (char *)NULL);
        still_works(c);
    }
    tcomm_comm_destroy(c);
}

START_TEST(checked) { run_mode(1, "0", 0); }
END_TEST

START_TEST(unchecked_with_timeout) { run_mode(0, "1", 0); }
END_TEST

START_TEST(unchecked_sizes_arrays) { run_mode(0, "0", 1); }
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    last = nranks - 1;
    odd = nranks > 1 && rank == last;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_graph_create(host, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    alarm(90); /* a hang fails the test */
    Suite *s = suite_create("mpi_unchecked_matrix");
    TCase *tc = tcase_create("differing_arguments");
    tcase_set_timeout(tc, 0);
    if (nranks > 1) {
        tcase_add_test(tc, checked);
        tcase_add_test(tc, unchecked_with_timeout);
        tcase_add_test(tc, unchecked_sizes_arrays);
    }
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    tcomm_graph_destroy(graph);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
