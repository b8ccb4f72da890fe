/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of the shared-copy broadcast on one node
 * (src/mpi/node/node_broadcast.c), on 1-4 ranks: the protocol itself at every
 * root and at sizes that do not divide evenly (a receiver's bytes past the
 * message untouched, the root's unchanged), a rank whose copies fail sending
 * every rank back to MPI_Bcast, a rank in another PID namespace doing the same,
 * calls that differ across ranks (possible unchecked) moving nothing, the
 * TCOMM_SINGLE_COPY switch agreed across ranks, and tcomm_broadcast_into,
 * checked and unchecked, in place or not, against the values every rank
 * computes itself. Checks are agreed across ranks before ck_assert, so that no
 * rank is left waiting. */
#define _GNU_SOURCE
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mpi_suite.h"
#include "node_suite.h"
#include "tcomm_backend_mpi.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_mpi_reshape.h"
#include "tcomm_node_broadcast.h"
#include "tcomm_node_call.h"
#include "tcomm_node_segment.h"
#include "tcomm_test_hooks.h"

#define GUARD 64 /* bytes past a receiver's message that must not change */

static int rank, np;

static unsigned char pattern(int root, size_t i, unsigned call)
{
    return (unsigned char)(i * 131 + (size_t)root * 7 + call * 29 + 1);
}

/* One tcomm_node_broadcast of bytes from root (MPI_Bcast when it says it did
 * not apply, as the backend does); returns this rank's wrong bytes, and
 * *done as the call said. */
static int bcast_and_check(tcomm_mpi_state_t *st, size_t bytes, int root,
                           unsigned call, int *done)
{
    unsigned char *buf = malloc(bytes + GUARD);
    int bad = 0;
    for (size_t i = 0; i < bytes + GUARD; i++)
        buf[i] = rank == root && i < bytes ? pattern(root, i, call) : 0xa5;
    ck_assert_int_eq(
        tcomm_node_broadcast(st, buf, bytes, root, TCOMM_NODE_ATTACH, done),
        MPI_SUCCESS);
    if (!*done)
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, st->comm);
    for (size_t i = 0; i < bytes; i++)
        bad += buf[i] != pattern(root, i, call);
    for (size_t i = bytes; i < bytes + GUARD; i++)
        bad += buf[i] != 0xa5;
    free(buf);
    return bad;
}

/* Every root; sizes below, at and past a cache line, odd ones, big. */
START_TEST(test_protocol)
{
    static const size_t sizes[] = {
        1, 63, 64, 65, 4099, 65536 + 5, (1u << 20) + 13};
    if (np == 1)
        return; /* no segment: nothing to share a copy with */
    tcomm_mpi_state_t st = make_state();
    int cma = probe_cma(), bad = 0, wrong_done = 0;
    unsigned call = 0;
    for (int root = 0; root < np; root++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int done = -1;
            bad += bcast_and_check(&st, sizes[k], root, call++, &done);
            wrong_done += done != cma;
        }
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(wrong_done), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), cma ? PULL_ON : PULL_OFF);
    free_state(&st);
}
END_TEST

/* The last rank cannot copy (set by spoil); a broadcast from root: every
 * rank hears it, the data still arrives (by MPI_Bcast), and the
 * communicator stays off the single copy. */
static void expect_fallback(void (*spoil)(int on), int root)
{
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    int done = -1, bad;
    spoil(rank == np - 1);
    bad = bcast_and_check(&st, 1u << 17, root, 7, &done);
    spoil(0);
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(done), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), PULL_OFF);
    ck_assert(!tcomm_node_broadcast_applies(&st, 1u << 20));
    free_state(&st);
}

START_TEST(test_fallback)
{
    expect_fallback(refuse_copies, 0);
}
END_TEST

START_TEST(test_other_pid_namespace)
{
    expect_fallback(own_pid_namespace, np - 1);
}
END_TEST

/* Calls that differ (TCOMM_CHECK=0 lets them through): a receiver's
 * buffer shorter than the root's, or two ranks each the root. Nothing
 * moves between them, every rank is told, and the communicator keeps the
 * single copy (a wrong call is not a kernel that refuses). */
