/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of the small calls completed in the agreement's round
 * (src/frontend/eager.c; src/mpi/node/node_segment.c, or, built as
 * test/mpi_eager_net, src/mpi/carry_round.c), 1-4 ranks: every kind
 * it takes (all_to_all_v with its sizes), over every dtype and op,
 * against a reference computed here from every rank's input formula,
 * with the calls' TCOMM_DEBUG=TRACE lines (path=eager, test/trace_count.h)
 * saying that the round completed them;
 * and the calls it must leave to the backend (a rank that offers
 * nothing, 4 KiB and more, uneven gathers, unchecked mode,
 * TCOMM_SINGLE_COPY=0) and those the agreement refuses (no output
 * changed). */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"
#include "mpi_suite.h"
#include "tcomm.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_test_hooks.h"
#include "trace_count.h"

static int rank, np;
static tcomm_comm_t *comm;
static tcomm_graph_t *graph;

#define MAXN 4096 /* elements of a test tensor, at most */

/* Small integers: exact in every dtype, whatever the fold order. */
static double value(int r, size_t i)
{
    return (double)((r + 1) * 3 + (int)(i % 5));
}

static tcomm_tensor_t *input(tcomm_dtype_t dt, int r, int ndim,
                             const size_t *shape)
{
    tcomm_tensor_t *t;
    ck_assert_int_eq(tcomm_tensor_empty(graph, dt, ndim, shape, &t),
                     TCOMM_SUCCESS);
    size_t n = tcomm_tensor_numel(t);
    ck_assert_uint_le(n, MAXN);
    for (size_t i = 0; i < n; i++)
        ref_store(dt, tcomm_tensor_data(t), i, value(r, i));
    return t;
}

static void expect_input_kept(const tcomm_tensor_t *t)
{
    tcomm_dtype_t dt = tcomm_tensor_dtype(t);
    for (size_t i = 0; i < tcomm_tensor_numel(t); i++)
        ck_assert_double_eq(ref_load(dt, tcomm_tensor_data(t), i),
                            value(rank, i));
}

static double fold(tcomm_op_t op, size_t i)
{
    double acc = value(0, i);
    for (int r = 1; r < np; r++) {
        double v = value(r, i);
        acc = op == TCOMM_PROD ? acc * v
              : op == TCOMM_MIN ? (v < acc ? v : acc)
              : op == TCOMM_MAX ? (v > acc ? v : acc)
                                : acc + v;
    }
    return op == TCOMM_AVG ? acc / np : acc;
}

static void setup(void)
{
    setenv("TCOMM_CHECK", "1", 1);
    setenv("TCOMM_DETERMINISTIC", "0", 1);
    trace_start(); /* reads the settings */
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ck_assert_int_eq(tcomm_graph_create(host, &graph), TCOMM_SUCCESS);
}

static void teardown(void)
{
    tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 0);
    ck_assert_int_eq(tcomm_graph_destroy(graph), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_destroy(comm), TCOMM_SUCCESS);
    unsetenv("TCOMM_CHECK");
    unsetenv("TCOMM_DETERMINISTIC");
    trace_stop(); /* reads them again */
}

