/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend beyond the correctness matrix: creation errors, info,
 * the front end's cross-rank agreement over local worlds (disagreement,
 * one rank's argument error, TCOMM_CHECK=0), determinism by construction,
 * TCOMM_TIMEOUT naming the late rank, and destruction in any order.
 * Threads record their first failure; the main thread asserts. */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm.h"
#include "tcomm_config.h"

typedef struct {
    tcomm_comm_t *comm;
    tcomm_graph_t *graph;
    int rank, nranks;
    void (*body)(void *ctx);
    char fail[512];
} ctx_t;

static int expect(ctx_t *c, int ok, int line, const char *fmt, ...)
{
    if (!ok && !c->fail[0]) {
        int k = snprintf(c->fail, sizeof c->fail, "rank %d/%d line %d: ",
                         c->rank, c->nranks, line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fail + k, sizeof c->fail - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return ok;
}
#define EXPECT(c, ok, ...) expect((c), (ok), __LINE__, __VA_ARGS__)

static void *thread_main(void *arg)
{
    ctx_t *c = arg;
    c->body(c);
    tcomm_comm_destroy(c->comm);
    return NULL;
}

static void run_world(int n, void (*body)(void *))
{
    tcomm_comm_t *comms[4];
    ctx_t ctx[4];
    pthread_t th[4];
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ck_assert_int_eq(tcomm_comm_create_local(n, comms), TCOMM_SUCCESS);
    for (int r = 0; r < n; r++) {
        ctx[r] = (ctx_t){.comm = comms[r], .rank = r, .nranks = n,
                         .body = body};
        ck_assert_int_eq(tcomm_graph_create(host, &ctx[r].graph),
                         TCOMM_SUCCESS);
    }
    for (int r = 0; r < n; r++)
        pthread_create(&th[r], NULL, thread_main, &ctx[r]);
    for (int r = 0; r < n; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < n; r++) {
        ck_assert_msg(!ctx[r].fail[0], "%s", ctx[r].fail);
        ck_assert_int_eq(tcomm_graph_destroy(ctx[r].graph), TCOMM_SUCCESS);
    }
}

static tcomm_tensor_t *f32_tensor(ctx_t *c, size_t rows, size_t cols,
                                  const float *data)
{
    size_t shape[2] = {rows, cols};
    tcomm_tensor_t *t = NULL;
    float *zero = data ? NULL : calloc(rows * cols + 1, sizeof *zero);
    tcomm_tensor_from_host(c->graph, TCOMM_F32, data ? data : zero, 2, shape,
                           &t);
    free(zero);
    return t;
}

START_TEST(create_rejects_bad_arguments)
{
    tcomm_comm_t *comms[2] = {(tcomm_comm_t *)&comms, NULL};
    static const int bad[] = {0, -3, 1025};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(tcomm_comm_create_local(bad[i], comms),
                         TCOMM_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "1..1024"));
        ck_assert_ptr_eq(comms[0], (tcomm_comm_t *)&comms); /* untouched */
    }
    ck_assert_int_eq(tcomm_comm_create_local(2, NULL), TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(),
                                 "tcomm_comm_create_local: comms is NULL"));
}
END_TEST

START_TEST(info_and_destroy_in_any_order)
{
    tcomm_comm_t *comms[4];
    ck_assert_int_eq(tcomm_comm_create_local(4, comms), TCOMM_SUCCESS);
    for (int r = 0; r < 4; r++) {
        tcomm_comm_info_t info;
        ck_assert_int_eq(tcomm_comm_info(comms[r], &info), TCOMM_SUCCESS);
        ck_assert_int_eq(info.rank, r);
        ck_assert_int_eq(info.world_size, 4);
        ck_assert_str_eq(info.backend, "local");
        ck_assert_int_eq(info.cuda_aware, 0);
    }
    static const int order[4] = {3, 1, 0, 2};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(tcomm_comm_destroy(comms[order[i]]), TCOMM_SUCCESS);
    /* the largest world: creation and destruction only */
    tcomm_comm_t **many = malloc(1024 * sizeof *many);
    ck_assert_int_eq(tcomm_comm_create_local(1024, many), TCOMM_SUCCESS);
    for (int r = 1023; r >= 0; r--)
        tcomm_comm_destroy(many[r]);
    free(many);
}
END_TEST

