/* SPDX-License-Identifier: BSD-3-Clause */
/* An intercommunicator is refused (issue 14): tcomm's collectives are
 * intra-communicator collectives, and MPI's meaning of MPI_Allreduce on
 * an intercommunicator (each group receives the other group's result)
 * is not theirs. Before, tcomm_comm_create_mpi segfaulted inside
 * MPI_Comm_split_type at 3 ranks and accepted it at 2. Run at 2-4 ranks:
 * the two halves of MPI_Comm_split(world, rank % 2) joined by
 * MPI_Intercomm_create. */
#include <check.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tcomm_mpi.h"
#include "tcomm_nccl.h"
#include "mpi_suite.h"

static int rank, nranks;
static MPI_Comm half, inter;

static void refused(tcomm_status_t st, const char *fn)
{
    const char *msg = tcomm_last_error();
    ck_assert_msg(st == TCOMM_ERR_INVALID_ARG, "rank %d: %s gave %d: %s",
                  rank, fn, st, msg);
    ck_assert_msg(strstr(msg, fn) && strstr(msg, "intercommunicator") &&
                      strstr(msg, "MPI_Intercomm_merge"),
                  "rank %d: \"%s\" must name the call, the problem and "
                  "the fix",
                  rank, msg);
}

START_TEST(create_mpi_refuses_an_intercommunicator)
{
    tcomm_comm_t *c = (tcomm_comm_t *)&half; /* must stay as it was */
    refused(tcomm_comm_create_mpi(inter, &c), "tcomm_comm_create_mpi");
    ck_assert_ptr_eq(c, (tcomm_comm_t *)&half);
}
END_TEST

START_TEST(create_nccl_refuses_an_intercommunicator)
{
#ifdef TCOMM_HAVE_NCCL
    tcomm_comm_t *c = NULL;
    refused(tcomm_comm_create_nccl(inter, &c), "tcomm_comm_create_nccl");
    ck_assert_ptr_null(c);
#endif
}
END_TEST

/* The refusal leaves MPI as it was: the halves and a merged
 * intracommunicator still make working tcomm communicators. */
START_TEST(the_merged_communicator_works)
{
    MPI_Comm merged;
    ck_assert_int_eq(MPI_Intercomm_merge(inter, rank % 2, &merged),
                     MPI_SUCCESS);
    MPI_Comm comms[2] = {merged, half};
    for (int k = 0; k < 2; k++) {
        tcomm_comm_t *c = NULL;
        ck_assert_int_eq(tcomm_comm_create_mpi(comms[k], &c), TCOMM_SUCCESS);
        int n;
        MPI_Comm_size(comms[k], &n);
        ck_assert_int_eq(tcomm_barrier(c), TCOMM_SUCCESS);
        tcomm_comm_info_t info;
        tcomm_comm_info(c, &info);
        ck_assert_int_eq(info.world_size, n);
        tcomm_comm_destroy(c);
    }
    MPI_Comm_free(&merged);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    Suite *s = suite_create("mpi_intercomm");
    TCase *tc = tcase_create("intercomm");
    if (nranks > 1) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        /* the other half's leader: world rank 1 for the evens, 0 for the
         * odds */
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7,
                             &inter);
        tcase_add_test(tc, create_mpi_refuses_an_intercommunicator);
        tcase_add_test(tc, create_nccl_refuses_an_intercommunicator);
        tcase_add_test(tc, the_merged_communicator_works);
    }
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    if (nranks > 1) {
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