/* comm made again with setting name = value in force. */
static void remake_comm(const char *name, const char *value)
{
    ck_assert_int_eq(tcomm_comm_destroy(comm), TCOMM_SUCCESS);
    setenv(name, value, 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
}

static void setup_deterministic(void)
{
    setup();
    remake_comm("TCOMM_DETERMINISTIC", "1");
}

/* One more call completed in the round on this rank since the mark
 * (none at one rank: the front end answers alone). */
static void expect_eager(long before, int eager)
{
    ck_assert_uint_eq(trace_count(before, "eager"),
                      (unsigned)(eager && np > 1));
}

static const tcomm_dtype_t dtypes[] = {TCOMM_U8,  TCOMM_I8,   TCOMM_I32,
                                       TCOMM_U32, TCOMM_I64,  TCOMM_F16,
                                       TCOMM_BF16, TCOMM_F32, TCOMM_F64};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

static int op_fits(tcomm_dtype_t dt, tcomm_op_t op)
{
    int fl = dt == TCOMM_F16 || dt == TCOMM_BF16 || dt == TCOMM_F32 ||
             dt == TCOMM_F64;
    if (op == TCOMM_AVG)
        return fl;
    /* 8-bit and half products overflow or round at 4 ranks */
    return op != TCOMM_PROD || dt == TCOMM_I32 || dt == TCOMM_I64 ||
           dt == TCOMM_F32 || dt == TCOMM_F64;
}

static void check_close(tcomm_dtype_t dt, double got, double want)
{
    double tol = dt == TCOMM_BF16 ? 1e-2 : dt == TCOMM_F16 ? 1e-3 : 1e-6;
    ck_assert_msg(got == want || (got - want) * (got - want) <=
                                     tol * tol * want * want,
                  "rank %d %s: got %g, want %g", rank, tcomm_dtype_name(dt),
                  got, want);
}

/* [2][12][6]: 144 elements, dims divisible by 1-4 ranks. */
static const size_t shape3[3] = {2, 12, 6};

START_TEST(test_reductions)
{
    for (size_t d = 0; d < NDTYPES; d++)
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            tcomm_dtype_t dt = dtypes[d];
            if (!op_fits(dt, (tcomm_op_t)op))
                continue;
            tcomm_tensor_t *in = input(dt, rank, 3, shape3), *out;
            long before = trace_mark();
            ck_assert_int_eq(tcomm_all_reduce(comm, in, op, &out),
                             TCOMM_SUCCESS);
            expect_eager(before, 1);
            for (size_t i = 0; i < 144; i++)
                check_close(dt, ref_load(dt, tcomm_tensor_data(out), i),
                            fold(op, i));
            expect_input_kept(in);
            tcomm_tensor_release(out);
            for (int dim = 0; dim < 3; dim++) {
                if (shape3[dim] % (size_t)np)
                    continue;
                before = trace_mark();
                ck_assert_int_eq(
                    tcomm_reduce_scatter(comm, in, op, dim, &out),
                    TCOMM_SUCCESS);
                expect_eager(before, 1);
                size_t len = shape3[dim] / (size_t)np;
                size_t inner = dim == 0 ? 72 : dim == 1 ? 6 : 1;
                size_t outer = 144 / (shape3[dim] * inner);
                for (size_t o = 0; o < outer; o++)
                    for (size_t k = 0; k < len * inner; k++)
                        check_close(
                            dt,
                            ref_load(dt, tcomm_tensor_data(out),
                                o * len * inner + k),
                            fold(op, o * shape3[dim] * inner +
                                         (size_t)rank * len * inner + k));
                tcomm_tensor_release(out);
            }
            tcomm_tensor_release(in);
        }
}
END_TEST

/* reduce_scatter_v along dim 1 with sizes 1, 2, ... (the rest last). */
START_TEST(test_reduce_scatter_v)
{
    size_t sizes[4], off = 0, total = 0;
    for (int r = 0; r < np; r++)
        total += sizes[r] = r + 1 < np ? (size_t)r + 1 : 0;
    sizes[np - 1] = 12 - total;
    for (int r = 0; r < rank; r++)
        off += sizes[r];
    tcomm_tensor_t *in = input(TCOMM_F32, rank, 3, shape3), *out;
    long before = trace_mark();
    ck_assert_int_eq(tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 1, sizes,
                                            &out),
                     TCOMM_SUCCESS);
    expect_eager(before, 1);
    for (size_t o = 0; o < 2; o++)
        for (size_t k = 0; k < sizes[rank] * 6; k++)
            ck_assert_double_eq(
                ref_load(TCOMM_F32, tcomm_tensor_data(out),
                    o * sizes[rank] * 6 + k),
                fold(TCOMM_SUM, o * 72 + off * 6 + k));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}
END_TEST

