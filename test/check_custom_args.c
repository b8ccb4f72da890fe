/* SPDX-License-Identifier: BSD-3-Clause */
/* The vtable's `collective` slot (tcomm_coll_args_t) and the tables
 * built before it, written against include/tcomm_backend.h and the
 * public API only: "trio", three ranks as three threads.
 * - A table laid out as libtcomm 1:0:0's header had it (no `collective`
 *   slot; its size says so) still loads and gets its own slots called:
 *   what lies past its end is never read (a trap there fails the test).
 * - A table with only `collective` gets every collective through it, with
 *   every argument and what the front end exchanged: all_to_all_v's
 *   table of every rank's sizes and its extent, which only the MPI
 *   backend could see before.
 * - `collective` answering TCOMM_ERR_UNSUPPORTED refuses the call on
 *   every rank and leaves the communicator usable.
 * - reduce, which has no slot of its own, runs through the old table's
 *   all_reduce, and is refused by a collective slot that lacks it. */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_backend.h"

enum { N = 3, LEN = 5 };

typedef struct {
    pthread_barrier_t gate;
    const void *slot[N];
    int trapped; /* a read past an old table's end */
} trio_world_t;

typedef struct {
    trio_world_t *w;
    int rank;
    int calls;             /* backend collectives called on this rank */
    tcomm_coll_args_t got; /* the last args, pointers copied below */
    size_t recv[N];
    int64_t table[N * (N + 1)];
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

/* A real f32 sum over the three ranks, so that results can be checked. */
static tcomm_status_t trio_sum(trio_t *p, const tcomm_tensor_t *in,
                               tcomm_tensor_t *out)
{
    size_t n = tcomm_tensor_numel(in);
    float sum[64] = {0};
    p->calls++;
    p->w->slot[p->rank] = tcomm_tensor_data(in);
    pthread_barrier_wait(&p->w->gate);
    for (int r = 0; r < N; r++)
        for (size_t i = 0; i < n && i < 64; i++)
            sum[i] += ((const float *)p->w->slot[r])[i];
    pthread_barrier_wait(&p->w->gate); /* everyone read: out may be in */
    memcpy(tcomm_tensor_data(out), sum, n * sizeof(float));
    return TCOMM_SUCCESS;
}

static tcomm_status_t old_all_reduce(void *s, const tcomm_tensor_t *in,
                                     tcomm_op_t op, tcomm_tensor_t *out)
{
    (void)op;
    return trio_sum(s, in, out);
}

static tcomm_status_t old_all_to_all_v(void *s, const tcomm_tensor_t *in,
                                       int split, const size_t *send,
                                       int concat, const size_t *recv,
                                       tcomm_tensor_t *out)
{
    trio_t *p = s;
    (void)in, (void)split, (void)send, (void)concat, (void)out;
    p->calls++;
    memcpy(p->recv, recv, sizeof p->recv);
    return TCOMM_SUCCESS;
}

/* tcomm_backend_ops_t as libtcomm 1:0:0's header laid it out. */
typedef struct {
    size_t size;
    const char *name;
    tcomm_status_t (*query)(void *, int *, int *, int *);
    tcomm_status_t (*allgather_bytes)(void *, const void *, void *, size_t);
    void (*allreduce_min_i64)(void);
    tcomm_status_t (*all_reduce)(void *, const tcomm_tensor_t *, tcomm_op_t,
                                 tcomm_tensor_t *);
    void (*all_gather)(void), (*reduce_scatter)(void), (*broadcast)(void);
    void (*barrier)(void), (*destroy)(void), (*all_to_all)(void);
    tcomm_status_t (*all_to_all_v)(void *, const tcomm_tensor_t *, int,
                                   const size_t *, int, const size_t *,
                                   tcomm_tensor_t *);
    void (*reduce_scatter_v)(void), (*allreduce_min_i64_carry)(void);
} ops_1_0_0_t;

static tcomm_status_t trap(void *s, const tcomm_coll_args_t *a)
{
    (void)a;
    ((trio_t *)s)->w->trapped = 1;
    return TCOMM_ERR_INTERNAL;
}

/* The old table, and where a newer header's slots would be: traps. */
static struct {
    ops_1_0_0_t ops;
    tcomm_status_t (*beyond[4])(void *, const tcomm_coll_args_t *);
} old_table = {
    {.size = sizeof(ops_1_0_0_t),
     .name = "trio_1_0_0",
     .query = trio_query,
     .allgather_bytes = trio_allgather_bytes,
     .all_reduce = old_all_reduce,
     .all_to_all_v = old_all_to_all_v},
    {trap, trap, trap, trap},
};

/* The one slot: all_reduce sums, all_to_all_v records, the rest is not
 * there. */
static tcomm_status_t new_collective(void *s, const tcomm_coll_args_t *a)
{
    trio_t *p = s;
    p->got = *a;
    if (a->coll == TCOMM_COLL_ALL_REDUCE)
        return trio_sum(p, a->in, a->out);
    if (a->coll != TCOMM_COLL_ALL_TO_ALL_V)
        return tcomm_backend_error(TCOMM_ERR_UNSUPPORTED,
                                   "trio_new has no collective %d",
                                   (int)a->coll);
    p->calls++;
    memcpy(p->recv, a->recv_sizes, sizeof p->recv);
    if (a->size_table)
        memcpy(p->table, a->size_table, sizeof p->table);
    return TCOMM_SUCCESS;
}

static const tcomm_backend_ops_t new_table = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "trio_new",
    .query = trio_query,
    .allgather_bytes = trio_allgather_bytes,
    .collective = new_collective,
};

