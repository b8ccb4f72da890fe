/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of all_to_all_v's single copies on one node
 * (src/mpi/node/all_to_all_v_copies.c), 1-4 ranks: both modes and every
 * (split, concat) pair of 2-3-d shapes with zero-size pieces, on tcomm's
 * tensors (memcpy through the peers' mapped arenas), on wrapped private
 * inputs (cross-memory attach where the pieces are large and strided,
 * else MPI), unchecked, with a rank whose copies fail. Each result
 * against test/mpi_a2a_ref.c, each input unchanged; the counts of mapped
 * copies and of the tables exchanged on their own say which way the
 * calls went. */
#include <check.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_a2a_ref.h"
#include "mpi_reference.h"
#include "mpi_suite.h"
#include "node_map_count.h"
#include "node_suite.h"
#include "tcomm_mpi.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"
#include "trace_count.h"

static int rank, np;
static tcomm_graph_t *graph;

static size_t numel(int nd, const size_t *s)
{
    size_t p = 1;
    for (int k = 0; k < nd; k++)
        p *= s[k];
    return p;
}

/* One all_to_all_v of rk on comm, this rank's input in tcomm's memory or
 * (private_in) a wrapped buffer of its own. The wrong elements. */
static int v_call(tcomm_comm_t *comm, tcomm_dtype_t d, int nd, int s, int c,
                  const a2a_rank_t *rk, int private_in)
{
    size_t oshape[A2A_MAX_DIMS], es = tcomm_dtype_size(d);
    size_t n = numel(nd, rk[rank].shape);
    double *want;
    size_t on = a2a_expect(d, nd, s, c, np, rk, rank, oshape, &want);
    void *host = malloc(n * es + 1), *buf = NULL;
    tcomm_tensor_t *in = NULL, *out = NULL;
    int errors = 0;

    ck_assert_msg(on != (size_t)-1, "broken test layout");
    ref_fill(d, -1, rank, host, n);
    if (private_in) {
        ck_assert_int_eq(posix_memalign(&buf, 4096, n * es + 1), 0);
        memcpy(buf, host, n * es);
        ck_assert_int_eq(tcomm_tensor_wrap(graph, d, buf, nd, rk[rank].shape,
                                           &in),
                         TCOMM_SUCCESS);
    } else {
        ck_assert_int_eq(tcomm_tensor_from_host(graph, d, host, nd,
                                                rk[rank].shape, &in),
                         TCOMM_SUCCESS);
    }
    tcomm_status_t st = tcomm_all_to_all_v(comm, in, s, rk[rank].send, c,
                                           &out);
    ck_assert_msg(st == TCOMM_SUCCESS, "rank %d: dtype %d nd %d %d/%d: %s",
                  rank, d, nd, s, c, tcomm_last_error());
    for (int k = 0; k < nd; k++)
        ck_assert_uint_eq(tcomm_tensor_dim(out, k), oshape[k]);
    const void *got = tcomm_tensor_data(out);
    for (size_t i = 0; i < on; i++)
        if (ref_load(d, got, i) != want[i] && errors++ < 3)
            fprintf(stderr, "rank %d: dtype %d nd %d %d/%d: [%zu] = %g, "
                    "want %g\n", rank, d, nd, s, c, i, ref_load(d, got, i),
                    want[i]);
    errors += n && memcmp(tcomm_tensor_data(in), host, n * es) != 0;
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    free(buf);
    free(host);
    free(want);
    return errors;
}

/* The layout of mode (token where s == c) with pieces of unit rows. */
static void layout(a2a_rank_t *rk, int nd, const size_t *base, int s, int c,
                   int seed, size_t unit)
{
    if (s == c)
        a2a_token_ranks(rk, np, nd, base, s, seed, unit);
    else
        a2a_transpose_ranks(rk, np, nd, base, s, c, seed, unit);
}

/* Every (split, concat) pair of [8][unit-sized][64] and of [96][64]:
 * inputs of 4-100 KiB, the flat pieces and the strided ones, with ranks
 * and pieces of size 0. The wrong elements. */
static int every_pair(tcomm_comm_t *comm, tcomm_dtype_t d, int private_in)
{
    static const size_t b3[3] = {8, 16, 64}, b2[2] = {96, 64};
    a2a_rank_t rk[A2A_MAX_RANKS];
    int bad = 0;
    for (int s = 0; s < 3; s++)
        for (int c = 0; c < 3; c++) {
            layout(rk, 3, b3, s, c, s + c, 8);
            bad += v_call(comm, d, 3, s, c, rk, private_in);
        }
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++) {
            layout(rk, 2, b2, s, c, s + 2 * c, 32);
            bad += v_call(comm, d, 2, s, c, rk, private_in);
        }
    return bad;
}

