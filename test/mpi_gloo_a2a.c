/* SPDX-License-Identifier: BSD-3-Clause */
/* The Gloo backend's all_to_all, all_to_all_v and reduce_scatter_v at
 * 1-4 ranks: mpirun only launches the processes and hands them a fresh
 * store directory; every collective goes through Gloo. The matrix of
 * test/a2a_matrix.c in default (ring) and deterministic mode (there also
 * the bits of the rank-order fold), and the host-only rule for the three
 * collectives. */
#include <check.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "a2a_matrix.h"
#include "mpi_suite.h"
#include "tcomm_gloo.h"
#include "tcomm_sim.h"

static char store[256];
static int rank, nranks;
static tcomm_comm_t *comm;
static tcomm_graph_t *graph;

static void matrix_in_mode(int deterministic)
{
    ck_assert_int_eq(
        tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, deterministic),
        TCOMM_SUCCESS);
    matrix_ctx_t c = {
        .comm = comm, .graph = graph, .rank = rank, .nranks = nranks};
    a2a_matrix(&c);
    if (deterministic)
        a2a_matrix_ordered_fold(&c);
    ck_assert_msg(!c.fail[0], "%s", c.fail);
}

START_TEST(matrix_ring)
{
    matrix_in_mode(0);
}
END_TEST

START_TEST(matrix_deterministic)
{
    matrix_in_mode(1);
}
END_TEST

/* Device tensors: every rank refuses each of the three before any data
 * moves (each on a fresh communicator: a refusal from the backend marks
 * its communicator failed). */
START_TEST(device_graphs_are_refused)
{
    if (nranks < 2)
        return;
    tcomm_graph_t *sim;
    tcomm_tensor_t *in, *out = NULL;
    size_t shape[2] = {2 * (size_t)nranks, 3}, sizes[4] = {2, 2, 2, 2};
    ck_assert_int_eq(tcomm_graph_create_sim(0, &sim), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(sim, TCOMM_F32, 2, shape, &in), 0);
    for (int k = 0; k < 3; k++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "refuse%d", k);
        tcomm_gloo_options_t o = {.store_dir = store,
                                  .prefix = prefix,
                                  .rank = rank,
                                  .world_size = nranks};
        tcomm_comm_t *c;
        ck_assert_int_eq(tcomm_comm_create_gloo(&o, &c), TCOMM_SUCCESS);
        tcomm_status_t st =
            k == 0   ? tcomm_all_to_all(c, in, 0, 1, &out)
            : k == 1 ? tcomm_all_to_all_v(c, in, 0, sizes, 0, &out)
                     : tcomm_reduce_scatter_v(c, in, TCOMM_SUM, 0, sizes, &out);
        ck_assert_int_eq(st, TCOMM_ERR_UNSUPPORTED);
        ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "host tensors only"));
        ck_assert_ptr_null(out);
        tcomm_comm_destroy(c);
    }
    tcomm_tensor_release(in);
    tcomm_graph_destroy(sim);
}
END_TEST

static void make_store(void)
{
    if (rank == 0) {
        snprintf(store, sizeof store, "%s/tcomm-gloo-a2a-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(store))
            store[0] = '\0';
    }
    MPI_Bcast(store, sizeof store, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!store[0])
        MPI_Abort(MPI_COMM_WORLD, 1);
}

static void remove_store(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", store);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    make_store();
    tcomm_gloo_options_t o = {.store_dir = store,
                              .prefix = "mpi_gloo_a2a",
                              .rank = rank,
                              .world_size = nranks};
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_comm_create_gloo(&o, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    Suite *s = suite_create("mpi_gloo_a2a");
    TCase *tc = tcase_create("gloo");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, matrix_ring);
    tcase_add_test(tc, matrix_deterministic);
    tcase_add_test(tc, device_graphs_are_refused);
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(graph);
    remove_store();
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