typedef struct {
    tcomm_comm_t *comm;
    tcomm_graph_t *g;
    trio_t *p;
    int rank, is_new;
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

/* all_reduce SUM of rank r's [r * 10 + i]: 30 + 3 i everywhere. */
static void check_all_reduce(ctx_t *c)
{
    float v[LEN];
    for (int i = 0; i < LEN; i++)
        v[i] = (float)(c->rank * 10 + i);
    size_t shape[1] = {LEN};
    tcomm_tensor_t *in = NULL, *out = NULL;
    EXPECT(c, tcomm_tensor_from_host(c->g, TCOMM_F32, v, 1, shape, &in) == 0,
           "from_host: %s", tcomm_last_error());
    tcomm_status_t st = tcomm_all_reduce(c->comm, in, TCOMM_SUM, &out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "all_reduce: %s", tcomm_last_error())) {
        const float *o = tcomm_tensor_data(out);
        for (int i = 0; i < LEN; i++)
            EXPECT(c, o[i] == (float)(30 + 3 * i), "sum[%d] = %g", i,
                   (double)o[i]);
    }
    if (c->is_new)
        EXPECT(c,
               c->p->got.coll == TCOMM_COLL_ALL_REDUCE &&
                   c->p->got.op == TCOMM_SUM && c->p->got.in == in &&
                   c->p->got.out == out &&
                   c->p->got.size == sizeof(tcomm_coll_args_t),
               "all_reduce args");
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
}

/* Token mode: rank r sends (r + j) % 3 rows to rank j. */
static void check_all_to_all_v(ctx_t *c)
{
    int me = c->rank;
    size_t send[N], total = 0, want[N], shape[2] = {0, 2};
    for (int j = 0; j < N; j++) {
        send[j] = (size_t)(me + j) % 3;
        total += send[j];
        want[j] = (size_t)(j + me) % 3; /* what rank j sends us */
    }
    shape[0] = total;
    tcomm_tensor_t *in = NULL, *out = NULL;
    EXPECT(c, tcomm_tensor_empty(c->g, TCOMM_F32, 2, shape, &in) == 0,
           "empty: %s", tcomm_last_error());
    tcomm_status_t st = tcomm_all_to_all_v(c->comm, in, 0, send, 0, &out);
    EXPECT(c, st == TCOMM_SUCCESS, "all_to_all_v: %s", tcomm_last_error());
    EXPECT(c, !memcmp(c->p->recv, want, sizeof want),
           "recv sizes %zu %zu %zu", c->p->recv[0], c->p->recv[1],
           c->p->recv[2]);
    if (c->is_new) {
        /* row r: rank r's size along concat_dim (its total, 3), then its
         * send_sizes; every rank's input and output have 3 rows */
        int ok = c->p->got.size_table != NULL && c->p->got.extent_max == 3 &&
                 c->p->got.dim == 0 && c->p->got.concat_dim == 0;
        for (int r = 0; r < N && ok; r++) {
            ok &= c->p->table[r * (N + 1)] == 3;
            for (int j = 0; j < N; j++)
                ok &= c->p->table[r * (N + 1) + 1 + j] == (r + j) % 3;
        }
        EXPECT(c, ok, "all_to_all_v's table and extent (%zu)",
               c->p->got.extent_max);
    }
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
}

