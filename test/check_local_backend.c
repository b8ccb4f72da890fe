/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend at 1-4 ranks (threads of this process): the shared
 * correctness matrix (test/backend_matrix.c) on host graphs and on
 * tagged sim graphs (the staged path: the "device" memory is reached
 * only through the space's copies), each thread checking its own result
 * against the MPI-free reference. Threads record their first failure
 * (Check's assertions belong to the main thread) and keep calling the
 * collectives, so that a failure never leaves a peer waiting. The
 * safety side is in test/check_local_backend_safety.c. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend_matrix.h"
#include "tcomm_sim.h"

typedef enum { ON_HOST, ON_SIM } space_t;

static void *thread_main(void *arg)
{
    matrix_ctx_t *c = arg;
    backend_matrix(c);
    tcomm_comm_destroy(c->comm); /* each rank drops its own handle */
    return NULL;
}

/* The matrix on n threads of one local world, each with its own graph. */
static void run_world(int n, space_t space)
{
    tcomm_comm_t *comms[4];
    matrix_ctx_t ctx[4];
    pthread_t th[4];
    ck_assert_int_eq(tcomm_comm_create_local(n, comms), TCOMM_SUCCESS);
    for (int r = 0; r < n; r++) {
        memset(&ctx[r], 0, sizeof ctx[r]);
        ctx[r].comm = comms[r];
        ctx[r].rank = r;
        ctx[r].nranks = n;
        tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
        tcomm_status_t st =
            space == ON_SIM
                ? tcomm_graph_create_sim_flags(r, TCOMM_SIM_TAGGED,
                                               &ctx[r].graph)
                : tcomm_graph_create(host, &ctx[r].graph);
        ck_assert_int_eq(st, TCOMM_SUCCESS);
    }
    for (int r = 0; r < n; r++)
        ck_assert_int_eq(pthread_create(&th[r], NULL, thread_main, &ctx[r]),
                         0);
    for (int r = 0; r < n; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < n; r++) {
        ck_assert_msg(!ctx[r].fail[0], "%s", ctx[r].fail);
        ck_assert_int_eq(tcomm_graph_destroy(ctx[r].graph), TCOMM_SUCCESS);
    }
}

START_TEST(matrix_on_host_graphs)
{
    run_world(_i, ON_HOST);
}
END_TEST

START_TEST(matrix_on_sim_graphs_staged)
{
    run_world(_i, ON_SIM);
}
END_TEST

/* Loop tests over the world size: 1 (the front end's zero copy) to 4. */
int main(void)
{
    Suite *s = suite_create("local_backend");
    TCase *tc = tcase_create("matrix");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, matrix_on_host_graphs, 1, 5);
    tcase_add_loop_test(tc, matrix_on_sim_graphs_staged, 1, 5);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