START_TEST(test_calls_differ)
{
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    int cma = probe_cma(), bad = 0, done = -1;
    /* rank 0 sends 1 MiB, the others expect 64 KiB */
    size_t mine = rank == 0 ? 1u << 20 : 1u << 16;
    unsigned char *buf = malloc(mine + GUARD);
    memset(buf, rank == 0 ? 0x11 : 0xa5, mine + GUARD);
    ck_assert_int_eq(
        tcomm_node_broadcast(&st, buf, mine, 0, TCOMM_NODE_ATTACH, &done),
        MPI_SUCCESS);
    for (size_t i = 0; i < mine + GUARD; i++)
        bad += buf[i] != (rank == 0 ? 0x11 : 0xa5);
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(done), 0);
    /* ranks 0 and 1 each the root of its own broadcast */
    memset(buf, 0x20 + rank, mine);
    done = -1;
    ck_assert_int_eq(tcomm_node_broadcast(&st, buf, 1u << 16, rank == 1,
                                          TCOMM_NODE_ATTACH, &done),
                     MPI_SUCCESS);
    for (size_t i = 0; i < 1u << 16; i++) /* no input overwritten */
        bad += rank <= 1 && buf[i] != 0x20 + rank;
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(done), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), PULL_UNKNOWN);
    /* and a right call still takes it */
    ck_assert_int_eq(agree_sum(bcast_and_check(&st, 1u << 16, 0, 3, &done)), 0);
    ck_assert_int_eq(agree_sum(done != cma), 0);
    free(buf);
    free_state(&st);
}
END_TEST

/* TCOMM_SINGLE_COPY=0 on one rank turns it off on all of them. */
START_TEST(test_switch_agreed)
{
    tcomm_comm_t *comm;
    if (rank == 0)
        setenv("TCOMM_SINGLE_COPY", "0", 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    tcomm_mpi_state_t *st = comm->state;
    ck_assert_int_eq(agree_sum(tcomm_mpi_pull_state(st->comm) != PULL_OFF), 0);
    ck_assert_int_eq(agree_sum(tcomm_node_broadcast_applies(st, 1u << 20)), 0);
    tcomm_comm_destroy(comm);
    unsetenv("TCOMM_SINGLE_COPY");
    tcomm_config_reload();
}
END_TEST

/* The public call over the sizes around the switch to the shared copy,
 * checked and not, in place and into another tensor. */
START_TEST(test_public_broadcast)
{
    static const size_t bytes[] = {4, 16384 - 4, 16384, 49152 + 12,
                                   (1u << 20) + 4};
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    tcomm_comm_t *comm;
    int bad = 0;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    for (int check = 0; check < 2; check++) {
        tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, check);
        for (size_t k = 0; k < sizeof bytes / sizeof bytes[0]; k++) {
            size_t n = bytes[k] / 4, shape[1] = {n};
            for (int root = 0; root < np; root++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    tcomm_tensor_t *in, *out;
                    tcomm_tensor_empty(g, TCOMM_U32, 1, shape, &in);
                    tcomm_tensor_empty(g, TCOMM_U32, 1, shape, &out);
                    uint32_t *a = tcomm_tensor_data(in);
                    uint32_t *b = tcomm_tensor_data(out);
                    for (size_t i = 0; i < n; i++) {
                        a[i] = rank == root
                                   ? (uint32_t)(i * 2654435761u + (size_t)root)
                                   : 0xdeadbeefu;
                        b[i] = 0x5a5a5a5au;
                    }
                    tcomm_tensor_t *dst = inplace ? in : out;
                    bad += tcomm_broadcast_into(comm, in, root, dst) !=
                           TCOMM_SUCCESS;
                    uint32_t *d = tcomm_tensor_data(dst);
                    for (size_t i = 0; i < n; i++)
                        bad +=
                            d[i] != (uint32_t)(i * 2654435761u + (size_t)root);
                    tcomm_tensor_release(in);
                    tcomm_tensor_release(out);
                }
        }
    }
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(g);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_node_broadcast");
    TCase *tc = tcase_create("node_broadcast");
    int any;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_protocol);
    tcase_add_test(tc, test_fallback);
    tcase_add_test(tc, test_other_pid_namespace);
    tcase_add_test(tc, test_calls_differ);
    tcase_add_test(tc, test_switch_agreed);
    tcase_add_test(tc, test_public_broadcast);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
