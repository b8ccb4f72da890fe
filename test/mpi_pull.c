/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of the single-copy pull behind all_gather along dim > 0
 * (src/mpi/node/peer_copy.c), on 1-4 ranks of one node: the dispatch
 * takes it for big inputs exactly when cross-memory attach works here
 * (probed by the test itself), a rank whose reads fail, or that lives in
 * another PID namespace, sends every rank back to MPI messages with a
 * correct result, and the switch of
 * TCOMM_SINGLE_COPY=0 keeps it off. Results are checked element by element;
 * checks are agreed across ranks before ck_assert, so no rank is left waiting.
 */
#define _GNU_SOURCE
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tcomm_mpi_kernels.h"
#include "tcomm_mpi_reshape.h"
#include "mpi_suite.h"
#include "tcomm_test_hooks.h"

static int rank, np;

static int agree_sum(int mine, MPI_Comm comm)
{
    int all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, comm);
    return all;
}

/* Can this rank read the next rank's memory, as the pull would? */
static int probe_cma(MPI_Comm comm)
{
    uint32_t mine = 0x7c0ffee0u + (uint32_t)rank, got = 0;
    uint64_t me[2] = {(uintptr_t)&mine, (uint64_t)getpid()}, all[8];
    MPI_Allgather(me, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, comm);
    int peer = (rank + 1) % np;
    struct iovec loc = {&got, sizeof got};
    struct iovec rem = {(void *)(uintptr_t)all[2 * peer], sizeof got};
    int ok = process_vm_readv((pid_t)all[2 * peer + 1], &loc, 1, &rem, 1,
                              0) == (ssize_t)sizeof got &&
             got == 0x7c0ffee0u + (uint32_t)peer;
    MPI_Barrier(comm); /* mine stays alive until every peer has read */
    return agree_sum(!ok, comm) == 0;
}

/* all_gather along dim 1 of [rows][seg[r]] u32 through the dispatch;
 * returns the number of wrong elements on this rank. */
static int gather_and_check(MPI_Comm comm, size_t rows, size_t base)
{
    size_t seg[8], off[9] = {0};
    for (int r = 0; r < np; r++) { /* uneven, rank 1 empty */
        seg[r] = r == 1 ? 0 : base + (size_t)r * 17;
        off[r + 1] = off[r] + seg[r];
    }
    size_t total = off[np];
    uint32_t *in = malloc(rows * seg[rank] * 4 + 4);
    uint32_t *out = malloc(rows * total * 4 + 4);
    for (size_t i = 0; i < rows * seg[rank]; i++)
        in[i] = (uint32_t)rank << 28 | (uint32_t)i;
    memset(out, 0x5a, rows * total * 4);
    int bad = tcomm_mpi_all_gather_dim(in, out, TCOMM_U32, rows, seg, comm) !=
              MPI_SUCCESS;
    for (int r = 0; r < np; r++)
        for (size_t o = 0; o < rows; o++)
            for (size_t j = 0; j < seg[r]; j++)
                bad += out[o * total + off[r] + j] !=
                       ((uint32_t)r << 28 | (uint32_t)(o * seg[r] + j));
    free(in);
    free(out);
    return bad;
}

static MPI_Comm fresh(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* Big inputs (64 rows of 16 KiB and more) pull where the kernel lets us
 * read a peer; small ones never ask. */
START_TEST(test_pull_taken)
{
    MPI_Comm c = fresh();
    int cma = probe_cma(c);
    ck_assert_int_eq(agree_sum(gather_and_check(c, 3, 5), c), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(c), PULL_UNKNOWN); /* too small */
    ck_assert_int_eq(agree_sum(gather_and_check(c, 64, 4096), c), 0);
    if (np > 1) /* one rank: no reshaping collective to run */
        ck_assert_int_eq(tcomm_mpi_pull_state(c), cma ? PULL_ON : PULL_OFF);
    ck_assert_int_eq(agree_sum(gather_and_check(c, 1500, 100), c), 0);
    MPI_Comm_free(&c);
}
END_TEST

/* One rank's reads fail: all ranks fall back, this call and later ones
 * are right, and the communicator stays off. */
START_TEST(test_pull_fallback)
{
    MPI_Comm c = fresh();
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, rank == np - 1);
    ck_assert_int_eq(agree_sum(gather_and_check(c, 64, 4096), c), 0);
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, 0);
    if (np > 1)
        ck_assert_int_eq(tcomm_mpi_pull_state(c), PULL_OFF);
    ck_assert_int_eq(agree_sum(gather_and_check(c, 64, 4096), c), 0);
    MPI_Comm_free(&c);
}
END_TEST

/* A rank in a PID namespace of its own: nobody reads by its pid (which
 * names another process here), every rank falls back. */
START_TEST(test_pull_other_pid_namespace)
{
    MPI_Comm c = fresh();
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE, rank == np - 1 ? 12345 : 0);
    ck_assert_int_eq(agree_sum(gather_and_check(c, 64, 4096), c), 0);
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE, 0);
    if (np > 1)
        ck_assert_int_eq(tcomm_mpi_pull_state(c), PULL_OFF);
    MPI_Comm_free(&c);
}
END_TEST

START_TEST(test_pull_switched_off)
{
    MPI_Comm c = fresh();
    ck_assert_int_eq(tcomm_mpi_pull_off(c), MPI_SUCCESS);
    ck_assert_int_eq(agree_sum(gather_and_check(c, 64, 4096), c), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(c), PULL_OFF);
    MPI_Comm_free(&c);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_pull");
    TCase *tc = tcase_create("pull");
    int any;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_pull_taken);
    tcase_add_test(tc, test_pull_fallback);
    tcase_add_test(tc, test_pull_other_pid_namespace);
    tcase_add_test(tc, test_pull_switched_off);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
