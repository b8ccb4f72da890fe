/* SPDX-License-Identifier: BSD-3-Clause */
/* What the MPI nonblocking suites (test/mpi_nonblocking.c,
 * test/mpi_nonblocking_progress.c) share: MPI with MPI_THREAD_MULTIPLE
 * (plain MPI_Init with -DNB_MPI_SINGLE: the caller-mode fallback), one
 * communicator and host graph, failures counted per rank and agreed at
 * the end of each case (so that no rank leaves its peers waiting), and
 * alarm() around each case, so that a hang fails it. */
#ifndef TCOMM_TEST_MPI_NONBLOCKING_H
#define TCOMM_TEST_MPI_NONBLOCKING_H

#include <check.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nonblocking_ref.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_progress.h" /* tcomm_progress_done */

#define CASE_SECONDS 90 /* a case that takes longer hangs: fail it */

static int rank, nranks;
static int caller_mode; /* every start completes its collective */
static tcomm_comm_t *comm;
static tcomm_graph_t *graph;

static void case_arm(void) { alarm(CASE_SECONDS); }
static void case_disarm(void) { alarm(0); }

/* st must be success; a failure is counted with its sentence. */
static void ok(tcomm_status_t st, const char *what)
{
    if (st == TCOMM_SUCCESS)
        return;
    fprintf(stderr, "rank %d: %s: %d %s\n", rank, what, st,
            tcomm_last_error());
    nb_bad++;
}

/* Every rank's failures, summed: the case fails on every rank alike. */
static void agree(const char *name)
{
    long all = 0, mine = nb_bad;
    nb_bad = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    ck_assert_msg(all == 0, "%s: %ld failures over all ranks (see stderr)",
                  name, all);
}

/* A request of caller mode is complete when its start returns (read
 * without completing it: the handle stays the caller's). */
static inline void expect_done_if_caller(tcomm_request_t *r, int caller)
{
    if (!caller || !r || tcomm_progress_done(r))
        return;
    fprintf(stderr, "rank %d: caller mode, but the start returned before "
                    "its collective completed\n", rank);
    nb_bad++;
}

/* MPI, the communicator and graph, the suite (its cases added by add),
 * then the teardown; the exit status of the program. */
static int nb_main(int argc, char **argv, const char *name,
                   void (*add)(TCase *tc))
{
#ifdef NB_MPI_SINGLE
    MPI_Init(&argc, &argv); /* below MPI_THREAD_MULTIPLE: caller mode */
#else
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "%s: SKIP: the MPI lacks MPI_THREAD_MULTIPLE (%d)\n",
                name, provided);
        MPI_Finalize();
        return 77;
    }
#endif
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    caller_mode = level != MPI_THREAD_MULTIPLE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    Suite *s = suite_create(name);
    TCase *tc = tcase_create("requests");
    tcase_set_timeout(tc, 0);
    tcase_add_checked_fixture(tc, case_arm, case_disarm);
    add(tc);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr), any = 0;
    srunner_free(sr);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(graph);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* TCOMM_TEST_MPI_NONBLOCKING_H */
