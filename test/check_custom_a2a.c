/* SPDX-License-Identifier: BSD-3-Clause */
/* A user-defined backend and contract 0.2's all_to_all, all_to_all_v and
 * reduce_scatter_v, written against include/tcomm_backend.h and the
 * public API only: "trio", three ranks as three threads. A table of
 * contract 0.1 (size 0), or one whose slots are NULL, answers
 * TCOMM_ERR_UNSUPPORTED for the three on every rank before anything
 * reaches the backend (its slots past the size would fail the test if
 * called), and the communicator stays usable; a table with the slots
 * gets them called with the arguments of the contract: the output's
 * shape and the sizes the front end exchanged. */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_backend.h"

enum { N = 3 };

typedef struct {
    pthread_barrier_t gate;
    const void *slot[N];
    int calls[N]; /* the three slots' calls, per rank */
} trio_world_t;

typedef struct {
    trio_world_t *w;
    int rank;
    /* what the last slot call got */
    int split, concat;
    size_t send[N], recv[N], out_shape[3];
} trio_t;

static tcomm_status_t trio_query(void *s, int *rank, int *size, int *cuda)
{
    *rank = ((trio_t *)s)->rank;
    *size = N;
    *cuda = 0;
    return TCOMM_SUCCESS;
}

static tcomm_status_t trio_allgather_bytes(void *s, const void *mine, void *all,
                                           size_t bytes)
{
    trio_t *p = s;
    p->w->slot[p->rank] = mine;
    pthread_barrier_wait(&p->w->gate);
    for (int r = 0; r < N; r++)
        memcpy((char *)all + (size_t)r * bytes, p->w->slot[r], bytes);
    pthread_barrier_wait(&p->w->gate);
    return TCOMM_SUCCESS;
}

static tcomm_status_t trio_barrier(void *s)
{
    pthread_barrier_wait(&((trio_t *)s)->w->gate);
    return TCOMM_SUCCESS;
}

/* Record a slot's call: its dims, sizes and out's shape. */
static tcomm_status_t record(trio_t *p, int split, int concat,
                             const size_t *send, const size_t *recv,
                             const tcomm_tensor_t *out)
{
    p->w->calls[p->rank]++;
    p->split = split;
    p->concat = concat;
    for (int r = 0; r < N; r++) {
        p->send[r] = send ? send[r] : 0;
        p->recv[r] = recv ? recv[r] : 0;
    }
    for (int i = 0; i < tcomm_tensor_ndim(out) && i < 3; i++)
        p->out_shape[i] = tcomm_tensor_dim(out, i);
    return TCOMM_SUCCESS;
}

static tcomm_status_t trio_all_to_all(void *s, const tcomm_tensor_t *in,
                                      int split, int concat,
                                      tcomm_tensor_t *out)
{
    return record(s, split, concat, NULL, NULL, out);
}

static tcomm_status_t trio_all_to_all_v(void *s, const tcomm_tensor_t *in,
                                        int split, const size_t *send,
                                        int concat, const size_t *recv,
                                        tcomm_tensor_t *out)
{
    return record(s, split, concat, send, recv, out);
}

static tcomm_status_t trio_reduce_scatter_v(void *s, const tcomm_tensor_t *in,
                                            tcomm_op_t op, int dim,
                                            const size_t *sizes,
                                            tcomm_tensor_t *out)
{
    return record(s, dim, -1, sizes, NULL, out);
}

static const tcomm_backend_ops_t trio_ops = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "trio",
    .query = trio_query,
    .allgather_bytes = trio_allgather_bytes,
    .barrier = trio_barrier,
    .all_to_all = trio_all_to_all,
    .all_to_all_v = trio_all_to_all_v,
    .reduce_scatter_v = trio_reduce_scatter_v,
};

typedef struct {
    tcomm_comm_t *comm;
    tcomm_graph_t *g;
    trio_t *p;
    int rank, absent;
    char fail[512];
} ctx_t;