START_TEST(test_gather_and_broadcast)
{
    for (size_t d = 0; d < NDTYPES; d++) {
        tcomm_dtype_t dt = dtypes[d];
        tcomm_tensor_t *in = input(dt, rank, 3, shape3), *out;
        for (int dim = 0; dim < 3; dim++) {
            long before = trace_mark();
            ck_assert_int_eq(tcomm_all_gather(comm, in, dim, &out),
                             TCOMM_SUCCESS);
            expect_eager(before, 1);
            size_t inner = dim == 0 ? 72 : dim == 1 ? 6 : 1;
            size_t outer = 144 / (shape3[dim] * inner);
            size_t piece = shape3[dim] * inner;
            for (size_t o = 0; o < outer; o++)
                for (int r = 0; r < np; r++)
                    for (size_t k = 0; k < piece; k++)
                        ck_assert_double_eq(
                            ref_load(dt, tcomm_tensor_data(out),
                                (o * (size_t)np + (size_t)r) * piece + k),
                            value(r, o * piece + k));
            tcomm_tensor_release(out);
        }
        for (int root = 0; root < np; root++) {
            long before = trace_mark();
            ck_assert_int_eq(tcomm_broadcast(comm, in, root, &out),
                             TCOMM_SUCCESS);
            expect_eager(before, 1);
            for (size_t i = 0; i < 144; i++)
                ck_assert_double_eq(ref_load(dt, tcomm_tensor_data(out), i),
                                    value(root, i));
            tcomm_tensor_release(out);
        }
        expect_input_kept(in);
        tcomm_tensor_release(in);
    }
}
END_TEST

/* all_to_all of [12][12] over every split and concat dim. */
START_TEST(test_all_to_all)
{
    const size_t shape[2] = {12, 12};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++) {
            tcomm_tensor_t *in = input(TCOMM_F64, rank, 2, shape), *out;
            long before = trace_mark();
            ck_assert_int_eq(tcomm_all_to_all(comm, in, s, c, &out),
                             TCOMM_SUCCESS);
            expect_eager(before, 1);
            size_t chunk = 12 / (size_t)np;
            size_t oshape[2] = {12, 12};
            oshape[s] /= (size_t)np;
            oshape[c] *= (size_t)np;
            for (size_t i = 0; i < oshape[0]; i++)
                for (size_t j = 0; j < oshape[1]; j++) {
                    size_t idx[2] = {i, j}; /* out -> (rank r, its idx) */
                    size_t along = oshape[c] / (size_t)np;
                    int r = (int)(idx[c] / along);
                    idx[c] %= along;
                    idx[s] += (size_t)rank * chunk;
                    ck_assert_double_eq(
                        ref_load(TCOMM_F64, tcomm_tensor_data(out),
                            i * oshape[1] + j),
                        value(r, idx[0] * 12 + idx[1]));
                }
            expect_input_kept(in);
            tcomm_tensor_release(out);
            tcomm_tensor_release(in);
        }
}
END_TEST

/* all_to_all_v: the token exchange along dim 0 with uneven sizes, and
 * the transpose (split along dim 1, concatenated along dim 0). */
START_TEST(test_all_to_all_v)
{
    size_t send[4], len = 0, off = 0;
    for (int j = 0; j < np; j++) /* rank r sends (r + j) % 3 + 1 rows */
        len += send[j] = (size_t)((rank + j) % 3 + 1);
    size_t shape[2] = {len, 3};
    tcomm_tensor_t *in = input(TCOMM_I32, rank, 2, shape), *out;
    long before = trace_mark();
    ck_assert_int_eq(tcomm_all_to_all_v(comm, in, 0, send, 0, &out),
                     TCOMM_SUCCESS);
    expect_eager(before, 1);
    for (int r = 0; r < np; r++) {
        size_t from = 0, rows = (size_t)((r + rank) % 3 + 1);
        for (int j = 0; j < rank; j++)
            from += (size_t)((r + j) % 3 + 1);
        for (size_t i = 0; i < rows * 3; i++)
            ck_assert_double_eq(ref_load(TCOMM_I32, tcomm_tensor_data(out),
                                    off * 3 + i),
                                value(r, from * 3 + i));
        off += rows;
    }
    ck_assert_uint_eq(tcomm_tensor_dim(out, 0), off);
    expect_input_kept(in);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);

    size_t width = 0, col = 0, at = 0;
    for (int j = 0; j < np; j++) /* every rank sends j + 1 columns to j */
        width += send[j] = (size_t)j + 1;
    for (int j = 0; j < rank; j++)
        col += send[j];
    size_t tshape[2] = {(size_t)rank + 1, width};
    in = input(TCOMM_F32, rank, 2, tshape);
    before = trace_mark();
    ck_assert_int_eq(tcomm_all_to_all_v(comm, in, 1, send, 0, &out),
                     TCOMM_SUCCESS);
    expect_eager(before, 1);
    size_t mine = send[rank];
    for (int r = 0; r < np; r++) {
        for (size_t i = 0; i <= (size_t)r; i++)
            for (size_t k = 0; k < mine; k++)
                ck_assert_double_eq(ref_load(TCOMM_F32, tcomm_tensor_data(out),
                                        (at + i) * mine + k),
                                    value(r, i * width + col + k));
        at += (size_t)r + 1;
    }
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}
END_TEST