/* Rank 2 passes [4, 9], the others [4, 8]: every rank fails, nobody
 * hangs, and the communicator works afterwards. */
static void disagree_on_shape(void *arg)
{
    ctx_t *c = arg;
    tcomm_tensor_t *in = f32_tensor(c, 4, c->rank == 2 ? 9 : 8, NULL);
    tcomm_tensor_t *out = NULL;
    tcomm_status_t st = tcomm_all_reduce(c->comm, in, TCOMM_SUM, &out);
    EXPECT(c, st == TCOMM_ERR_MISMATCH && !out, "status %d", st);
    EXPECT(c, !!strstr(tcomm_last_error(), "ranks disagree on shape: rank 0 "
                                           "has [4, 8], rank 2 has [4, 9]"),
           "message: %s", tcomm_last_error());
    tcomm_tensor_release(in);
    in = f32_tensor(c, 4, 8, NULL);
    st = tcomm_all_reduce(c->comm, in, TCOMM_SUM, &out);
    EXPECT(c, st == TCOMM_SUCCESS, "after a mismatch: %s",
           tcomm_last_error());
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* Rank 1 asks for dim 5: its own error; the others name rank 1. */
static void one_rank_bad_dim(void *arg)
{
    ctx_t *c = arg;
    tcomm_tensor_t *in = f32_tensor(c, 2, 3, NULL), *out = NULL;
    tcomm_status_t st =
        tcomm_all_gather(c->comm, in, c->rank == 1 ? 5 : 0, &out);
    if (c->rank == 1)
        EXPECT(c, st == TCOMM_ERR_INVALID_ARG &&
                      strstr(tcomm_last_error(), "dim 5 is out of range"),
               "own error: %s", tcomm_last_error());
    else
        EXPECT(c, st == TCOMM_ERR_MISMATCH &&
                      strstr(tcomm_last_error(), "rank 1 rejected the call"),
               "peer error: %s", tcomm_last_error());
    /* a different collective on rank 0: the collective is named */
    st = c->rank == 0 ? tcomm_barrier(c->comm)
                      : tcomm_all_reduce(c->comm, in, TCOMM_MAX, &out);
    EXPECT(c, st == TCOMM_ERR_MISMATCH &&
                  strstr(tcomm_last_error(), "disagree on the collective"),
           "collective: %s", tcomm_last_error());
    tcomm_tensor_release(in);
}

/* TCOMM_CHECK=0: no agreement, but uneven all_gather still works. */
static void unchecked_gather(void *arg)
{
    ctx_t *c = arg;
    EXPECT(c, tcomm_comm_set_attr(c->comm, TCOMM_ATTR_CHECK, 0) == 0, "attr");
    float r = (float)c->rank, mine[4] = {r, r, r, r};
    tcomm_tensor_t *in = f32_tensor(c, (size_t)c->rank + 1, 1, mine), *out;
    tcomm_status_t st = tcomm_all_gather(c->comm, in, 0, &out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "%s", tcomm_last_error())) {
        float got[10];
        size_t k = 0;
        tcomm_tensor_to_host(out, got, sizeof got);
        for (int q = 0; q < c->nranks; q++)
            for (int j = 0; j <= q; j++, k++)
                EXPECT(c, got[k] == (float)q, "[%zu] = %g", k, got[k]);
        EXPECT(c, tcomm_tensor_dim(out, 0) == k, "rows");
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
}

START_TEST(agreement_over_local_worlds)
{
    run_world(3, disagree_on_shape);
    run_world(3, one_rank_bad_dim);
    run_world(4, unchecked_gather);
}
END_TEST

/* Values whose sum depends on the order: the result must be the left
 * fold in rank order, bit for bit, on every rank, every time. */
static float noisy(int rank, size_t i)
{
    unsigned x = (unsigned)(rank * 2654435761u) ^ (unsigned)(i * 40503u);
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return (float)((int)(x % 2000001u) - 1000000) * (1.0f + (float)rank) /
           (float)(1u << (x % 24u));
}

#define NOISY_N 960
static void rank_order_fold(void *arg)
{
    ctx_t *c = arg;
    float mine[NOISY_N], want[NOISY_N], got[NOISY_N];
    for (size_t i = 0; i < NOISY_N; i++) {
        mine[i] = noisy(c->rank, i);
        want[i] = noisy(0, i);
        for (int q = 1; q < c->nranks; q++)
            want[i] += noisy(q, i);
    }
    tcomm_tensor_t *in = f32_tensor(c, 4, NOISY_N / 4, mine), *out;
    for (int rep = 0; rep < 3; rep++) {
        if (!EXPECT(c, tcomm_all_reduce(c->comm, in, TCOMM_SUM, &out) == 0,
                    "%s", tcomm_last_error()))
            break;
        tcomm_tensor_to_host(out, got, sizeof got);
        EXPECT(c, !memcmp(got, want, sizeof got), "all_reduce bits");
        tcomm_tensor_release(out);
    }
    /* reduce_scatter along dim 1: columns of chunk rank */
    size_t cols = NOISY_N / 4, ch = cols / (size_t)c->nranks;
    if (EXPECT(c, tcomm_reduce_scatter(c->comm, in, TCOMM_SUM, 1, &out) == 0,
               "%s", tcomm_last_error())) {
        tcomm_tensor_to_host(out, got, 4 * ch * sizeof *got);
        for (size_t o = 0; o < 4; o++)
            for (size_t j = 0; j < ch; j++)
                EXPECT(c, got[o * ch + j] ==
                              want[o * cols + (size_t)c->rank * ch + j],
                       "reduce_scatter [%zu][%zu]", o, j);
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
}

START_TEST(deterministic_by_construction)
{
    run_world(4, rank_order_fold);
    run_world(2, rank_order_fold);
}
END_TEST

/* Rank 2 arrives late: the others time out naming it; afterwards the
 * world is unusable for everyone, and nobody hangs. */
static void late_rank(void *arg)
{
    ctx_t *c = arg;
    tcomm_status_t st;
    if (c->rank == 2) {
        usleep(800 * 1000);
        st = tcomm_barrier(c->comm);
        EXPECT(c, st == TCOMM_ERR_COMM_FAILED, "late rank: %d %s", st,
               tcomm_last_error());
        return;
    }
    st = tcomm_barrier(c->comm);
    EXPECT(c, st == TCOMM_ERR_TIMEOUT, "status %d", st);
    EXPECT(c, strstr(tcomm_last_error(), "tcomm_barrier: ") &&
                  strstr(tcomm_last_error(), "for rank 2 of the local"),
           "message: %s", tcomm_last_error());
    st = tcomm_barrier(c->comm);
    EXPECT(c, st == TCOMM_ERR_COMM_FAILED, "then: %d", st);
}

START_TEST(timeout_names_the_late_rank)
{
    setenv("TCOMM_TIMEOUT", "0.3", 1);
    tcomm_config_reload();
    run_world(3, late_rank);
    unsetenv("TCOMM_TIMEOUT");
    tcomm_config_reload();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("local_backend_safety");
    TCase *tc = tcase_create("safety");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, create_rejects_bad_arguments);
    tcase_add_test(tc, info_and_destroy_in_any_order);
    tcase_add_test(tc, agreement_over_local_worlds);
    tcase_add_test(tc, deterministic_by_construction);
    tcase_add_test(tc, timeout_names_the_late_rank);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
