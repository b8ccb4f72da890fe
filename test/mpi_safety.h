/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the MPI safety suites (test/mpi_errors.c,
 * test/mpi_mismatch.c): f32 tensors with known values, the checks that
 * every failed call must pass (status, key words of the sentence, *out
 * untouched, inputs unchanged) and the recovery check (the next valid
 * collective on the same communicator succeeds with the right result).
 * Every case runs under alarm(), so that a hang fails the test. */
#ifndef TCOMM_TEST_MPI_SAFETY_H
#define TCOMM_TEST_MPI_SAFETY_H

#include <check.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_mpi.h"

#define CASE_SECONDS 60 /* a case that takes longer hangs: fail it */

static tcomm_comm_t *comm;
static tcomm_graph_t *graph, *graph2;
static int rank, nranks;
/* what the failed calls must leave alone */
static char sentinel_storage[64];
#define SENTINEL ((tcomm_tensor_t *)sentinel_storage)

static void case_arm(void) { alarm(CASE_SECONDS); }
static void case_disarm(void) { alarm(0); }

static size_t prod(int nd, const size_t *s)
{
    size_t p = 1;
    for (int i = 0; i < nd; i++)
        p *= s[i];
    return p;
}

/* A tensor of dtype d and shape s on g, element i = rank * 100 + i. */
static tcomm_tensor_t *make(tcomm_graph_t *g, tcomm_dtype_t d, int nd,
                            const size_t *s)
{
    size_t n = prod(nd, s);
    double *v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = rank * 100.0 + (double)i;
    tcomm_tensor_t *t = NULL, *f64 = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(g, TCOMM_F64, v, nd, s, &f64),
                     TCOMM_SUCCESS);
    if (d == TCOMM_F64) {
        t = f64;
    } else {
        /* the same values in another dtype: small integers are exact */
        size_t es = tcomm_dtype_size(d);
        unsigned char *b = calloc(n + 1, es);
        for (size_t i = 0; i < n; i++) {
            if (d == TCOMM_F32)
                ((float *)b)[i] = (float)v[i];
            else if (d == TCOMM_I32)
                ((int *)b)[i] = (int)v[i];
            else if (d == TCOMM_I64)
                ((long long *)b)[i] = (long long)v[i];
        }
        ck_assert_int_eq(tcomm_tensor_from_host(g, d, b, nd, s, &t),
                         TCOMM_SUCCESS);
        free(b);
        tcomm_tensor_release(f64);
    }
    free(v);
    return t;
}

static void *snapshot(const tcomm_tensor_t *t)
{
    size_t bytes = tcomm_tensor_numel(t) *
                   tcomm_dtype_size(tcomm_tensor_dtype(t));
    void *b = malloc(bytes + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(t, b, bytes), TCOMM_SUCCESS);
    return b;
}

static void assert_same(const tcomm_tensor_t *t, const void *snap,
                        const char *what)
{
    void *now = snapshot(t);
    size_t bytes = tcomm_tensor_numel(t) *
                   tcomm_dtype_size(tcomm_tensor_dtype(t));
    ck_assert_msg(!memcmp(now, snap, bytes), "rank %d: %s was modified",
                  rank, what);
    free(now);
}

/* This rank's status must be want and the sentence must contain every
 * key (a NULL-terminated list). */
static void expect(tcomm_status_t st, tcomm_status_t want, ...)
{
    const char *msg = tcomm_last_error();
    ck_assert_msg(st == want, "rank %d: status %d (%s) but want %d (%s): %s",
                  rank, st, tcomm_status_string(st), want,
                  tcomm_status_string(want), msg);
    va_list ap;
    va_start(ap, want);
    for (const char *k; (k = va_arg(ap, const char *));)
        ck_assert_msg(strstr(msg, k), "rank %d: \"%s\" lacks \"%s\"", rank,
                      msg, k);
    va_end(ap);
}

/* Rank `bad` makes the error, the others call correctly: the bad rank
 * gets `status` and the sentence `key`; every other rank gets
 * TCOMM_ERR_MISMATCH with "rank BAD rejected the call: KEY". */
static inline void expect_one(tcomm_status_t st, int bad,
                              tcomm_status_t status,
                              const char *fn, const char *key)
{
    char want[256];
    if (rank == bad) {
        expect(st, status, fn, key, (char *)NULL);
        return;
    }
    snprintf(want, sizeof want, "%s: rank %d rejected the call: %s", fn,
             bad, key);
    expect(st, TCOMM_ERR_MISMATCH, want, (char *)NULL);
}

/* The next valid collective on comm succeeds with the right result: an
 * all_reduce SUM of f32 [5] and a broadcast from the last rank. */
static void assert_recovers(void)
{
    static const size_t s[1] = {5};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 1, s), *out = NULL;
    tcomm_status_t st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
    ck_assert_msg(st == TCOMM_SUCCESS, "rank %d: recovery all_reduce: %s",
                  rank, tcomm_last_error());
    float got[5];
    ck_assert_int_eq(tcomm_tensor_to_host(out, got, sizeof got),
                     TCOMM_SUCCESS);
    for (int i = 0; i < 5; i++) {
        double want = 100.0 * nranks * (nranks - 1) / 2 + (double)i * nranks;
        ck_assert_msg(got[i] == (float)want, "rank %d: [%d] %g != %g", rank,
                      i, got[i], want);
    }
    tcomm_tensor_release(out);
    out = NULL;
    st = tcomm_broadcast(comm, in, nranks - 1, &out);
    ck_assert_msg(st == TCOMM_SUCCESS, "rank %d: recovery broadcast: %s",
                  rank, tcomm_last_error());
    ck_assert_int_eq(tcomm_tensor_to_host(out, got, sizeof got),
                     TCOMM_SUCCESS);
    for (int i = 0; i < 5; i++)
        ck_assert(got[i] == (float)(100.0 * (nranks - 1) + i));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static void safety_setup(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph2) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Run the suite with CK_NOFORK; 0 when every rank passed. */
static int safety_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr), any = 0;
    srunner_free(sr);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(graph2);
    tcomm_graph_destroy(graph);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* TCOMM_TEST_MPI_SAFETY_H */
