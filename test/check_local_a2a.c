/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend's all_to_all, all_to_all_v and reduce_scatter_v at
 * 1-4 ranks (threads of this process): the matrix of test/a2a_matrix.c
 * on host graphs and on tagged sim graphs (the staged path: "device"
 * memory reached only through the space's copies), in default and
 * deterministic mode, each thread checking its own result against the
 * MPI-free reference; in deterministic mode also the bits of the
 * rank-order fold. As in check_local_backend.c, threads record their
 * first failure and keep calling, so that no peer is left waiting. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_matrix.h"
#include "tcomm_sim.h"

typedef enum { ON_HOST, ON_SIM } space_t;

typedef struct {
    matrix_ctx_t m;
    int deterministic;
} job_t;

static void *thread_main(void *arg)
{
    job_t *j = arg;
    if (tcomm_comm_set_attr(j->m.comm, TCOMM_ATTR_DETERMINISTIC,
                            j->deterministic) != TCOMM_SUCCESS)
        EXPECT(&j->m, 0, "set deterministic: %s", tcomm_last_error());
    a2a_matrix(&j->m);
    if (j->deterministic)
        a2a_matrix_ordered_fold(&j->m);
    tcomm_comm_destroy(j->m.comm); /* each rank drops its own handle */
    return NULL;
}

static void run_world(int n, space_t space, int deterministic)
{
    tcomm_comm_t *comms[4];
    job_t job[4];
    pthread_t th[4];
    ck_assert_int_eq(tcomm_comm_create_local(n, comms), TCOMM_SUCCESS);
    for (int r = 0; r < n; r++) {
        memset(&job[r], 0, sizeof job[r]);
        job[r].m.comm = comms[r];
        job[r].m.rank = r;
        job[r].m.nranks = n;
        job[r].deterministic = deterministic;
        tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
        tcomm_status_t st =
            space == ON_SIM ? tcomm_graph_create_sim_flags(r, TCOMM_SIM_TAGGED,
                                                           &job[r].m.graph)
                            : tcomm_graph_create(host, &job[r].m.graph);
        ck_assert_int_eq(st, TCOMM_SUCCESS);
    }
    for (int r = 0; r < n; r++)
        ck_assert_int_eq(pthread_create(&th[r], NULL, thread_main, &job[r]), 0);
    for (int r = 0; r < n; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < n; r++) {
        ck_assert_msg(!job[r].m.fail[0], "%s", job[r].m.fail);
        ck_assert_int_eq(tcomm_graph_destroy(job[r].m.graph), TCOMM_SUCCESS);
    }
}

START_TEST(on_host_graphs)
{
    run_world(_i, ON_HOST, 0);
}
END_TEST

START_TEST(on_host_graphs_deterministic)
{
    run_world(_i, ON_HOST, 1);
}
END_TEST

START_TEST(on_sim_graphs_staged)
{
    run_world(_i, ON_SIM, 0);
}
END_TEST

/* Loop tests over the world size: 1 (the front end's answer) to 4. */
int main(void)
{
    Suite *s = suite_create("local_a2a");
    TCase *tc = tcase_create("matrix");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, on_host_graphs, 1, 5);
    tcase_add_loop_test(tc, on_host_graphs_deterministic, 1, 5);
    tcase_add_loop_test(tc, on_sim_graphs_staged, 1, 5);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
