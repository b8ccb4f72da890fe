/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives on sim graphs (device memory simulated on the host),
 * under mpirun at 1-4 ranks: every collective x dtype x op x dim against
 * a reference that every rank computes from the regenerated inputs of
 * all ranks. Configurations:
 *   staged  (TCOMM_CUDA_AWARE=0, tagged sim: the host never touches
 *            "device" memory), 64-byte and 100-byte chunks, so that
 *            pipelines of many chunks and partial last chunks run;
 *   direct  (TCOMM_CUDA_AWARE=1), with MPI's ops and with the
 *            all-to-all + rank-order fold (deterministic mode, and a
 *            lowered MPI count limit so that messages are split).
 * Failures are counted, not asserted on the spot, so that no rank leaves
 * the others waiting in a collective. */
#include <check.h>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_sim.h"
#include "mpi_device_ref.h"
#include "mpi_suite.h"
#include "tcomm_test_hooks.h"

static int rank, size;

typedef struct {
    const char *name;
    int aware, det, tagged;
    const char *chunk;
    size_t count_limit; /* 0: leave the default */
} config_t;

static const config_t configs[] = {
    { "staged, 64-byte chunks", 0, 0, 1, "64", 0 },
    { "staged, 100-byte chunks, deterministic", 0, 1, 1, "100", 0 },
    { "staged, one chunk", 0, 0, 1, "1M", 0 },
    { "direct, MPI ops", 1, 0, 0, "64", 0 },
    { "direct, deterministic fold, split messages", 1, 1, 0, "64", 5 },
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])

static tcomm_comm_t *comm;
static tcomm_graph_t *graph;

static void setup_config(const config_t *c)
{
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
}

static void teardown_config(void)
{
    ck_assert_int_eq(tcomm_graph_destroy(graph), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_destroy(comm), TCOMM_SUCCESS);
    unsetenv("TCOMM_CUDA_AWARE");
    unsetenv("TCOMM_DETERMINISTIC");
    unsetenv("TCOMM_STAGING_CHUNK");
    tcomm_config_reload();
}

/* Every collective of the suite on the current comm and graph. */
static void run_suite(const char *name)
{
    ref_reset(name, rank, size);
    for (int dt = 0; dt < TCOMM_DTYPE_COUNT; dt++) {
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(dt))
                continue;
            check_all_reduce(comm, graph, dt, op);
            check_reduce_scatter(comm, graph, dt, op);
        }
        check_all_gather(comm, graph, dt);
        check_broadcast(comm, graph, dt);
    }
    long bad = ref_failures(), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    ck_assert_msg(all == 0, "%s: %ld mismatches over all ranks (see stderr)",
                  name, all);
}

START_TEST(test_config)
{
    const config_t *c = &configs[_i];
    long saved = tcomm_test_hook(TCOMM_HOOK_COUNT_LIMIT);
    setup_config(c);
    if (c->count_limit)
        tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, (long)c->count_limit);
    run_suite(c->name);
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, saved);
    teardown_config();
}
END_TEST

/* The sim stream really defers work: nothing left pending after a
 * collective, and a wrapped host pointer is refused by a tagged graph. */
START_TEST(test_nothing_pending)
{
    setup_config(&configs[0]);
    float x[40];
    size_t shape[1] = { 40 };
    for (int i = 0; i < 40; i++)
        x[i] = (float)(i + rank);
    tcomm_tensor_t *t, *out;
    ck_assert_int_eq(tcomm_tensor_from_host(graph, TCOMM_F32, x, 1, shape,
                                            &t), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_all_reduce(comm, t, TCOMM_SUM, &out),
                     TCOMM_SUCCESS);
    ck_assert_uint_eq(tcomm_sim_pending(graph), 0);
    tcomm_tensor_t *w = NULL;
    ck_assert_int_eq(tcomm_tensor_wrap(graph, TCOMM_F32, x, 1, shape, &w),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "host memory"));
    tcomm_tensor_release(out);
    tcomm_tensor_release(t);
    teardown_config();
}
END_TEST

/* Without TCOMM_CUDA_AWARE the probe asks MPI; the ranks agree. */
START_TEST(test_probe)
{
    unsetenv("TCOMM_CUDA_AWARE");
    tcomm_config_reload();
    tcomm_comm_t *c;
    tcomm_comm_info_t info;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_info(c, &info), TCOMM_SUCCESS);
    ck_assert(info.cuda_aware == 0 || info.cuda_aware == 1);
#if defined(MPIX_CUDA_AWARE_SUPPORT) && !MPIX_CUDA_AWARE_SUPPORT
    if (size > 1) /* an MPI built without CUDA is not CUDA-aware */
        ck_assert_int_eq(info.cuda_aware, 0);
#endif
    int mine = info.cuda_aware, lo, hi;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ck_assert_int_eq(lo, hi);
    ck_assert_int_eq(tcomm_comm_destroy(c), TCOMM_SUCCESS);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    Suite *s = suite_create("mpi_device");
    TCase *tc = tcase_create("sim");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_config, 0, NCONFIGS);
    tcase_add_test(tc, test_nothing_pending);
    tcase_add_test(tc, test_probe);
    suite_add_tcase(s, tc);

    int any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