START_TEST(test_in_place)
{
    tcomm_tensor_t *t = input(TCOMM_F32, rank, 3, shape3);
    long before = trace_mark();
    ck_assert_int_eq(tcomm_all_reduce_into(comm, t, TCOMM_MAX, t),
                     TCOMM_SUCCESS);
    expect_eager(before, 1);
    for (size_t i = 0; i < 144; i++)
        ck_assert_double_eq(ref_load(TCOMM_F32, tcomm_tensor_data(t), i),
                            fold(TCOMM_MAX, i));
    tcomm_tensor_release(t);
    t = input(TCOMM_F32, rank, 3, shape3);
    ck_assert_int_eq(tcomm_broadcast_into(comm, t, np - 1, t),
                     TCOMM_SUCCESS);
    for (size_t i = 0; i < 144; i++)
        ck_assert_double_eq(ref_load(TCOMM_F32, tcomm_tensor_data(t), i),
                            value(np - 1, i));
    tcomm_tensor_release(t);
}
END_TEST

/* Deterministic mode: the fold is rank order, bitwise. */
START_TEST(test_rank_order)
{
    const size_t n = 1000;
    tcomm_tensor_t *in, *out;
    ck_assert_int_eq(tcomm_tensor_empty(graph, TCOMM_F32, 1, &n, &in),
                     TCOMM_SUCCESS);
    float *p = tcomm_tensor_data(in);
    for (size_t i = 0; i < n; i++)
        p[i] = 1.0f / (float)(rank + 1) + 1e-3f * (float)i / 7.0f;
    long before = trace_mark();
    ck_assert_int_eq(tcomm_all_reduce(comm, in, TCOMM_SUM, &out),
                     TCOMM_SUCCESS);
    expect_eager(before, 1);
    const float *q = tcomm_tensor_data(out);
    for (size_t i = 0; i < n; i++) {
        float acc = 1.0f + 1e-3f * (float)i / 7.0f;
        for (int r = 1; r < np; r++)
            acc += 1.0f / (float)(r + 1) + 1e-3f * (float)i / 7.0f;
        ck_assert_msg(q[i] == acc, "rank %d [%zu]: %.9g, want %.9g", rank,
                      i, q[i], acc);
    }
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}
END_TEST

/* Every rank dispatches when one offers nothing, from 4 KiB, for an
 * uneven all_gather, and in unchecked mode; the results stay right. */