/* reduce to rank 1 of rank r's [r * 10 + i]: 30 + 3 i there, out NULL
 * elsewhere. The old table has no collective slot: its all_reduce runs
 * it (into a scratch output off the root); the new one's collective
 * slot does not know it: refused on every rank, naming the call. */
static void check_reduce(ctx_t *c)
{
    float v[LEN], r[LEN];
    for (int i = 0; i < LEN; i++)
        v[i] = (float)(c->rank * 10 + i), r[i] = -1;
    size_t shape[1] = {LEN};
    tcomm_tensor_t *in = NULL, *out = NULL;
    EXPECT(c, tcomm_tensor_from_host(c->g, TCOMM_F32, v, 1, shape, &in) == 0,
           "from_host: %s", tcomm_last_error());
    if (c->rank == 1)
        EXPECT(c,
               tcomm_tensor_from_host(c->g, TCOMM_F32, r, 1, shape, &out) == 0,
               "from_host: %s", tcomm_last_error());
    tcomm_status_t st = tcomm_reduce_into(c->comm, in, TCOMM_SUM, 1, out);
    if (c->is_new) {
        EXPECT(c,
               st == TCOMM_ERR_UNSUPPORTED &&
                   strstr(tcomm_last_error(), "tcomm_reduce_into") &&
                   c->p->got.coll == TCOMM_COLL_REDUCE &&
                   c->p->got.root == 1 && c->p->got.out == out,
               "reduce: %d %s", st, tcomm_last_error());
        if (out)
            EXPECT(c, ((const float *)tcomm_tensor_data(out))[0] == -1,
                   "reduce wrote out though refused");
    } else if (EXPECT(c, st == TCOMM_SUCCESS, "reduce: %s",
                      tcomm_last_error()) &&
               out) {
        const float *o = tcomm_tensor_data(out);
        for (int i = 0; i < LEN; i++)
            EXPECT(c, o[i] == (float)(30 + 3 * i), "reduce[%d] = %g", i,
                   (double)o[i]);
    }
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
}

static void body(ctx_t *c)
{
    check_all_reduce(c);
    check_all_to_all_v(c);
    check_reduce(c);
    /* a collective neither table has: refused alike, no data moved */
    size_t shape[1] = {N};
    tcomm_tensor_t *in = NULL, *out = NULL;
    EXPECT(c, tcomm_tensor_empty(c->g, TCOMM_F32, 1, shape, &in) == 0,
           "empty: %s", tcomm_last_error());
    tcomm_status_t st = tcomm_broadcast(c->comm, in, 0, &out);
    EXPECT(c,
           st == TCOMM_ERR_UNSUPPORTED && !out &&
               strstr(tcomm_last_error(), "tcomm_broadcast"),
           "broadcast: %d %s", st, tcomm_last_error());
    tcomm_tensor_release(in);
    EXPECT(c, tcomm_barrier(c->comm) == TCOMM_SUCCESS,
           "the communicator is usable after: %s", tcomm_last_error());
    EXPECT(c, c->p->calls == (c->is_new ? 2 : 3), "backend calls: %d",
           c->p->calls);
}

static void *thread_main(void *arg)
{
    body(arg);
    return NULL;
}

static void run(const tcomm_backend_ops_t *ops, int is_new)
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
        ctx[r] = (ctx_t){.p = &p[r], .rank = r, .is_new = is_new};
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
    ck_assert_msg(!w.trapped, "a slot past the old table's end was called");
    pthread_barrier_destroy(&w.gate);
}

START_TEST(table_of_1_0_0_loads_and_runs)
{
    run((const tcomm_backend_ops_t *)&old_table.ops, 0);
}
END_TEST

START_TEST(collective_slot_gets_every_argument)
{
    run(&new_table, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("custom_args");
    TCase *tc = tcase_create("trio");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, table_of_1_0_0_loads_and_runs);
    tcase_add_test(tc, collective_slot_gets_every_argument);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
