/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of mpi_kernels/: the large-count wrappers, the MPI ops of
 * every dtype, and the reshaping collectives with all their candidates.
 * Run under mpirun on 1-4 ranks. Every rank regenerates every rank's
 * input and computes the expected result itself. Each test runs twice:
 * with the default count limit and with the count limit hook at 7, so
 * that the splitting paths run. Checks are gathered per test and agreed
 * across ranks (one MPI_Allreduce) before ck_assert, so that a failure
 * on one rank cannot leave the others waiting in a collective. */
#include <check.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_half.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"
#include "allgather_candidates.h"
#include "mpi_suite.h"
#include "tcomm_test_hooks.h"
#include "tcomm_user_ops.h"

static int rank, np;
static MPI_Comm comm;

/* One element of rank r's input at index i, exact under any order of
 * the reduction: small integers for SUM, +-1/2/0.5 for PROD, anything
 * (and some NaN) for MIN/MAX. */
static void gen(tcomm_dtype_t t, tcomm_op_t op, int r, size_t i, void *dst)
{
    double v;
    int64_t k = (int64_t)((i * 7 + (size_t)r * 13) % 17) - 8;

    if (op == TCOMM_PROD) {
        static const double pv[] = {1, 2, -1, 0.5, 1, -2};
        v = pv[(i + (size_t)r) % 6];
        if (t != TCOMM_F16 && t != TCOMM_BF16 && t != TCOMM_F32 &&
            t != TCOMM_F64 && v == 0.5)
            v = 3;
    } else if (op == TCOMM_MIN || op == TCOMM_MAX) {
        v = (double)((i * 31 + (size_t)r * 101) % 97) - 40;
        if ((t >= TCOMM_F16) && i % 23 == (size_t)r)
            v = NAN;
    } else {
        v = (double)k;
    }
    if (t == TCOMM_U8 || t == TCOMM_U32)
        v = fabs(v) < 1 ? 1 : fabs(v); /* no NaN here */
    switch (t) {
    case TCOMM_U8: *(uint8_t *)dst = (uint8_t)v; break;
    case TCOMM_I8: *(int8_t *)dst = (int8_t)v; break;
    case TCOMM_I32: *(int32_t *)dst = (int32_t)v; break;
    case TCOMM_U32: *(uint32_t *)dst = (uint32_t)v; break;
    case TCOMM_I64: *(int64_t *)dst = (int64_t)v; break;
    case TCOMM_F16: *(uint16_t *)dst = tcomm_f32_to_f16((float)v); break;
    case TCOMM_BF16: *(uint16_t *)dst = tcomm_f32_to_bf16((float)v); break;
    case TCOMM_F32: *(float *)dst = (float)v; break;
    case TCOMM_F64: *(double *)dst = v; break;
    }
}

static void gen_all(tcomm_dtype_t t, tcomm_op_t op, int r, size_t off,
                    size_t n, void *dst)
{
    size_t es = tcomm_dtype_size(t);
    for (size_t i = 0; i < n; i++)
        gen(t, op, r, off + i, (char *)dst + i * es);
}

/* Equal, or both NaN (floats). */
static int same(tcomm_dtype_t t, const void *a, const void *b)
{
    switch (t) {
    case TCOMM_F16:
        if (tcomm_f16_is_nan(*(const uint16_t *)a))
            return tcomm_f16_is_nan(*(const uint16_t *)b);
        break;
    case TCOMM_BF16:
        if (tcomm_bf16_is_nan(*(const uint16_t *)a))
            return tcomm_bf16_is_nan(*(const uint16_t *)b);
        break;
    case TCOMM_F32:
        if (isnan(*(const float *)a))
            return isnan(*(const float *)b);
        break;
    case TCOMM_F64:
        if (isnan(*(const double *)a))
            return isnan(*(const double *)b);
        break;
    default:
        break;
    }
    return memcmp(a, b, tcomm_dtype_size(t)) == 0;
}

static int count_bad(tcomm_dtype_t t, const void *want, const void *got,
                     size_t n)
{
    size_t es = tcomm_dtype_size(t);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !same(t, (const char *)want + i * es,
                     (const char *)got + i * es);
    return bad;
}

/* The reference reduction of element i over all ranks (left fold). */
static void ref_reduce(tcomm_dtype_t t, tcomm_op_t op, size_t i, void *dst)
{
    char x[8];
    gen(t, op, 0, i, dst);
    for (int r = 1; r < np; r++) {
        gen(t, op, r, i, x);
        tcomm_host_reduce(t, op, dst, x, 1);
    }
}

/* Agree on the failure count, then assert. */
#define AGREE(bad, what)                                                   \
    do {                                                                   \
        int all_ = 0, mine_ = (bad);                                       \
        MPI_Allreduce(&mine_, &all_, 1, MPI_INT, MPI_SUM, comm);           \
        ck_assert_msg(all_ == 0, "%s: %d bad (this rank %d, np %d)",       \
                      what, all_, mine_, np);                              \
    } while (0)

