/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend as an independent reference for the MPI backend, at
 * 1-4 ranks: every rank runs each collective over MPI (deterministic
 * mode), then replays the whole job in a local world of as many threads,
 * thread q regenerating rank q's inputs, and asserts that its own rank's
 * results are the same bits. The inputs are order-sensitive floats (a
 * different summation order changes the bits), so agreement means both
 * backends fold in rank order. */
#include <check.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"
#include "tcomm_mpi.h"
#include "mpi_suite.h"

enum { K_ALL_REDUCE, K_ALL_GATHER, K_REDUCE_SCATTER, K_BROADCAST };

typedef struct {
    int kind;
    tcomm_dtype_t dtype;
    int op, dim;
} case_t;

#define MAX_CASES 256
static case_t cases[MAX_CASES];
static int ncases;
static int rank, nranks;

/* A value whose sums depend on their order (floats), or a small exact
 * one (integers: their folds are exact in any order). */
static double value(const case_t *c, int r, size_t i)
{
    if (!ref_is_float(c->dtype))
        return ref_value(c->dtype, c->kind == K_ALL_GATHER ||
                                           c->kind == K_BROADCAST
                                       ? -1
                                       : c->op,
                         r, i);
    if (c->op == TCOMM_PROD)
        return ((r + (int)i) % 3 ? 1.0 : -1.0) * (1.0 + (double)r / 3.0);
    unsigned x = (unsigned)(r + 1) * 2654435761u ^ (unsigned)i * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return ((double)(x % 200001u) - 100000.0) / (double)(1u << (x % 16u));
}

static void shape_of(const case_t *c, int r, int n, int *nd, size_t *s)
{
    *nd = 2;
    s[0] = 3;
    s[1] = 10;
    if (c->kind == K_REDUCE_SCATTER)
        s[c->dim] = 4 * (size_t)n;
    if (c->kind == K_ALL_GATHER)
        s[c->dim] = (size_t)r + 1; /* uneven */
}

static tcomm_status_t run_case(tcomm_comm_t *comm, tcomm_graph_t *g,
                               const case_t *c, int r, int n, void **res,
                               size_t *bytes)
{
    int nd;
    size_t shape[2];
    shape_of(c, r, n, &nd, shape);
    size_t numel = shape[0] * shape[1], es = tcomm_dtype_size(c->dtype);
    void *host = malloc(numel * es);
    for (size_t i = 0; i < numel; i++)
        ref_store(c->dtype, host, i, value(c, r, i));
    tcomm_tensor_t *in = NULL, *out = NULL;
    tcomm_status_t st =
        tcomm_tensor_from_host(g, c->dtype, host, nd, shape, &in);
    free(host);
    if (st != TCOMM_SUCCESS)
        return st;
    switch (c->kind) {
    case K_ALL_REDUCE: st = tcomm_all_reduce(comm, in, c->op, &out); break;
    case K_ALL_GATHER: st = tcomm_all_gather(comm, in, c->dim, &out); break;
    case K_REDUCE_SCATTER:
        st = tcomm_reduce_scatter(comm, in, c->op, c->dim, &out);
        break;
    default: st = tcomm_broadcast(comm, in, n - 1, &out); break;
    }
    if (st == TCOMM_SUCCESS) {
        *bytes = tcomm_tensor_numel(out) * es;
        *res = malloc(*bytes + 1);
        st = tcomm_tensor_to_host(out, *res, *bytes);
    }
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    return st;
}

/* One thread of the local replay: rank q of n. */
typedef struct {
    tcomm_comm_t *comm;
    int q, n;
    void **res;
    size_t *bytes;
    char fail[512];
} replay_t;

static void *replay(void *arg)
{
    replay_t *t = arg;
    tcomm_graph_t *g = NULL;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_create(host, &g);
    for (int k = 0; k < ncases; k++) {
        void *res = NULL;
        size_t bytes = 0;
        tcomm_status_t st = run_case(t->comm, g, &cases[k], t->q, t->n,
                                     &res, &bytes);
        if (st != TCOMM_SUCCESS && !t->fail[0])
            snprintf(t->fail, sizeof t->fail, "local rank %d case %d: %s",
                     t->q, k, tcomm_last_error());
        if (t->res) {
            t->res[k] = res;
            t->bytes[k] = bytes;
        } else {
            free(res);
        }
    }
    tcomm_comm_destroy(t->comm);
    tcomm_graph_destroy(g);
    return NULL;
}

static void add_cases(void)
{
    for (int d = 0; d < TCOMM_DTYPE_COUNT; d++) {
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float((tcomm_dtype_t)d))
                continue;
            for (int dim = 0; dim < 2; dim++)
                cases[ncases++] = (case_t){K_REDUCE_SCATTER,
                                           (tcomm_dtype_t)d, op, dim};
            cases[ncases++] = (case_t){K_ALL_REDUCE, (tcomm_dtype_t)d, op, 0};
        }
        for (int dim = 0; dim < 2; dim++)
            cases[ncases++] = (case_t){K_ALL_GATHER, (tcomm_dtype_t)d, 0, dim};
        cases[ncases++] = (case_t){K_BROADCAST, (tcomm_dtype_t)d, 0, 0};
    }
}

START_TEST(mpi_and_local_give_the_same_bits)
{
    tcomm_comm_t *comm, *locals[4];
    tcomm_graph_t *g;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm), 0);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1),
                     0);
    ck_assert_int_eq(tcomm_graph_create(host, &g), 0);
    void *mpi_res[MAX_CASES], *loc_res[MAX_CASES];
    size_t mpi_bytes[MAX_CASES], loc_bytes[MAX_CASES];
    for (int k = 0; k < ncases; k++)
        ck_assert_msg(run_case(comm, g, &cases[k], rank, nranks, &mpi_res[k],
                               &mpi_bytes[k]) == TCOMM_SUCCESS,
                      "mpi case %d: %s", k, tcomm_last_error());

    ck_assert_int_eq(tcomm_comm_create_local(nranks, locals), 0);
    replay_t t[4];
    pthread_t th[4];
    for (int q = 0; q < nranks; q++) {
        t[q] = (replay_t){.comm = locals[q], .q = q, .n = nranks};
        if (q == rank) {
            t[q].res = loc_res;
            t[q].bytes = loc_bytes;
        }
        pthread_create(&th[q], NULL, replay, &t[q]);
    }
    for (int q = 0; q < nranks; q++)
        pthread_join(th[q], NULL);
    for (int q = 0; q < nranks; q++)
        ck_assert_msg(!t[q].fail[0], "%s", t[q].fail);

    static const char *kinds[] = {"all_reduce", "all_gather",
                                  "reduce_scatter", "broadcast"};
    for (int k = 0; k < ncases; k++) {
        const case_t *c = &cases[k];
        ck_assert_uint_eq(mpi_bytes[k], loc_bytes[k]);
        ck_assert_msg(!memcmp(mpi_res[k], loc_res[k], mpi_bytes[k]),
                      "rank %d: %s %s %s dim %d differs between mpi and "
                      "local",
                      rank, kinds[c->kind], tcomm_dtype_name(c->dtype),
                      tcomm_op_name(c->op), c->dim);
        free(mpi_res[k]);
        free(loc_res[k]);
    }
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(g);
}
END_TEST

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks > 4) {
        if (rank == 0)
            fprintf(stderr, "mpi_vs_local: run on 1-4 ranks\n");
        MPI_Finalize();
        return 77;
    }
    add_cases();
    Suite *s = suite_create("mpi_vs_local");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, mpi_and_local_give_the_same_bits);
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