static tcomm_comm_t *make_comm(int check)
{
    tcomm_comm_t *comm;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, check),
                     TCOMM_SUCCESS);
    return comm;
}

/* tcomm's tensors: the pieces move through the mapped arenas, and the
 * checked calls' tables come with the agreement's round: no INFO line
 * says that one went by a round of its own (path v_table_round). */
static void mapped_calls(int check)
{
    static const tcomm_dtype_t d[] = {TCOMM_F32, TCOMM_BF16, TCOMM_U8,
                                      TCOMM_F64};
    trace_start(); /* before the communicator: it reads the settings */
    tcomm_comm_t *comm = make_comm(check);
    int cma = np > 1 && probe_cma(), bad = 0;
    uint64_t copies = tcomm_node_mapped_copies();
    long mark = trace_mark();
    for (int t = 0; t < 4; t++)
        bad += every_pair(comm, d[t], 0);
    copies = tcomm_node_mapped_copies() - copies;
    unsigned tables = info_count(mark, "v_table_round");
    tcomm_comm_destroy(comm);
    trace_stop();
    int copied = agree_sum(copies > 0); /* on some rank at least */
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(cma && copied == 0, 0);
    /* one node, checked: no table goes by a round of its own */
    ck_assert_int_eq(agree_sum(np > 1 && check && tables != 0), 0);
    ck_assert_int_eq(agree_sum(np > 1 && !check && tables == 0), 0);
}

START_TEST(mapped_checked)
{
    mapped_calls(1);
}
END_TEST

START_TEST(mapped_unchecked)
{
    mapped_calls(0);
}
END_TEST

/* Wrapped private inputs: the same results; where a rank reads its
 * peers' inputs (split <= concat) none is mapped, so the flat pieces go
 * to MPI and the strided ones from 64 KiB by cross-memory attach. */
START_TEST(private_inputs)
{
    tcomm_comm_t *comm = make_comm(1);
    int bad = every_pair(comm, TCOMM_F32, 1);
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_comm_destroy(comm);
}
END_TEST

/* A transpose of 100-400 KiB a rank, strided on the output side, by
 * cross-memory attach, the last rank's copies failing: every rank falls
 * back to MPI in the same call, and the communicator keeps to MPI. */
START_TEST(copies_fail)
{
    static const size_t base[2] = {64, 64};
    a2a_rank_t rk[A2A_MAX_RANKS];
    tcomm_comm_t *comm = make_comm(1);
    int bad = 0;
    layout(rk, 2, base, 0, 1, 1, 128);
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, rank == np - 1);
    bad += v_call(comm, TCOMM_F32, 2, 0, 1, rk, 1);
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, 0);
    bad += v_call(comm, TCOMM_F32, 2, 0, 1, rk, 1);
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_mpi_state_t *st = comm->state;
    if (np > 1 && probe_cma())
        ck_assert_int_eq(tcomm_mpi_pull_state(st->comm), PULL_OFF);
    tcomm_comm_destroy(comm);
}
END_TEST

/* The last rank in a PID namespace of its own: nobody copies by its pid;
 * the same results through MPI. */
START_TEST(other_pid_namespace)
{
    tcomm_comm_t *comm = make_comm(1);
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE, rank == np - 1 ? 4242 : 0);
    int bad = every_pair(comm, TCOMM_I32, 0);
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE, 0);
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_comm_destroy(comm);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_node_a2a_v");
    TCase *tc = tcase_create("node_a2a_v");
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    int any;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (tcomm_graph_create(host, &graph) != TCOMM_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mapped_checked);
    tcase_add_test(tc, mapped_unchecked);
    tcase_add_test(tc, private_inputs);
    tcase_add_test(tc, copies_fail);
    tcase_add_test(tc, other_pid_namespace);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    tcomm_graph_destroy(graph);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
