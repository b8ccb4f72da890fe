/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all, all_to_all_v and reduce_scatter_v on sim graphs (device
 * memory simulated on the host), under mpirun at 1-4 ranks, every dtype
 * (and op), against test/mpi_device_a2a_ref.c's reference. The
 * configurations of test/mpi_device.c:
 *   staged  (TCOMM_CUDA_AWARE=0, tagged sim: the host never touches
 *            "device" memory), 64-byte and 100-byte chunks, so that
 *            pipelines of many steps and partial pieces run, and one
 *            chunk;
 *   direct  (TCOMM_CUDA_AWARE=1), with MPI's ops and with the
 *            all-to-all + rank-order fold (deterministic mode, and a
 *            lowered MPI count limit so that messages are split).
 * Nothing may be left queued on the sim stream after a call. */
#include <check.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_device_a2a_ref.h"
#include "mpi_reference.h"
#include "mpi_suite.h"
#include "tcomm.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_sim.h"
#include "tcomm_test_hooks.h"

static int rank, size;

typedef struct {
    const char *name;
    int aware, det, tagged;
    const char *chunk;
    long count_limit; /* 0: leave the default */
} config_t;

static const config_t configs[] = {
    { "staged, 64-byte chunks", 0, 0, 1, "64", 0 },
    { "staged, 100-byte chunks, deterministic", 0, 1, 1, "100", 0 },
    { "staged, one chunk", 0, 0, 1, "1M", 0 },
    { "direct, MPI ops", 1, 0, 0, "64", 0 },
    { "direct, deterministic fold, split messages", 1, 1, 0, "64", 5 },
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])

/* _i: configuration * 3 + collective (all_to_all, _v, reduce_scatter_v) */
START_TEST(test_config)
{
    const config_t *c = &configs[_i / 3];
    int coll = _i % 3;
    tcomm_comm_t *comm;
    tcomm_graph_t *graph;
    long saved = tcomm_test_hook(TCOMM_HOOK_COUNT_LIMIT);
    setenv("TCOMM_CUDA_AWARE", c->aware ? "1" : "0", 1);
    setenv("TCOMM_DETERMINISTIC", c->det ? "1" : "0", 1);
    setenv("TCOMM_STAGING_CHUNK", c->chunk, 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_graph_create_sim_flags(
                         0, c->tagged ? TCOMM_SIM_TAGGED : 0, &graph),
                     TCOMM_SUCCESS);
    tcomm_comm_info_t info;
    ck_assert_int_eq(tcomm_comm_info(comm, &info), TCOMM_SUCCESS);
    if (size > 1)
        ck_assert_int_eq(info.cuda_aware, c->aware);
    if (c->count_limit)
        tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, c->count_limit);

    a2a_reset(c->name, rank, size);
    for (int dt = 0; dt < TCOMM_DTYPE_COUNT; dt++) {
        if (coll == 0)
            check_all_to_all(comm, graph, dt);
        else if (coll == 1)
            check_all_to_all_v(comm, graph, dt);
        else
            for (int op = 0; op < TCOMM_OP_COUNT; op++)
                if (op != TCOMM_AVG || ref_is_float((tcomm_dtype_t)dt))
                    check_reduce_scatter_v(comm, graph, dt, op);
    }
    size_t pending = tcomm_sim_pending(graph);
    long bad = a2a_failures() + (pending != 0), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, saved);
    ck_assert_int_eq(tcomm_graph_destroy(graph), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_destroy(comm), TCOMM_SUCCESS);
    unsetenv("TCOMM_CUDA_AWARE");
    unsetenv("TCOMM_DETERMINISTIC");
    unsetenv("TCOMM_STAGING_CHUNK");
    tcomm_config_reload();
    ck_assert_msg(pending == 0, "%zu operations left on the sim stream",
                  pending);
    ck_assert_msg(all == 0, "%s, collective %d: %ld mismatches over all "
                  "ranks (see stderr)", c->name, coll, all);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    Suite *s = suite_create("mpi_device_a2a");
    TCase *tc = tcase_create("sim");
    tcase_set_timeout(tc, 0);
    tcase_add_loop_test(tc, test_config, 0, 3 * NCONFIGS);
    suite_add_tcase(s, tc);

    int any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
