/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of the single-copy all_gather on one node
 * (src/mpi/node/node_gather.c), on 1-4 ranks: the protocol itself, called
 * directly, along dims 0, 1 and 2 of a 3-d
 * tensor, with sizes that differ by rank, zero on some, rows short
 * enough to go through the temporary and long enough to go straight
 * into place, 1- to 8-byte elements; a rank whose copies fail or that
 * lives in another PID namespace sending every rank back to MPI; calls
 * that differ (possible unchecked) copying nothing; and the public
 * tcomm_all_gather_into, checked and not, around the gate, its output's
 * bytes outside the result and its input unchanged. Every result is
 * compared with the bytes every rank computes itself. Checks are agreed
 * across ranks before ck_assert, so that no rank is left waiting. */
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
#include "tcomm_mpi.h"
#include "tcomm_node_gather.h"
#include "tcomm_node_segment.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"

#define GUARD 64 /* bytes past the output that must not change */
#define FILL 0xa5

static int rank, np;

/* Byte b of rank r's input (flat byte offset), call salt. */
static unsigned char in_byte(int r, size_t b, unsigned salt)
{
    return (unsigned char)(b * 131 + (size_t)r * 71 + salt * 29 + 1);
}

/* A gather's layout: outer rows, rank r's rows of rb[r] bytes. */
typedef struct {
    size_t outer, rb[4], stride;
} layout_t;

/* shape [a, b, c] of es-byte elements, gathered along dim; rank r has
 * size sz[r] along dim. */
static layout_t layout(const size_t *shape, int dim, const size_t *sz,
                       size_t es)
{
    layout_t l = {1, {0}, 0};
    size_t inner = es;
    for (int d = 0; d < 3; d++)
        if (d < dim)
            l.outer *= shape[d];
        else if (d > dim)
            inner *= shape[d];
    for (int r = 0; r < np; r++) {
        l.rb[r] = sz[r] * inner;
        l.stride += l.rb[r];
    }
    return l;
}

/* Wrong bytes of out (outer * stride, GUARD more after) against the
 * reference every rank computes: rank r's row o at its column. */
static int check_out(const layout_t *l, const unsigned char *out,
                     unsigned salt)
{
    int bad = 0;
    for (size_t o = 0; o < l->outer; o++) {
        size_t col = 0;
        for (int r = 0; r < np; r++) {
            for (size_t j = 0; j < l->rb[r]; j++)
                bad += out[o * l->stride + col + j] !=
                       in_byte(r, o * l->rb[r] + j, salt);
            col += l->rb[r];
        }
    }
    for (size_t i = 0; i < GUARD; i++)
        bad += out[l->outer * l->stride + i] != FILL;
    return bad;
}

static unsigned char *make_in(const layout_t *l, unsigned salt)
{
    size_t n = l->outer * l->rb[rank];
    unsigned char *in = malloc(n + 1);
    for (size_t b = 0; b < n; b++)
        in[b] = in_byte(rank, b, salt);
    return in;
}

static int in_changed(const layout_t *l, const unsigned char *in,
                      unsigned salt)
{
    int bad = 0;
    for (size_t b = 0; b < l->outer * l->rb[rank]; b++)
        bad += in[b] != in_byte(rank, b, salt);
    return bad;
}

/* One direct call; returns this rank's wrong bytes (output, guard,
 * input), *done as it said. */
static int gather_direct(tcomm_mpi_state_t *st, const layout_t *l,
                         unsigned salt, int *done)
{
    unsigned char *in = make_in(l, salt);
    unsigned char *out = malloc(l->outer * l->stride + GUARD);
    int bad;
    memset(out, FILL, l->outer * l->stride + GUARD);
    ck_assert_int_eq(tcomm_node_all_gather(st, in, out, l->outer, l->rb, 7,
                                           done),
                     MPI_SUCCESS);
    bad = (*done ? check_out(l, out, salt) : 0) + in_changed(l, in, salt);
    free(in);
    free(out);
    return bad;
}

/* Sizes along dim by rank: uneven, some zero. */
static const size_t SIZES[][4] = {{3, 3, 3, 3}, {2, 0, 5, 1}, {0, 4, 0, 2},
                                  {1, 2, 3, 4}};
/* shapes: rows of a few bytes (through the temporary), of KiBs (straight
 * into place), one big one (the temporary on the heap) */
static const size_t SHAPES[][3] = {{5, 3, 7}, {9, 2, 300}, {4, 70, 65}};

