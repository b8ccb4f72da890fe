/* SPDX-License-Identifier: BSD-3-Clause */
/* Running a Check suite on every rank of an MPI test program. */
#ifndef TCOMM_TEST_MPI_SUITE_H
#define TCOMM_TEST_MPI_SUITE_H

#include <check.h>
#include <mpi.h>

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

#endif /* TCOMM_TEST_MPI_SUITE_H */