START_TEST(test_left_to_the_backend)
{
    for (int c = 0; c < 4; c++) {
        size_t len = c == 1 ? 1024 : c == 2 ? (size_t)rank + 1 : 144;
        if (c == 0)
            tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, rank == np - 1);
        if (c == 3) {
            remake_comm("TCOMM_CHECK", "0");
        }
        tcomm_tensor_t *in = input(TCOMM_F32, rank, 1, &len), *out;
        long before = trace_mark();
        ck_assert_int_eq(tcomm_all_gather(comm, in, 0, &out), TCOMM_SUCCESS);
        expect_eager(before, 0);
        size_t at = 0;
        for (int r = 0; r < np; r++) {
            size_t lr = c == 2 ? (size_t)r + 1 : len;
            for (size_t k = 0; k < lr; k++)
                ck_assert_double_eq(
                    ref_load(TCOMM_F32, tcomm_tensor_data(out), at + k),
                    value(r, k));
            at += lr;
        }
        tcomm_tensor_release(out);
        if (c != 2) {
            before = trace_mark();
            ck_assert_int_eq(tcomm_all_reduce(comm, in, TCOMM_SUM, &out),
                             TCOMM_SUCCESS);
            expect_eager(before, 0);
            const void *o = tcomm_tensor_data(out);
            for (size_t i = 0; i < len; i++)
                ck_assert_double_eq(ref_load(TCOMM_F32, o, i),
                                    fold(TCOMM_SUM, i));
            tcomm_tensor_release(out);
        }
        tcomm_tensor_release(in);
        tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 0);
    }
    /* just below 4 KiB it is eager again (checked mode is back) */
    remake_comm("TCOMM_CHECK", "1");
    size_t len = 1023;
    tcomm_tensor_t *in = input(TCOMM_F32, rank, 1, &len), *out;
    long before = trace_mark();
    ck_assert_int_eq(tcomm_all_reduce(comm, in, TCOMM_SUM, &out),
                     TCOMM_SUCCESS);
    expect_eager(before, 1);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    /* all_to_all and reduce_scatter of 4 KiB are too (3 ranks do not
     * divide it) */
    len = 4096;
    in = input(TCOMM_U8, rank, 1, &len);
    before = trace_mark();
    if (np != 3) {
        ck_assert_int_eq(tcomm_all_to_all(comm, in, 0, 0, &out),
                         TCOMM_SUCCESS);
        expect_eager(before, 1);
        size_t chunk = len / (size_t)np;
        for (size_t i = 0; i < len; i++)
            ck_assert_double_eq(ref_load(TCOMM_U8, tcomm_tensor_data(out), i),
                                value((int)(i / chunk),
                                      (size_t)rank * chunk + i % chunk));
        tcomm_tensor_release(out);
        before = trace_mark();
        ck_assert_int_eq(tcomm_reduce_scatter(comm, in, TCOMM_MAX, 0, &out),
                         TCOMM_SUCCESS);
        expect_eager(before, 1);
        for (size_t i = 0; i < chunk; i++)
            ck_assert_double_eq(ref_load(TCOMM_U8, tcomm_tensor_data(out), i),
                                fold(TCOMM_MAX, (size_t)rank * chunk + i));
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
}
END_TEST

/* TCOMM_SINGLE_COPY=0 (on one rank is enough): MPI messages only. */
START_TEST(test_single_copy_off)
{
    remake_comm("TCOMM_SINGLE_COPY", rank == 0 ? "0" : "1");
    unsetenv("TCOMM_SINGLE_COPY");
    tcomm_config_reload();
    tcomm_tensor_t *in = input(TCOMM_F32, rank, 3, shape3), *out;
    long before = trace_mark();
    ck_assert_int_eq(tcomm_all_reduce(comm, in, TCOMM_SUM, &out),
                     TCOMM_SUCCESS);
    expect_eager(before, 0);
    for (size_t i = 0; i < 144; i++)
        ck_assert_double_eq(ref_load(TCOMM_F32, tcomm_tensor_data(out), i),
                            fold(TCOMM_SUM, i));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}
END_TEST

/* Ranks that disagree, or one that rejects the call: an error on every
 * rank, the output untouched, nothing completed eagerly. */