START_TEST(test_protocol)
{
    static const size_t es[] = {1, 2, 4, 8};
    if (np == 1)
        return; /* no segment: nothing to copy with */
    tcomm_mpi_state_t st = make_state();
    int cma = probe_cma(), bad = 0, wrong_done = 0;
    unsigned salt = 0;
    for (size_t s = 0; s < 3; s++)
        for (int dim = 0; dim < 3; dim++)
            for (size_t k = 0; k < 4; k++)
                for (size_t e = 0; e < 4; e++) {
                    size_t shape[3] = {SHAPES[s][0], SHAPES[s][1],
                                       SHAPES[s][2]};
                    layout_t l = layout(shape, dim, SIZES[k], es[e]);
                    int done = -1;
                    bad += gather_direct(&st, &l, salt++, &done);
                    wrong_done += done != cma;
                }
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(wrong_done), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), cma ? PULL_ON : PULL_OFF);
    free_state(&st);
}
END_TEST

/* dim 0 in place: each rank's input is its own block of out. */
START_TEST(test_in_place)
{
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    size_t shape[3] = {1, 1, 1000};
    layout_t l = layout(shape, 2, SIZES[1], 4);
    unsigned char *out = malloc(l.stride + GUARD);
    size_t col = 0;
    int done = -1;
    for (int r = 0; r < rank; r++)
        col += l.rb[r];
    memset(out, FILL, l.stride + GUARD);
    for (size_t b = 0; b < l.rb[rank]; b++)
        out[col + b] = in_byte(rank, b, 3);
    ck_assert_int_eq(tcomm_node_all_gather(&st, out + col, out, 1, l.rb, 7,
                                           &done),
                     MPI_SUCCESS);
    ck_assert_int_eq(agree_sum(check_out(&l, out, 3)), 0);
    free(out);
    free_state(&st);
}
END_TEST

/* The last rank cannot copy (set by spoil): every rank hears it, and the
 * communicator stays off the single copies; the public call then
 * gathers by MPI, right. */
static void expect_fallback(void (*spoil)(int on))
{
    size_t shape[3] = {4, 6, 300};
    layout_t l = layout(shape, 1, SIZES[3], 4);
    int done = -1, bad;
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    spoil(rank == np - 1);
    bad = gather_direct(&st, &l, 5, &done);
    spoil(0);
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(done), 0);
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), PULL_OFF);
    ck_assert(!tcomm_node_gather_applies(&st, 1u << 20));
    free_state(&st);
}

START_TEST(test_fallback)
{
    expect_fallback(refuse_copies);
}
END_TEST

START_TEST(test_other_pid_namespace)
{
    expect_fallback(own_pid_namespace);
}
END_TEST

/* Calls that differ (TCOMM_CHECK=0 lets them through): rank 0 thinks
 * its block is longer, or the rows are split otherwise. Nothing moves
 * between ranks whose calls differ, every rank is told, and the
 * communicator keeps the single copies. */
START_TEST(test_calls_differ)
{
    static const size_t mine0[4] = {6, 1, 1, 1}, other[4] = {1, 1, 1, 6},
                        same[4] = {2, 2, 2, 2};
    if (np == 1)
        return;
    tcomm_mpi_state_t st = make_state();
    for (int c = 0; c < 2; c++) {
        size_t shape[3] = {3, 2, 500};
        const size_t *sz = c == 0 ? (rank == 0 ? mine0 : same)
                                  : (rank == 0 ? mine0 : other);
        layout_t l = layout(shape, 1, sz, 4);
        unsigned char *in = make_in(&l, 9);
        unsigned char *out = malloc(l.outer * l.stride + GUARD);
        int done = -1, bad = 0;
        size_t col = 0;
        memset(out, FILL, l.outer * l.stride + GUARD);
        ck_assert_int_eq(tcomm_node_all_gather(&st, in, out, l.outer, l.rb,
                                               7, &done),
                         MPI_SUCCESS);
        for (int r = 0; r < rank; r++)
            col += l.rb[r];
        /* our own rows placed; nothing from a rank whose call differs
         * (rank 0's for the others, every peer's for rank 0); ranks
         * whose calls match may have copied between them */
        for (size_t o = 0; o < l.outer; o++)
            for (size_t j = 0; j < l.stride; j++)
                if (j >= col && j < col + l.rb[rank])
                    bad += out[o * l.stride + j] !=
                           in_byte(rank, o * l.rb[rank] + j - col, 9);
                else if (rank == 0 || j < l.rb[0])
                    bad += out[o * l.stride + j] != FILL;
        bad += in_changed(&l, in, 9);
        ck_assert_int_eq(agree_sum(bad), 0);
        ck_assert_int_eq(agree_sum(done), 0);
        free(in);
        free(out);
    }
    ck_assert_int_eq(tcomm_mpi_pull_state(st.comm), PULL_UNKNOWN);
    size_t shape[3] = {3, 2, 500};
    layout_t l = layout(shape, 1, same, 4);
    int done = -1;
    int cma = probe_cma();
    ck_assert_int_eq(agree_sum(gather_direct(&st, &l, 4, &done)), 0);
    ck_assert_int_eq(agree_sum(done != cma), 0);
    free_state(&st);
}
END_TEST