static const tcomm_dtype_t dtypes[] = {TCOMM_U8, TCOMM_I8, TCOMM_I32,
                                       TCOMM_U32, TCOMM_I64, TCOMM_F16,
                                       TCOMM_BF16, TCOMM_F32, TCOMM_F64};
#define NDT ((int)(sizeof dtypes / sizeof dtypes[0]))

static void set_limit(int i)
{
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, i == 0 ? 0 : 7);
}

START_TEST(test_allreduce)
{
    enum { n = 100 };
    static char in[n * 8], out[n * 8], want[n * 8];
    int bad = 0, rc;
    set_limit(_i);
    for (int d = 0; d < NDT; d++) {
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            tcomm_dtype_t t = dtypes[d];
            size_t es = tcomm_dtype_size(t);
            MPI_Op mop;
            ck_assert_int_eq(tcomm_mpi_op(t, (tcomm_op_t)op, &mop),
                             MPI_SUCCESS);
            gen_all(t, (tcomm_op_t)op, rank, 0, n, in);
            for (size_t i = 0; i < n; i++)
                ref_reduce(t, (tcomm_op_t)op, i, want + i * es);
            rc = tcomm_mpi_allreduce(in, out, n, t, mop, comm);
            bad += rc != MPI_SUCCESS || count_bad(t, want, out, n);
            /* reduce to the last rank (in pieces of 7 under the limit) */
            rc = tcomm_mpi_reduce(in, rank == np - 1 ? out : NULL, n, t, mop,
                                  np - 1, comm);
            bad += rc != MPI_SUCCESS ||
                   (rank == np - 1 && count_bad(t, want, out, n));
            /* in place */
            rc = tcomm_mpi_allreduce(MPI_IN_PLACE, in, n, t, mop, comm);
            bad += rc != MPI_SUCCESS || count_bad(t, want, in, n);
        }
    }
    AGREE(bad, "allreduce and reduce");
    ck_assert_int_ne(tcomm_mpi_op(TCOMM_F32, (tcomm_op_t)9, &(MPI_Op){0}),
                     MPI_SUCCESS);
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
}
END_TEST

START_TEST(test_bcast)
{
    enum { n = 50 };
    double buf[n], want[n];
    int bad = 0, root = np - 1;
    set_limit(_i);
    gen_all(TCOMM_F64, TCOMM_SUM, root, 0, n, want);
    if (rank == root)
        memcpy(buf, want, sizeof buf);
    else
        memset(buf, 0, sizeof buf);
    bad += tcomm_mpi_bcast(buf, n, TCOMM_F64, root, comm) != MPI_SUCCESS;
    bad += count_bad(TCOMM_F64, want, buf, n);
    AGREE(bad, "bcast");
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
}
END_TEST

START_TEST(test_allgatherv)
{
    size_t counts[8], displs[8], total = 0;
    int32_t in[64], out[256], want[256];
    int bad = 0;
    set_limit(_i);
    for (int regular = 0; regular < 2; regular++) {
        total = 0;
        for (int r = 0; r < np; r++) {
            counts[r] = regular ? 9 : (r == 1 ? 0 : 5 + 3 * (size_t)r);
            displs[r] = total;
            total += counts[r];
        }
        for (int r = 0; r < np; r++)
            gen_all(TCOMM_I32, TCOMM_SUM, r, 0, counts[r], want + displs[r]);
        gen_all(TCOMM_I32, TCOMM_SUM, rank, 0, counts[rank], in);
        memset(out, 0, sizeof out);
        bad += tcomm_mpi_allgatherv(in, counts[rank], out, counts, displs,
                                    TCOMM_I32, comm) != MPI_SUCCESS;
        bad += count_bad(TCOMM_I32, want, out, total);
    }
    AGREE(bad, "allgatherv");
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
}
END_TEST

START_TEST(test_reduce_scatter_block)
{
    enum { n = 11 };
    static const tcomm_dtype_t ts[] = {TCOMM_F16, TCOMM_BF16, TCOMM_F32,
                                       TCOMM_I64, TCOMM_U8};
    char in[4 * n * 8], out[n * 8], want[n * 8];
    int bad = 0;
    set_limit(_i);
    for (int d = 0; d < 5; d++) {
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            tcomm_dtype_t t = ts[d];
            size_t es = tcomm_dtype_size(t);
            MPI_Op mop;
            tcomm_mpi_op(t, (tcomm_op_t)op, &mop);
            gen_all(t, (tcomm_op_t)op, rank, 0, (size_t)np * n, in);
            for (size_t i = 0; i < n; i++)
                ref_reduce(t, (tcomm_op_t)op, (size_t)rank * n + i,
                           want + i * es);
            bad += tcomm_mpi_reduce_scatter_block(in, out, n, t, mop, comm) !=
                   MPI_SUCCESS;
            bad += count_bad(t, want, out, n);
        }
    }
    AGREE(bad, "reduce_scatter_block");
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
}
END_TEST

typedef int (*ag_fn)(const void *, void *, tcomm_dtype_t, size_t,
                     const size_t *, MPI_Comm);

/* all_gather along dim 1 of [outer][seg[r]] with uneven (and empty)
 * segments, small rows and rows big enough for the per-row messages
 * and the pipeline, through the dispatch and every candidate. */
