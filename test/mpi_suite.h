/* SPDX-License-Identifier: BSD-3-Clause */
/* Running a Check suite on every rank of an MPI test program. */
#ifndef TCOMM_TEST_MPI_SUITE_H
#define TCOMM_TEST_MPI_SUITE_H

#include <check.h>
#include <mpi.h>
#include <stdarg.h>
#include <string.h>

#include "tcomm.h"

/* Runs s without forking (the tests are MPI processes) and returns the
 * largest number of failed tests of any rank, the same on every rank.
 * Every rank prints its failures, or with @p rank0_only (for suites
 * whose checks are agreed across ranks) rank 0 alone. */
static inline int tcomm_test_run_suite(Suite *s, int rank0_only)
{
    int rank, failed, any = 0;
    SRunner *sr = srunner_create(s);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, rank0_only && rank != 0 ? CK_SILENT : CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* This rank's status must be want, and tcomm's sentence must contain
 * every key of the NULL-terminated list that follows. */
static inline void tcomm_test_expect(int rank, tcomm_status_t st,
                                     tcomm_status_t want, ...)
{
    const char *msg = tcomm_last_error();
    ck_assert_msg(st == want, "rank %d: status %d but want %d: %s", rank,
                  st, want, msg);
    va_list ap;
    va_start(ap, want);
    for (const char *k; (k = va_arg(ap, const char *));)
        ck_assert_msg(strstr(msg, k), "rank %d: \"%s\" lacks \"%s\"", rank,
                      msg, k);
    va_end(ap);
}

#endif /* TCOMM_TEST_MPI_SUITE_H */
