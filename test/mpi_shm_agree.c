/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of the shared-memory agreement round (src/mpi/node/node_segment.c)
 * on 1-4 ranks of one node: thousands of rounds against MPI_Allreduce(MIN) of
 * the same values (half of them in the agreement's [s, -s] form, of
 * which only s is published) with ranks arriving in random order, and
 * MPI progress
 * while a rank waits there (a peer blocked in a receive that needs our
 * earlier MPI_Isend to move must not hang the job). */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_suite.h"
#include "tcomm_mpi.h"
#include "tcomm_node_segment.h"

static int rank, np;

static uint64_t mix(uint64_t x) /* splitmix64 */
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

START_TEST(test_rounds_against_mpi)
{
    MPI_Comm c;
    tcomm_node_segment_t *s;
    int bad = 0, all_bad = 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    ck_assert_int_eq(tcomm_node_segment_create(c, &s), MPI_SUCCESS);
    /* one rank: nothing to agree with; else this node has shared memory */
    ck_assert(np == 1 ? s == NULL : s != NULL);
    for (int round = 0; round < 4000 && s; round++) {
        int64_t v[TCOMM_NODE_SEGMENT_MIN_MAX], want[TCOMM_NODE_SEGMENT_MIN_MAX];
        int count =
            1 + (int)(mix((uint64_t)round) % TCOMM_NODE_SEGMENT_MIN_MAX);
        for (int i = 0; i < count; i++) /* often equal, sometimes not */
            v[i] = (int64_t)(mix((uint64_t)(round * 64 + i)) >> 1) -
                   (mix((uint64_t)(round * 64 + i) ^ (uint64_t)rank) % 8 ==
                            0
                        ? (int64_t)rank * 1000
                        : 0);
        if (round % 2 && count > 1) { /* the agreement's [s, -s] form */
            count -= count % 2;
            for (int i = 0; i < count / 2; i++) {
                if (mix((uint64_t)round + (uint64_t)i) % 5 == 0)
                    v[i] = INT64_MIN; /* -INT64_MIN saturates */
                v[count / 2 + i] = v[i] == INT64_MIN ? INT64_MAX : -v[i];
            }
        }
        if (mix((uint64_t)round ^ (uint64_t)rank << 32) % 16 == 0)
            usleep(50); /* arrive late */
        MPI_Allreduce(v, want, count, MPI_INT64_T, MPI_MIN, c);
        tcomm_node_segment_min(s, v, count);
        bad += memcmp(v, want, (size_t)count * sizeof *v) != 0;
    }
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, c);
    ck_assert_int_eq(all_bad, 0);
    tcomm_node_segment_destroy(s);
    MPI_Comm_free(&c);
}
END_TEST

/* Rounds that carry bytes: each rank offers 0 to TCOMM_SHM_CARRY_MAX
 * bytes (sometimes none, sometimes too many); every rank must see the
 * same verdict, every rank's bytes (against MPI_Allgather of them) when
 * all offered, and the minimum as without bytes. */
START_TEST(test_rounds_carry_bytes)
{
    MPI_Comm c;
    tcomm_node_segment_t *s;
    int bad = 0, all_bad = 0;
    size_t cap = TCOMM_SHM_CARRY_MAX + 8;
    unsigned char *mine = malloc(cap), *all = malloc(cap * (size_t)np);
    long *lens = malloc(sizeof *lens * (size_t)np);
    const void **blocks = malloc(sizeof *blocks * (size_t)np);
    size_t *got = malloc(sizeof *got * (size_t)np);

    ck_assert(mine && all && lens && blocks && got);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    ck_assert_int_eq(tcomm_node_segment_create(c, &s), MPI_SUCCESS);
    for (int round = 0; round < 2000 && s; round++) {
        uint64_t x = mix((uint64_t)round << 8 ^ (uint64_t)rank);
        long len = (long)(x % (TCOMM_SHM_CARRY_MAX + 1));
        if (x % 97 == 0)
            len = -1; /* offers nothing */
        else if (x % 89 == 0)
            len = TCOMM_SHM_CARRY_MAX + 1; /* too many */
        for (long i = 0; i < len; i++)
            mine[i] = (unsigned char)mix(x + (uint64_t)i);
        int64_t v[2] = {(int64_t)(x >> 1), -(int64_t)(x >> 1)}, want[2];
        MPI_Allreduce(v, want, 2, MPI_INT64_T, MPI_MIN, c);
        MPI_Allgather(&len, 1, MPI_LONG, lens, 1, MPI_LONG, c);
        MPI_Allgather(mine, (int)cap, MPI_BYTE, all, (int)cap, MPI_BYTE, c);
        int expect = 1;
        for (int r = 0; r < np; r++)
            expect &= lens[r] >= 0 && lens[r] <= TCOMM_SHM_CARRY_MAX;
        if (x % 13 == 0)
            usleep(30); /* arrive late */
        int carried = tcomm_node_segment_min_carry(
            s, v, 2, len < 0 ? NULL : mine, (size_t)(len < 0 ? 0 : len), blocks,
            got);
        bad += carried != expect || memcmp(v, want, sizeof v) != 0;
        for (int r = 0; r < np && carried; r++)
            bad += got[r] != (size_t)lens[r] ||
                   ((uintptr_t)blocks[r] & 7) != 0 ||
                   memcmp(blocks[r], all + (size_t)r * cap, got[r]) != 0;
    }
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, c);
    ck_assert_int_eq(all_bad, 0);
    tcomm_node_segment_destroy(s);
    MPI_Comm_free(&c);
    free(mine), free(all), free(lens), free(blocks), free(got);
}
END_TEST

/* Rank 0 sends 8 MiB with MPI_Isend and enters a checked barrier before
 * waiting on it; rank 1 receives first. With the copy-in/copy-out
 * protocol (single copy is off in main below) the message moves only
 * while rank 0 makes MPI progress, which it must do while it waits in
 * the agreement. */
START_TEST(test_progress_while_waiting)
{
    size_t n = 8u << 20;
    char *buf = malloc(n);
    tcomm_comm_t *comm;
    MPI_Request req = MPI_REQUEST_NULL;

    ck_assert_ptr_nonnull(buf);
    memset(buf, rank == 0 ? 0x3c : 0, n);
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    if (rank == 0 && np > 1)
        MPI_Isend(buf, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req);
    if (rank == 1)
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    ck_assert_int_eq(tcomm_barrier(comm), TCOMM_SUCCESS);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 1)
        ck_assert(buf[0] == 0x3c && buf[n - 1] == 0x3c);
    tcomm_comm_destroy(comm);
    free(buf);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_shm_agree");
    TCase *tc = tcase_create("shm");
    int any;

    /* Open MPI: large messages by copy-in/copy-out, which needs the
     * sender's progress (other MPIs ignore the variable) */
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
    setenv("TCOMM_CHECK", "1", 1);
    unsetenv("TCOMM_TIMEOUT");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rounds_against_mpi);
    tcase_add_test(tc, test_rounds_carry_bytes);
    tcase_add_test(tc, test_progress_while_waiting);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