START_TEST(test_allgather_dim)
{
    static const ag_fn fns[] = {
        tcomm_mpi_all_gather_dim,           tcomm_mpi_all_gather_dim_tmp,
        tcomm_mpi_all_gather_dim_alltoallw, tcomm_mpi_all_gather_dim_rows,
        tcomm_mpi_all_gather_dim_vec,       tcomm_mpi_all_gather_dim_pipe,
        tcomm_mpi_all_gather_dim_pull};
    static const struct { tcomm_dtype_t t; size_t outer, base; } cases[] = {
        {TCOMM_F32, 1, 5}, {TCOMM_U8, 3, 2}, {TCOMM_F16, 7, 4},
        {TCOMM_F64, 4, 1}, {TCOMM_F32, 40, 9000}, {TCOMM_I32, 0, 3}};
    int bad = 0;
    set_limit(_i);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tcomm_dtype_t t = cases[c].t;
        size_t es = tcomm_dtype_size(t), outer = cases[c].outer;
        size_t seg[8] = {0}, off[9] = {0};
        for (int r = 0; r < np; r++) {
            seg[r] = r == 1 ? 0 : cases[c].base + (size_t)r * 3;
            off[r + 1] = off[r] + seg[r];
        }
        size_t total = off[np];
        char *in = malloc(outer * seg[rank] * es + 1);
        char *out = malloc(outer * total * es + 1);
        char *want = malloc(outer * total * es + 1);
        gen_all(t, TCOMM_SUM, rank, 0, outer * seg[rank], in);
        for (int r = 0; r < np; r++) /* rank r's element j at (row, col) */
            for (size_t o = 0; o < outer; o++)
                for (size_t j = 0; j < seg[r]; j++)
                    gen(t, TCOMM_SUM, r, o * seg[r] + j,
                        want + (o * total + off[r] + j) * es);
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
            memset(out, 0x5a, outer * total * es);
            bad += fns[f](in, out, t, outer, seg, comm) != MPI_SUCCESS;
            bad += count_bad(t, want, out, outer * total);
        }
        free(in);
        free(out);
        free(want);
    }
    AGREE(bad, "allgather_dim");
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
}
END_TEST

typedef int (*rs_fn)(const void *, void *, tcomm_dtype_t, MPI_Op, size_t,
                     size_t, MPI_Comm);

START_TEST(test_reduce_scatter_dim)
{
    static const rs_fn fns[] = {tcomm_mpi_reduce_scatter_dim,
                                tcomm_mpi_reduce_scatter_dim_pack,
                                tcomm_mpi_reduce_scatter_dim_pipe};
    static const struct {
        tcomm_dtype_t t;
        tcomm_op_t op;
        size_t outer, chunk;
    } cases[] = {{TCOMM_F32, TCOMM_SUM, 1, 5}, {TCOMM_BF16, TCOMM_MAX, 3, 4},
                 {TCOMM_I32, TCOMM_PROD, 5, 1}, {TCOMM_F16, TCOMM_SUM, 300, 1000},
                 {TCOMM_F64, TCOMM_MIN, 200, 700}, {TCOMM_U8, TCOMM_SUM, 0, 2}};
    int bad = 0;
    set_limit(_i);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tcomm_dtype_t t = cases[c].t;
        tcomm_op_t op = cases[c].op;
        size_t es = tcomm_dtype_size(t), outer = cases[c].outer;
        size_t chunk = cases[c].chunk, width = (size_t)np * chunk;
        char *in = malloc(outer * width * es + 1);
        char *out = malloc(outer * chunk * es + 1);
        char *want = malloc(outer * chunk * es + 1);
        MPI_Op mop;
        tcomm_mpi_op(t, op, &mop);
        gen_all(t, op, rank, 0, outer * width, in);
        for (size_t o = 0; o < outer; o++)
            for (size_t j = 0; j < chunk; j++)
                ref_reduce(t, op, o * width + (size_t)rank * chunk + j,
                           want + (o * chunk + j) * es);
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
            memset(out, 0x5a, outer * chunk * es);
            bad += fns[f](in, out, t, mop, outer, chunk, comm) != MPI_SUCCESS;
            bad += count_bad(t, want, out, outer * chunk);
        }
        free(in);
        free(out);
        free(want);
    }
    AGREE(bad, "reduce_scatter_dim");
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 0);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_kernels");
    TCase *tc = tcase_create("mpi");
    int any;

    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &np);
    tcase_set_timeout(tc, 120);
    /* _i = 0: default count limit; 1: limit 7 (splitting paths) */
    tcase_add_loop_test(tc, test_allreduce, 0, 2);
    tcase_add_loop_test(tc, test_bcast, 0, 2);
    tcase_add_loop_test(tc, test_allgatherv, 0, 2);
    tcase_add_loop_test(tc, test_reduce_scatter_block, 0, 2);
    tcase_add_loop_test(tc, test_allgather_dim, 0, 2);
    tcase_add_loop_test(tc, test_reduce_scatter_dim, 0, 2);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