START_TEST(test_refused)
{
    if (np < 2)
        return;
    size_t len = rank == np - 1 ? 10 : 12;
    tcomm_tensor_t *in = input(TCOMM_F32, rank, 1, &len), *out;
    ck_assert_int_eq(tcomm_tensor_empty(graph, TCOMM_F32, 1, &len, &out),
                     TCOMM_SUCCESS);
    float *o = tcomm_tensor_data(out);
    for (size_t i = 0; i < len; i++)
        o[i] = -7.0f;
    long before = trace_mark();
    tcomm_test_expect(rank, tcomm_all_reduce_into(comm, in, TCOMM_SUM, out),
                      TCOMM_ERR_MISMATCH, "tcomm_all_reduce_into",
                      "disagree on shape", NULL);
    /* rank 0 asks for AVG of integers: its own error, the rest told */
    tcomm_tensor_t *ints = input(TCOMM_I32, rank, 1, &len), *r;
    tcomm_status_t st = tcomm_all_reduce(
        comm, ints, rank == 0 ? TCOMM_AVG : TCOMM_SUM, &r);
    ck_assert_int_ne(st, TCOMM_SUCCESS);
    if (rank != 0)
        tcomm_test_expect(rank, st, TCOMM_ERR_MISMATCH, "rank 0", NULL);
    expect_eager(before, 0);
    for (size_t i = 0; i < len; i++)
        ck_assert_float_eq(o[i], -7.0f);
    expect_input_kept(in);
    tcomm_tensor_release(ints);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}
END_TEST

#ifdef EAGER_OVER_MPI
/* The MPI round's room follows the call before (src/mpi/carry_round.c):
 * the first round has the most; then the class the last call needed;
 * none after a call too large to carry. Every result still right. */
static void reduce_expecting(size_t len, int carried)
{
    tcomm_tensor_t *in = input(TCOMM_F32, rank, 1, &len), *out;
    long before = trace_mark();
    ck_assert_int_eq(tcomm_all_reduce(comm, in, TCOMM_SUM, &out),
                     TCOMM_SUCCESS);
    expect_eager(before, carried);
    for (size_t i = 0; i < len; i++)
        ck_assert_double_eq(ref_load(TCOMM_F32, tcomm_tensor_data(out), i),
                            fold(TCOMM_SUM, i));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

START_TEST(test_carry_room)
{
    tcomm_test_set_hook(TCOMM_HOOK_CARRY_MOST, 0);
    remake_comm("TCOMM_CHECK", "1");
    reduce_expecting(512, 1);  /* 2 KiB: the first round has the most */
    reduce_expecting(2, 1);    /* 8 bytes fit the 4 KiB class */
    reduce_expecting(2, 1);    /* and the 64-byte class they left */
    reduce_expecting(512, 0);  /* 2 KiB do not */
    reduce_expecting(512, 1);  /* until the round before needed as much */
    reduce_expecting(2048, 0); /* 8 KiB: too large to carry */
    reduce_expecting(2, 0);    /* so the next round has no room */
    reduce_expecting(2, 1);
    tcomm_test_set_hook(TCOMM_HOOK_CARRY_MOST, 1);
}
END_TEST
#endif

int main(int argc, char **argv)
{
#ifdef EAGER_OVER_MPI /* test/mpi_eager_net: the round ranks on
                         several nodes take */
    tcomm_test_set_hook(TCOMM_HOOK_NO_NODE_ROUND, 1);
    tcomm_test_set_hook(TCOMM_HOOK_CARRY_MOST, 1); /* sizes change */
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    Suite *s = suite_create("mpi_eager");
    TCase *tc = tcase_create("eager");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_reductions);
    tcase_add_test(tc, test_reduce_scatter_v);
    tcase_add_test(tc, test_gather_and_broadcast);
    tcase_add_test(tc, test_all_to_all);
    tcase_add_test(tc, test_all_to_all_v);
    tcase_add_test(tc, test_in_place);
    tcase_add_test(tc, test_left_to_the_backend);
    tcase_add_test(tc, test_single_copy_off);
    tcase_add_test(tc, test_refused);
#ifdef EAGER_OVER_MPI
    tcase_add_test(tc, test_carry_room);
#endif
    suite_add_tcase(s, tc);
    TCase *det = tcase_create("deterministic");
    tcase_add_checked_fixture(det, setup_deterministic, teardown);
    tcase_add_test(det, test_rank_order);
    suite_add_tcase(s, det);
    int failed = tcomm_test_run_suite(s, 0);
    MPI_Finalize();
    return failed ? 1 : 0;
}