/* One public tcomm_all_gather_into of shape (rank's size sz[rank] along
 * dim) into an output wrapped over a buffer with a guard: this rank's
 * wrong bytes (a failed call counts as one). */
static int public_gather(tcomm_comm_t *comm, tcomm_graph_t *g,
                         const size_t *shape, int dim, const size_t *sz,
                         tcomm_dtype_t dtype, unsigned salt)
{
    size_t ish[3] = {shape[0], shape[1], shape[2]};
    size_t osh[3] = {shape[0], shape[1], 0};
    layout_t l = layout(ish, dim, sz, tcomm_dtype_size(dtype));
    osh[2] = shape[2];
    ish[dim] = sz[rank];
    osh[dim] = 0;
    for (int r = 0; r < np; r++)
        osh[dim] += sz[r];
    unsigned char *ib = make_in(&l, salt);
    unsigned char *ob = malloc(l.outer * l.stride + GUARD);
    tcomm_tensor_t *in, *out;
    int bad;
    memset(ob, FILL, l.outer * l.stride + GUARD);
    ck_assert_int_eq(tcomm_tensor_wrap(g, dtype, ib, 3, ish, &in),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_wrap(g, dtype, ob, 3, osh, &out),
                     TCOMM_SUCCESS);
    bad = tcomm_all_gather_into(comm, in, dim, out) != TCOMM_SUCCESS;
    bad += check_out(&l, ob, salt) + in_changed(&l, ib, salt);
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
    free(ib);
    free(ob);
    return bad;
}

/* The public call along dims 0-2, uneven and zero sizes, around the gate
 * (4 KiB a rank) and past it, checked and not. */
START_TEST(test_public_all_gather)
{
    static const tcomm_dtype_t types[] = {TCOMM_U8, TCOMM_F16, TCOMM_I32,
                                          TCOMM_F64};
    static const size_t shapes[][3] = {{2, 3, 5}, {4, 8, 130}, {8, 16, 130}};
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    tcomm_comm_t *comm;
    int bad = 0;
    unsigned salt = 100;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    for (int check = 0; check < 2; check++) {
        tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, check);
        for (size_t s = 0; s < 3; s++)
            for (int dim = 0; dim < 3; dim++)
                for (size_t t = 0; t < 4; t++)
                    bad += public_gather(comm, g, shapes[s], dim,
                                         SIZES[(s + t + (size_t)dim) % 4],
                                         types[t], salt++);
    }
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(g);
}
END_TEST

/* The public call when the last rank cannot copy: MPI answers, right,
 * and the communicator is off the single copies after. */
START_TEST(test_public_fallback)
{
    static const size_t shape[3] = {4, 64, 130};
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    tcomm_comm_t *comm;
    int bad = 0;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    for (int dim = 0; dim < 2; dim++) {
        refuse_copies(rank == np - 1);
        bad += public_gather(comm, g, shape, dim, SIZES[3], TCOMM_F32,
                             40 + (unsigned)dim);
        refuse_copies(0);
        bad += public_gather(comm, g, shape, dim, SIZES[0], TCOMM_F32,
                             50 + (unsigned)dim);
    }
    /* the gate is open on one node with more than one rank */
    tcomm_mpi_state_t *st = comm->state;
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(np > 1 && tcomm_mpi_pull_state(st->comm) !=
                                             PULL_OFF),
                     0);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(g);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_node_gather");
    TCase *tc = tcase_create("node_gather");
    int any;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_protocol);
    tcase_add_test(tc, test_in_place);
    tcase_add_test(tc, test_fallback);
    tcase_add_test(tc, test_other_pid_namespace);
    tcase_add_test(tc, test_calls_differ);
    tcase_add_test(tc, test_public_all_gather);
    tcase_add_test(tc, test_public_fallback);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
