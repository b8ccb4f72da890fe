/* SPDX-License-Identifier: BSD-3-Clause */
/* What the nonblocking safety suites (test/mpi_nonblocking_errors.c,
 * test/mpi_nonblocking_timeout.c) share: mpi_safety.h's fixture (alarm
 * per case, snapshots, expect, assert_recovers) with MPI initialized
 * for MPI_THREAD_MULTIPLE, a TCOMM_TIMEOUT=1 communicator, and good
 * requests checked against the reference. */
#ifndef TCOMM_TEST_MPI_NONBLOCKING_SAFETY_H
#define TCOMM_TEST_MPI_NONBLOCKING_SAFETY_H

#include <mpi.h>

/* mpi_safety.h's setup, with the thread level the progress thread needs */
static int nb_init(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE;
    return MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
}
#define MPI_Init(argc, argv) nb_init(argc, argv)
#include "mpi_safety.h"
#undef MPI_Init

#include "nonblocking_ref.h"
#include "tcomm_config.h"

static const size_t s24[2] __attribute__((unused)) = {2, 4};
/* what a failed start must overwrite with NULL */
#define SENTINEL_REQ ((tcomm_request_t *)sentinel_storage)

/* A TCOMM_TIMEOUT=seconds communicator over MPI_COMM_WORLD. */
static inline tcomm_comm_t *timed_comm(const char *seconds)
{
    tcomm_comm_t *c = NULL;
    setenv("TCOMM_TIMEOUT", seconds, 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    unsetenv("TCOMM_TIMEOUT");
    tcomm_config_reload();
    return c;
}

/* A good all_reduce SUM of f32 [3, 5] on c: its request. */
static tcomm_request_t *good_start(tcomm_comm_t *c, const nb_spec_t *s,
                                   tcomm_tensor_t **in, tcomm_tensor_t **out)
{
    tcomm_request_t *r = NULL;
    *in = nb_input(graph, s, rank);
    *out = nb_output(graph, s, nranks);
    ck_assert_int_eq(nb_start(c, s, *in, *out, &r), TCOMM_SUCCESS);
    ck_assert_ptr_nonnull(r);
    return r;
}

static void good_finish(tcomm_request_t **r, const nb_spec_t *s,
                        tcomm_tensor_t *in, tcomm_tensor_t *out)
{
    expect(tcomm_wait(r), TCOMM_SUCCESS, (char *)NULL);
    ck_assert_ptr_null(*r);
    ck_assert_int_eq(nb_check(out, s, rank, nranks, "good request"), 0);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* The suite of cases that add() adds, on every rank; skips (77) if the
 * MPI lacks MPI_THREAD_MULTIPLE. */
static int nb_safety_main(int argc, char **argv, const char *name,
                          void (*add)(TCase *tc))
{
    safety_setup(&argc, &argv);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "%s: SKIP: the MPI lacks MPI_THREAD_MULTIPLE\n",
                name);
        MPI_Finalize();
        return 77;
    }
    Suite *s = suite_create(name);
    TCase *tc = tcase_create("errors");
    tcase_set_timeout(tc, 0);
    tcase_add_checked_fixture(tc, case_arm, case_disarm);
    add(tc);
    suite_add_tcase(s, tc);
    return safety_run(s);
}

#endif /* TCOMM_TEST_MPI_NONBLOCKING_SAFETY_H */
