/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_TIMEOUT=1 under mpirun (2-4 ranks). First every collective works
 * with the timeout on (agreement, error round and arrival rounds run as
 * polled nonblocking calls). Then the last rank stays away: the others
 * must return TCOMM_ERR_TIMEOUT naming it, no sooner than the timeout, on
 * a checked communicator and on one with TCOMM_CHECK=0; afterwards both
 * answer TCOMM_ERR_COMM_FAILED. The late rank is held by a barrier on a
 * side communicator until the others have given up on both (not by a
 * sleep: on a loaded machine it could wake while they still wait, and the
 * call would complete). It then enters its next collective, sees that its
 * peers gave up and returns TCOMM_ERR_COMM_FAILED without waiting out a
 * timeout of its own.
 * The job then ends cleanly: a barrier on MPI_COMM_WORLD (not on the
 * failed communicators) and MPI_Finalize, which does not wait for the
 * requests left pending on the failed communicators. */
#include <check.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_config.h"
#include "tcomm_internal.h"
#include "tcomm_mpi.h"
#include "mpi_suite.h"

static tcomm_comm_t *checked, *unchecked; /* TCOMM_CHECK 1 and 0 */
static tcomm_graph_t *graph;
static MPI_Comm side;  /* holds the late rank back */
static MPI_Comm early; /* the others (MPI_COMM_NULL on the late rank) */
static int rank, nranks;

#define expect(...) tcomm_test_expect(rank, __VA_ARGS__)

static tcomm_tensor_t *make(size_t n, float base)
{
    float *v = malloc(n * sizeof *v + 1);
    for (size_t i = 0; i < n; i++)
        v[i] = base + (float)i;
    tcomm_tensor_t *t;
    size_t s[1] = {n};
    ck_assert_int_eq(tcomm_tensor_from_host(graph, TCOMM_F32, v, 1, s, &t),
                     TCOMM_SUCCESS);
    free(v);
    return t;
}

static void every_collective_works(tcomm_comm_t *c)
{
    size_t n = 4 * (size_t)nranks;
    tcomm_tensor_t *in = make(n, (float)rank), *out;
    float got[64];
    ck_assert_int_eq(tcomm_all_reduce(c, in, TCOMM_SUM, &out),
                     TCOMM_SUCCESS);
    tcomm_tensor_to_host(out, got, n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        ck_assert(got[i] == (float)(nranks * (nranks - 1) / 2) +
                                (float)(i * (size_t)nranks));
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_all_gather(c, in, 0, &out), TCOMM_SUCCESS);
    ck_assert_uint_eq(tcomm_tensor_numel(out), n * (size_t)nranks);
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_reduce_scatter(c, in, TCOMM_MAX, 0, &out),
                     TCOMM_SUCCESS);
    tcomm_tensor_to_host(out, got, 4 * sizeof(float));
    ck_assert(got[0] == (float)(nranks - 1 + 4 * rank));
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_broadcast(c, in, nranks - 1, &out),
                     TCOMM_SUCCESS);
    tcomm_tensor_to_host(out, got, n * sizeof(float));
    ck_assert(got[0] == (float)(nranks - 1));
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_barrier(c), TCOMM_SUCCESS);
    tcomm_tensor_release(in);
}

START_TEST(collectives_work_with_a_timeout)
{
    every_collective_works(checked);
    every_collective_works(unchecked);
    /* the agreement's rounds are the polled ones: a disagreement and an
     * error on one rank are still reported on every rank */
    tcomm_tensor_t *in = make(rank == nranks - 1 ? 5 : 4, 0), *out = NULL;
    expect(tcomm_all_reduce(checked, in, TCOMM_SUM, &out),
           TCOMM_ERR_MISMATCH, "ranks disagree on shape", (char *)NULL);
    tcomm_status_t st = tcomm_broadcast(checked, in, rank ? 0 : 9, &out);
    expect(st, rank ? TCOMM_ERR_MISMATCH : TCOMM_ERR_INVALID_ARG,
           "root 9 is out of range", (char *)NULL);
    tcomm_tensor_release(in);
    every_collective_works(checked);
}
END_TEST

