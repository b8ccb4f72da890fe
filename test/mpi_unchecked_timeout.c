/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_CHECK=0 with TCOMM_TIMEOUT=1 under mpirun (2-4 ranks): what a
 * new user hit (issue 14). The last rank makes a local argument error
 * (all_gather along dim 7 of a 2-d tensor; all_reduce with a bad op),
 * or calls a different collective than its peers, then every rank calls
 * tcomm_barrier. Before, the erring rank left at once and its next call
 * completed the peers' bounded exchange: Open MPI aborted the job on a
 * truncated message, or the peers hung in the data phase. Wanted: every
 * rank gets an error from the bad call (its own, or a sentence naming
 * the rank that rejected it), within TCOMM_TIMEOUT + 3 s; nobody aborts;
 * the communicator stays usable, as after a checked-mode argument
 * error, and so does one created afterwards. */
#include <check.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "mpi_suite.h"

#define TIMEOUT_S 1.0
#define SLACK_S 3.0

static tcomm_graph_t *graph;
static int rank, nranks, last;

#define expect(...) tcomm_test_expect(rank, __VA_ARGS__)

static tcomm_tensor_t *matrix(size_t rows, size_t cols, float base)
{
    float v[64];
    for (size_t i = 0; i < rows * cols; i++)
        v[i] = base + (float)i;
    tcomm_tensor_t *t;
    size_t s[2] = {rows, cols};
    ck_assert_int_eq(tcomm_tensor_from_host(graph, TCOMM_F32, v, 2, s, &t),
                     TCOMM_SUCCESS);
    return t;
}

/* A fresh unchecked communicator with the timeout (from the
 * environment main set). */
static tcomm_comm_t *fresh_comm(void)
{
    tcomm_comm_t *c = NULL;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    tcomm_comm_info_t info;
    tcomm_comm_info(c, &info);
    ck_assert_int_eq(info.world_size, nranks);
    /* errors come back as codes on the communicator tcomm keeps */
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(((tcomm_mpi_state_t *)c->state)->comm, &eh);
    ck_assert(eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    return c;
}

/* The communicator still computes the right sum. */
static void still_works(tcomm_comm_t *c)
{
    tcomm_tensor_t *in = matrix(2, 2, (float)rank), *out = NULL;
    ck_assert_int_eq(tcomm_all_reduce(c, in, TCOMM_SUM, &out),
                     TCOMM_SUCCESS);
    float got[4];
    tcomm_tensor_to_host(out, got, sizeof got);
    for (int i = 0; i < 4; i++)
        ck_assert(got[i] == (float)(nranks * (nranks - 1) / 2) +
                                (float)(i * nranks));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* The bad call's status on this rank, then the barrier's, and the time
 * both took. */
static double then_barrier(tcomm_comm_t *c, tcomm_status_t bad,
                           tcomm_status_t want_bad, const char *own,
                           const char *peers)
{
    if (rank == last)
        expect(bad, want_bad, own, (char *)NULL);
    else
        expect(bad, TCOMM_ERR_MISMATCH, peers, (char *)NULL);
    double t0 = MPI_Wtime();
    expect(tcomm_barrier(c), TCOMM_SUCCESS, (char *)NULL);
    return MPI_Wtime() - t0;
}

static void finish(tcomm_comm_t *c, double t0)
{
    double dt = MPI_Wtime() - t0;
    ck_assert_msg(dt < TIMEOUT_S + SLACK_S, "rank %d took %.2f s", rank,
                  dt);
    still_works(c);
    tcomm_comm_destroy(c);
    tcomm_comm_t *after = fresh_comm();
    still_works(after);
    tcomm_comm_destroy(after);
}

START_TEST(a_bad_dim_on_one_rank)
{
    tcomm_comm_t *c = fresh_comm();
    tcomm_tensor_t *x = matrix(1, 5, (float)rank), *out = NULL;
    double t0 = MPI_Wtime();
    tcomm_status_t st = tcomm_all_gather(c, x, rank == last ? 7 : 1, &out);
    ck_assert_ptr_null(out);
    char peers[64];
    snprintf(peers, sizeof peers, "rank %d rejected the call: dim 7", last);
    then_barrier(c, st, TCOMM_ERR_INVALID_ARG, "dim 7 is out of range",
                 peers);
    tcomm_tensor_release(x);
    finish(c, t0);
}
END_TEST

START_TEST(a_bad_op_on_one_rank)
{
    tcomm_comm_t *c = fresh_comm();
    tcomm_tensor_t *x = matrix(2, 3, (float)rank), *out = NULL;
    double t0 = MPI_Wtime();
    tcomm_status_t st = tcomm_all_reduce(
        c, x, rank == last ? (tcomm_op_t)42 : TCOMM_SUM, &out);
    ck_assert_ptr_null(out);
    char peers[64];
    snprintf(peers, sizeof peers, "rank %d rejected the call", last);
    then_barrier(c, st, TCOMM_ERR_INVALID_ARG, "op", peers);
    tcomm_tensor_release(x);
    finish(c, t0);
}
END_TEST

/* The last rank calls barrier where the others call all_reduce: its
 * barrier must not complete their call (they would then wait in
 * MPI_Allreduce for a rank that has moved on). */
START_TEST(another_collective_on_one_rank)
{
    tcomm_comm_t *c = fresh_comm();
    tcomm_tensor_t *x = matrix(2, 3, (float)rank), *out = NULL;
    double t0 = MPI_Wtime();
    tcomm_status_t st = rank == last ? tcomm_barrier(c)
                                     : tcomm_all_reduce(c, x, TCOMM_SUM,
                                                        &out);
    ck_assert_ptr_null(out);
    expect(st, TCOMM_ERR_MISMATCH, "ranks disagree on the collective",
           (char *)NULL);
    expect(tcomm_barrier(c), TCOMM_SUCCESS, (char *)NULL);
    tcomm_tensor_release(x);
    finish(c, t0);
}
END_TEST

int main(int argc, char **argv)
{
    setenv("TCOMM_CHECK", "0", 1);
    setenv("TCOMM_TIMEOUT", "1", 1);
    tcomm_config_reload();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    last = nranks - 1;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_graph_create(host, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    alarm(60); /* a hang fails the test */
    Suite *s = suite_create("mpi_unchecked_timeout");
    TCase *tc = tcase_create("unchecked_timeout");
    tcase_set_timeout(tc, 0);
    if (nranks > 1) {
        tcase_add_test(tc, a_bad_dim_on_one_rank);
        tcase_add_test(tc, a_bad_op_on_one_rank);
        tcase_add_test(tc, another_collective_on_one_rank);
    }
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    tcomm_graph_destroy(graph);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