static int expect(ctx_t *c, int ok, int line, const char *fmt, ...)
{
    if (!ok && !c->fail[0]) {
        int k = snprintf(c->fail, sizeof c->fail, "rank %d line %d: ", c->rank,
                         line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fail + k, sizeof c->fail - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return ok;
}
#define EXPECT(c, ok, ...) expect((c), (ok), __LINE__, __VA_ARGS__)

/* An f32 tensor [a, b, 2] on the rank's graph. */
static tcomm_tensor_t *tensor(ctx_t *c, size_t a, size_t b)
{
    size_t shape[3] = {a, b, 2};
    tcomm_tensor_t *t = NULL;
    EXPECT(c, tcomm_tensor_empty(c->g, TCOMM_F32, 3, shape, &t) == 0,
           "tensor_empty: %s", tcomm_last_error());
    return t;
}

/* st and out after one of the three: UNSUPPORTED naming the backend and
 * no output (absent), or success with out of shape {a, b, 2}. */
static void outcome(ctx_t *c, const char *what, tcomm_status_t st,
                    tcomm_tensor_t *out, size_t a, size_t b)
{
    if (c->absent) {
        EXPECT(c,
               st == TCOMM_ERR_UNSUPPORTED && !out &&
                   strstr(tcomm_last_error(), what) &&
                   strstr(tcomm_last_error(), "trio"),
               "%s: %d %s", what, st, tcomm_last_error());
        return;
    }
    if (EXPECT(c, st == TCOMM_SUCCESS, "%s: %s", what, tcomm_last_error()))
        EXPECT(c,
               c->p->out_shape[0] == a && c->p->out_shape[1] == b &&
                   c->p->out_shape[2] == 2 && tcomm_tensor_dim(out, 0) == a &&
                   tcomm_tensor_dim(out, 1) == b,
               "%s: out [%zu, %zu, %zu], want [%zu, %zu, 2]", what,
               c->p->out_shape[0], c->p->out_shape[1], c->p->out_shape[2], a,
               b);
    tcomm_tensor_release(out);
}

static void body(ctx_t *c)
{
    int me = c->rank;
    trio_t *p = c->p;
    tcomm_tensor_t *out = NULL;
    /* all_to_all [6, 2, 2] split 0 concat 1: [2, 6, 2] */
    tcomm_tensor_t *in = tensor(c, 6, 2);
    tcomm_status_t st = tcomm_all_to_all(c->comm, in, 0, 1, &out);
    outcome(c, "all_to_all", st, out, 2, 6);
    if (!c->absent)
        EXPECT(c, p->split == 0 && p->concat == 1, "all_to_all dims");
    tcomm_tensor_release(in);
    /* token mode: rank r sends (r + j) % 3 to rank j along dim 0 */
    size_t send[N], total = 0, want[N];
    for (int j = 0; j < N; j++) {
        send[j] = (size_t)(me + j) % 3;
        total += send[j];
        want[j] = (size_t)(j + me) % 3; /* what rank j sends us */
    }
    in = tensor(c, total, 2);
    out = NULL;
    st = tcomm_all_to_all_v(c->comm, in, 0, send, 0, &out);
    outcome(c, "all_to_all_v", st, out, want[0] + want[1] + want[2], 2);
    if (!c->absent)
        EXPECT(c,
               !memcmp(p->send, send, sizeof send) &&
                   !memcmp(p->recv, want, sizeof want),
               "token mode sizes: recv %zu %zu %zu", p->recv[0], p->recv[1],
               p->recv[2]);
    tcomm_tensor_release(in);
    /* transpose: send {1, 0, 2} along 0; rank r has r + 1 along 1 */
    size_t tsend[N] = {1, 0, 2}, twant[N] = {1, 2, 3};
    in = tensor(c, 3, (size_t)me + 1);
    out = NULL;
    st = tcomm_all_to_all_v(c->comm, in, 0, tsend, 1, &out);
    outcome(c, "all_to_all_v", st, out, tsend[me], 6);
    if (!c->absent)
        EXPECT(c,
               p->split == 0 && p->concat == 1 &&
                   !memcmp(p->send, tsend, sizeof tsend) &&
                   !memcmp(p->recv, twant, sizeof twant),
               "transpose sizes: recv %zu %zu %zu", p->recv[0], p->recv[1],
               p->recv[2]);
    tcomm_tensor_release(in);
    /* reduce_scatter_v sizes {2, 0, 3} along 1 */
    size_t rs[N] = {2, 0, 3};
    in = tensor(c, 2, 5);
    out = NULL;
    st = tcomm_reduce_scatter_v(c->comm, in, TCOMM_SUM, 1, rs, &out);
    outcome(c, "reduce_scatter_v", st, out, 2, rs[me]);
    if (!c->absent)
        EXPECT(c, p->split == 1 && !memcmp(p->send, rs, sizeof rs),
               "reduce_scatter_v sizes");
    tcomm_tensor_release(in);
    EXPECT(c, tcomm_barrier(c->comm) == TCOMM_SUCCESS,
           "the communicator is usable after: %s", tcomm_last_error());
    EXPECT(c, p->w->calls[me] == (c->absent ? 0 : 4), "slot calls: %d",
           p->w->calls[me]);
}

static void *thread_main(void *arg)
{
    body(arg);
    return NULL;
}

static void run(const tcomm_backend_ops_t *ops, int absent)
{
    trio_world_t w;
    memset(&w, 0, sizeof w);
    pthread_barrier_init(&w.gate, NULL, N);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ctx_t ctx[N];
    trio_t p[N];
    pthread_t th[N];
    for (int r = 0; r < N; r++) {
        p[r] = (trio_t){.w = &w, .rank = r};
        ctx[r] = (ctx_t){.p = &p[r], .rank = r, .absent = absent};
        ck_assert_int_eq(tcomm_comm_create_custom(ops, &p[r], &ctx[r].comm),
                         TCOMM_SUCCESS);
        ck_assert_int_eq(tcomm_graph_create(host, &ctx[r].g), TCOMM_SUCCESS);
    }
    for (int r = 0; r < N; r++)
        pthread_create(&th[r], NULL, thread_main, &ctx[r]);
    for (int r = 0; r < N; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < N; r++) {
        ck_assert_msg(!ctx[r].fail[0], "%s", ctx[r].fail);
        tcomm_comm_destroy(ctx[r].comm);
        tcomm_graph_destroy(ctx[r].g);
    }
    pthread_barrier_destroy(&w.gate);
}

START_TEST(slots_get_the_contract_arguments)
{
    run(&trio_ops, 0);
}
END_TEST

/* Contract 0.1's table: the slots past its size are never read. */
START_TEST(size_zero_table_answers_unsupported)
{
    tcomm_backend_ops_t ops = trio_ops;
    ops.size = 0;
    run(&ops, 1);
}
END_TEST

START_TEST(null_slots_answer_unsupported)
{
    tcomm_backend_ops_t ops = trio_ops;
    ops.all_to_all = NULL;
    ops.all_to_all_v = NULL;
    ops.reduce_scatter_v = NULL;
    run(&ops, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("custom_a2a");
    TCase *tc = tcase_create("trio");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, slots_get_the_contract_arguments);
    tcase_add_test(tc, size_zero_table_answers_unsupported);
    tcase_add_test(tc, null_slots_answer_unsupported);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