static double timed(tcomm_status_t *st, tcomm_comm_t *c, tcomm_tensor_t *in)
{
    tcomm_tensor_t *out = NULL;
    double t0 = MPI_Wtime();
    *st = tcomm_all_reduce(c, in, TCOMM_SUM, &out);
    ck_assert_ptr_null(out);
    return MPI_Wtime() - t0;
}

START_TEST(a_late_rank_is_named)
{
    int late = nranks - 1;
    tcomm_tensor_t *in = make(8, (float)rank);
    tcomm_comm_t *comms[2] = {checked, unchecked};
    if (rank == late)
        MPI_Barrier(side);
    for (int k = 0; k < 2; k++) {
        tcomm_comm_t *c = comms[k];
        tcomm_status_t st;
        double dt = timed(&st, c, in);
        if (rank == 0 || rank == late) /* for the log */
            printf("rank %d after %.2f s: %s\n", rank, dt,
                   tcomm_last_error());
        char call[64], who[64];
        snprintf(call, sizeof call, "tcomm_all_reduce: call %llu on this "
                                    "communicator",
                 (unsigned long long)c->seq);
        if (rank != late) {
            snprintf(who, sizeof who, "rank %d has not arrived", late);
            expect(st, TCOMM_ERR_TIMEOUT, call, "within 1 s", who,
                   (char *)NULL);
            /* Never early: the first rank to give up waited the whole
             * timeout; the others may learn it from that rank sooner
             * than their own clock, if they entered later. The upper
             * limit only catches a hang. */
            double longest;
            MPI_Allreduce(&dt, &longest, 1, MPI_DOUBLE, MPI_MAX, early);
            ck_assert_msg(longest > 0.9 && dt < 20.0,
                          "rank %d: %.2f s, the longest %.2f s", rank, dt,
                          longest);
        } else { /* the peers left while we slept: fail fast */
            expect(st, TCOMM_ERR_COMM_FAILED, call, "rank 0 gave up",
                   (char *)NULL);
            ck_assert_msg(dt < 0.9, "the late rank waited %.2f s", dt);
        }
        expect(tcomm_barrier(c), TCOMM_ERR_COMM_FAILED,
               "tcomm_barrier: the communicator failed earlier",
               (char *)NULL);
    }
    if (rank != late)
        MPI_Barrier(side);
    tcomm_tensor_release(in);
}
END_TEST

int main(int argc, char **argv)
{
    setenv("TCOMM_TIMEOUT", "1", 1);
    tcomm_config_reload();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    MPI_Comm_split(MPI_COMM_WORLD, rank == nranks - 1 ? MPI_UNDEFINED : 0,
                   rank, &early);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &checked) != TCOMM_SUCCESS ||
        tcomm_comm_create_mpi(MPI_COMM_WORLD, &unchecked) != TCOMM_SUCCESS ||
        tcomm_comm_set_attr(unchecked, TCOMM_ATTR_CHECK, 0) !=
            TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    alarm(60); /* a hang fails the test */
    Suite *s = suite_create("mpi_timeout");
    TCase *tc = tcase_create("timeout");
    tcase_set_timeout(tc, 0);
    if (nranks > 1) {
        tcase_add_test(tc, collectives_work_with_a_timeout);
        tcase_add_test(tc, a_late_rank_is_named);
    }
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    /* Failed communicators leave their MPI objects to MPI_Finalize. */
    tcomm_comm_destroy(checked);
    tcomm_comm_destroy(unchecked);
    tcomm_graph_destroy(graph);
    MPI_Comm_free(&side);
    if (early != MPI_COMM_NULL)
        MPI_Comm_free(&early);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
