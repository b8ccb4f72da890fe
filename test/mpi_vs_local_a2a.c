/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend as an independent reference for the MPI backend's
 * all_to_all, all_to_all_v and reduce_scatter_v, at 1-4 ranks, as
 * test/mpi_vs_local.c does for the seed's collectives: every rank runs
 * each case over MPI in deterministic mode, then replays the job in a
 * local world of as many threads (thread q regenerating rank q's
 * inputs) and asserts that its own rank's results are the same bits.
 * The cases: all_to_all over every (split, concat) pair of a 3-d shape,
 * all_to_all_v in both modes with zero-size pieces, reduce_scatter_v
 * with a zero-size chunk and every op; every dtype. reduce_scatter_v's
 * float inputs are order-sensitive, so agreement means both fold in
 * rank order. */
#include <check.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_matrix.h"
#include "mpi_reference.h"
#include "mpi_suite.h"
#include "tcomm_mpi.h"

enum { K_A2A, K_A2A_V, K_RSV };

typedef struct {
    int kind;
    tcomm_dtype_t dtype;
    int op, split, concat;
} case_t;

#define MAX_CASES 512
static case_t cases[MAX_CASES];
static int ncases, rank, nranks;

/* Order-sensitive floats for reductions, else exact small values. */
static double value(const case_t *c, int r, size_t i)
{
    int op = c->kind == K_RSV ? c->op : -1;
    if (c->kind != K_RSV || !ref_is_float(c->dtype))
        return ref_value(c->dtype, op, r, i);
    if (op == TCOMM_PROD)
        return ((r + (int)i) % 3 ? 1.0 : -1.0) * (1.0 + (double)r / 3.0);
    unsigned x = (unsigned)(r + 1) * 2654435761u ^ (unsigned)i * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return ((double)(x % 200001u) - 100000.0) / (double)(1u << (x % 16u));
}

/* Rank r's input shape and send sizes (world size n) for case c. */
static void plan(const case_t *c, int r, int n, size_t *shape, size_t *send)
{
    static const size_t base[3] = {2, 3, 2};
    memcpy(shape, base, sizeof base);
    size_t total = 0;
    for (int j = 0; j < n; j++) {
        send[j] = c->kind == K_A2A        ? base[c->split]
                  : c->kind == K_RSV      ? a2a_chunk_size(j)
                  : c->split == c->concat ? a2a_token_size(r, j)
                                          : (size_t)(j + 1) % 3;
        total += send[j];
    }
    shape[c->split] = total;
    if (c->kind == K_A2A_V && c->split != c->concat)
        shape[c->concat] = (size_t)(r + 1) % 3;
}

static tcomm_status_t run_case(tcomm_comm_t *comm, tcomm_graph_t *g,
                               const case_t *c, int r, int n, void **res,
                               size_t *bytes)
{
    size_t shape[3], send[4];
    plan(c, r, n, shape, send);
    size_t numel = shape[0] * shape[1] * shape[2];
    size_t es = tcomm_dtype_size(c->dtype);
    void *host = malloc(numel * es + 1);
    for (size_t i = 0; i < numel; i++)
        ref_store(c->dtype, host, i, value(c, r, i));
    tcomm_tensor_t *in = NULL, *out = NULL;
    tcomm_status_t st =
        tcomm_tensor_from_host(g, c->dtype, host, 3, shape, &in);
    free(host);
    if (st != TCOMM_SUCCESS)
        return st;
    if (c->kind == K_A2A)
        st = tcomm_all_to_all(comm, in, c->split, c->concat, &out);
    else if (c->kind == K_A2A_V)
        st = tcomm_all_to_all_v(comm, in, c->split, send, c->concat, &out);
    else
        st = tcomm_reduce_scatter_v(comm, in, (tcomm_op_t)c->op, c->split, send,
                                    &out);
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
    tcomm_comm_set_attr(t->comm, TCOMM_ATTR_DETERMINISTIC, 1);
    for (int k = 0; k < ncases; k++) {
        void *res = NULL;
        size_t bytes = 0;
        tcomm_status_t st =
            run_case(t->comm, g, &cases[k], t->q, t->n, &res, &bytes);
        if (st != TCOMM_SUCCESS && !t->fail[0])
            snprintf(t->fail, sizeof t->fail, "local rank %d case %d: %s", t->q,
                     k, tcomm_last_error());
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
        tcomm_dtype_t dt = (tcomm_dtype_t)d;
        for (int s = 0; s < 3; s++)
            for (int k = 0; k < 3; k++) {
                cases[ncases++] = (case_t){K_A2A, dt, 0, s, k};
                cases[ncases++] = (case_t){K_A2A_V, dt, 0, s, k};
            }
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(dt))
                continue;
            for (int dim = 0; dim < 3; dim++)
                cases[ncases++] = (case_t){K_RSV, dt, op, dim, dim};
        }
    }
}

static const char *const kinds[] = {"all_to_all", "all_to_all_v",
                                    "reduce_scatter_v"};

START_TEST(mpi_and_local_give_the_same_bits)
{
    tcomm_comm_t *comm, *locals[4];
    tcomm_graph_t *g;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm), 0);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1), 0);
    ck_assert_int_eq(tcomm_graph_create(host, &g), 0);
    static void *mpi_res[MAX_CASES], *loc_res[MAX_CASES];
    static size_t mpi_bytes[MAX_CASES], loc_bytes[MAX_CASES];
    for (int k = 0; k < ncases; k++)
        ck_assert_msg(run_case(comm, g, &cases[k], rank, nranks, &mpi_res[k],
                               &mpi_bytes[k]) == TCOMM_SUCCESS,
                      "mpi %s case %d: %s", kinds[cases[k].kind], k,
                      tcomm_last_error());

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
    for (int k = 0; k < ncases; k++) {
        const case_t *c = &cases[k];
        ck_assert_uint_eq(mpi_bytes[k], loc_bytes[k]);
        ck_assert_msg(!memcmp(mpi_res[k], loc_res[k], mpi_bytes[k]),
                      "rank %d: %s %s %s dims %d %d differs between mpi and "
                      "local",
                      rank, kinds[c->kind], tcomm_dtype_name(c->dtype),
                      c->kind == K_RSV ? tcomm_op_name(c->op) : "-", c->split,
                      c->concat);
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
            fprintf(stderr, "mpi_vs_local_a2a: SKIP: run on 1-4 ranks\n");
        MPI_Finalize();
        return 77;
    }
    add_cases();
    Suite *s = suite_create("mpi_vs_local_a2a");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, mpi_and_local_give_the_same_bits);
    suite_add_tcase(s, tc);
    int any = tcomm_test_run_suite(s, 0);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
