/* SPDX-License-Identifier: BSD-3-Clause */
/* A user-defined backend, written against include/tcomm_backend.h and
 * the public API only, as a user outside tcomm would: "pair", two ranks
 * as two threads with a pthread barrier, moving f32 and i32 data (other
 * dtypes: its own TCOMM_ERR_UNSUPPORTED). The tests show that the front
 * end does the rest for it: argument validation and graph affinity
 * before the backend is called, cross-rank agreement over its
 * allgather_bytes, outputs on the input's graph, world size 1 without
 * calling it, and a failed backend call marking the handle unusable. */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "tcomm_backend.h"

/* ---- the backend ---------------------------------------------------- */

typedef struct {
    pthread_barrier_t gate;
    const void *slot[2];
    int calls[2]; /* data collectives that reached the backend */
    int destroyed;
} pair_world_t;

typedef struct {
    pair_world_t *w;
    int rank, size; /* size 1: a loopback world */
} pair_t;

static tcomm_status_t pair_query(void *s, int *rank, int *size, int *cuda)
{
    pair_t *p = s;
    *rank = p->rank;
    *size = p->size;
    *cuda = 0;
    return TCOMM_SUCCESS;
}

/* Show ptr, wait, let fn read the peer's, wait again. */
static const void *pair_show(pair_t *p, const void *ptr)
{
    p->w->slot[p->rank] = ptr;
    pthread_barrier_wait(&p->w->gate);
    return p->w->slot[1 - p->rank];
}

static tcomm_status_t pair_allgather_bytes(void *s, const void *mine,
                                           void *all, size_t bytes)
{
    pair_t *p = s;
    const void *peer = pair_show(p, mine);
    memcpy((char *)all + (size_t)p->rank * bytes, mine, bytes);
    memcpy((char *)all + (size_t)(1 - p->rank) * bytes, peer, bytes);
    pthread_barrier_wait(&p->w->gate);
    return TCOMM_SUCCESS;
}

static tcomm_status_t pair_all_reduce(void *s, const tcomm_tensor_t *in,
                                      tcomm_op_t op, tcomm_tensor_t *out)
{
    pair_t *p = s;
    p->w->calls[p->rank]++;
    tcomm_dtype_t d = tcomm_tensor_dtype(in);
    if ((d != TCOMM_F32 && d != TCOMM_I32) || op != TCOMM_SUM)
        return tcomm_backend_error(TCOMM_ERR_UNSUPPORTED,
                                   "pair: only f32 and i32 sums (use one)");
    size_t n = tcomm_tensor_numel(in);
    float *tmp = malloc(n * 4 + 1);
    const void *peer = pair_show(p, tcomm_tensor_data(in));
    const void *a = p->rank ? peer : tcomm_tensor_data(in);
    const void *b = p->rank ? tcomm_tensor_data(in) : peer;
    for (size_t i = 0; i < n; i++) {
        if (d == TCOMM_F32)
            tmp[i] = ((const float *)a)[i] + ((const float *)b)[i];
        else
            ((int32_t *)tmp)[i] = ((const int32_t *)a)[i] +
                                  ((const int32_t *)b)[i];
    }
    pthread_barrier_wait(&p->w->gate); /* out may be the peer's input */
    memcpy(tcomm_tensor_data(out), tmp, n * 4);
    free(tmp);
    return TCOMM_SUCCESS;
}

static tcomm_status_t pair_all_gather(void *s, const tcomm_tensor_t *in,
                                      int dim, const size_t *sizes,
                                      tcomm_tensor_t *out)
{
    pair_t *p = s;
    p->w->calls[p->rank]++;
    size_t es = tcomm_dtype_size(tcomm_tensor_dtype(in)), outer = 1, inner = es;
    for (int i = 0; i < dim; i++)
        outer *= tcomm_tensor_dim(in, i);
    for (int i = dim + 1; i < tcomm_tensor_ndim(in); i++)
        inner *= tcomm_tensor_dim(in, i);
    const void *src[2];
    src[p->rank] = tcomm_tensor_data(in);
    src[1 - p->rank] = pair_show(p, src[p->rank]);
    char *dst = tcomm_tensor_data(out);
    for (size_t o = 0; o < outer; o++)
        for (int r = 0; r < 2; r++) {
            size_t row = sizes[r] * inner;
            memcpy(dst, (const char *)src[r] + o * row, row);
            dst += row;
        }
    pthread_barrier_wait(&p->w->gate);
    return TCOMM_SUCCESS;
}

static tcomm_status_t pair_unsupported(pair_t *p, const char *what)
{
    p->w->calls[p->rank]++;
    return tcomm_backend_error(TCOMM_ERR_UNSUPPORTED,
                               "pair: no %s (use all_reduce or all_gather)",
                               what);
}

static tcomm_status_t pair_reduce_scatter(void *s, const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          tcomm_tensor_t *out)
{
    return pair_unsupported(s, "reduce_scatter");
}

static tcomm_status_t pair_broadcast(void *s, const tcomm_tensor_t *in,
                                     int root, tcomm_tensor_t *out)
{
    return pair_unsupported(s, "broadcast");
}

static tcomm_status_t pair_barrier(void *s)
{
    pair_t *p = s;
    pthread_barrier_wait(&p->w->gate);
    return TCOMM_SUCCESS;
}

static void pair_destroy(void *s)
{
    pair_t *p = s;
    __atomic_fetch_add(&p->w->destroyed, 1, __ATOMIC_SEQ_CST);
    free(p);
}

static const tcomm_backend_ops_t pair_ops = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "pair",
    .query = pair_query,
    .allgather_bytes = pair_allgather_bytes,
    .all_reduce = pair_all_reduce,
    .all_gather = pair_all_gather,
    .reduce_scatter = pair_reduce_scatter,
    .broadcast = pair_broadcast,
    .barrier = pair_barrier,
    .destroy = pair_destroy,
};

static tcomm_comm_t *pair_comm(pair_world_t *w, int rank, int size)
{
    pair_t *p = calloc(1, sizeof *p);
    *p = (pair_t){.w = w, .rank = rank, .size = size};
    tcomm_comm_t *c = NULL;
    ck_assert_int_eq(tcomm_comm_create_custom(&pair_ops, p, &c),
                     TCOMM_SUCCESS);
    return c;
}

/* ---- the tests ----------------------------------------------------- */

typedef struct {
    tcomm_comm_t *comm;
    tcomm_graph_t *g, *other;
    pair_world_t *w;
    int rank;
    char fail[512];
} ctx_t;

static int expect(ctx_t *c, int ok, int line, const char *fmt, ...)
{
    if (!ok && !c->fail[0]) {
        int k = snprintf(c->fail, sizeof c->fail, "rank %d line %d: ",
                         c->rank, line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fail + k, sizeof c->fail - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return ok;
}
#define EXPECT(c, ok, ...) expect((c), (ok), __LINE__, __VA_ARGS__)

/* [rows, cols] of value base + i, of dtype d (f32, i32 or f64). */
static tcomm_tensor_t *tensor(tcomm_graph_t *g, tcomm_dtype_t d, size_t rows,
                              size_t cols, int base)
{
    double v[64];
    float f[64];
    int32_t k[64];
    for (size_t i = 0; i < rows * cols; i++) {
        v[i] = base + (double)i;
        f[i] = (float)v[i];
        k[i] = base + (int32_t)i;
    }
    const void *src = d == TCOMM_F64 ? (void *)v : d == TCOMM_I32 ? (void *)k
                                                                : (void *)f;
    size_t shape[2] = {rows, cols};
    tcomm_tensor_t *t = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(g, d, src, 2, shape, &t),
                     TCOMM_SUCCESS);
    return t;
}

START_TEST(create_custom_checks_the_vtable)
{
    tcomm_comm_t *c = NULL;
    pair_t bad = {.rank = 3, .size = 2};
    tcomm_backend_ops_t partial = pair_ops, tiny = pair_ops;
    partial.query = NULL;
    tiny.size = offsetof(tcomm_backend_ops_t, name);
    ck_assert_int_eq(tcomm_comm_create_custom(NULL, NULL, &c),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_comm_create_custom(&pair_ops, &bad, NULL),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_int_eq(tcomm_comm_create_custom(&partial, &bad, &c),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "lacks a required"));
    ck_assert_int_eq(tcomm_comm_create_custom(&tiny, &bad, &c),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "too small"));
    ck_assert_int_eq(tcomm_comm_create_custom(&pair_ops, &bad, &c),
                     TCOMM_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "rank 3 of world size"));
    ck_assert_ptr_null(c);
}
END_TEST

START_TEST(loopback_world_never_reaches_the_backend)
{
    pair_world_t w = {0};
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g, *other;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_graph_create(host, &other), TCOMM_SUCCESS);
    tcomm_comm_t *comm = pair_comm(&w, 0, 1);
    tcomm_comm_info_t info;
    ck_assert_int_eq(tcomm_comm_info(comm, &info), TCOMM_SUCCESS);
    ck_assert_str_eq(info.backend, "pair");
    ck_assert_int_eq(info.world_size, 1);
    /* f64 is beyond the backend, but world size 1 is the front end's */
    tcomm_tensor_t *in = tensor(g, TCOMM_F64, 2, 3, 0), *out, *wrong;
    ck_assert_int_eq(tcomm_all_reduce(comm, in, TCOMM_MAX, &out), 0);
    ck_assert_ptr_eq(out, in); /* zero copy */
    tcomm_tensor_release(out);
    wrong = tensor(other, TCOMM_F64, 2, 3, 0);
    ck_assert_int_eq(tcomm_broadcast_into(comm, in, 0, wrong),
                     TCOMM_ERR_GRAPH_MISMATCH);
    ck_assert_int_eq(tcomm_barrier(comm), TCOMM_SUCCESS);
    ck_assert_int_eq(w.calls[0], 0);
    tcomm_tensor_release(wrong);
    tcomm_tensor_release(in);
    ck_assert_int_eq(tcomm_comm_destroy(comm), TCOMM_SUCCESS);
    ck_assert_int_eq(w.destroyed, 1);
    tcomm_graph_destroy(other);
    tcomm_graph_destroy(g);
}
END_TEST

static void pair_body(ctx_t *c)
{
    tcomm_tensor_t *in = tensor(c->g, TCOMM_F32, 2, 3, 10 * c->rank), *out;
    tcomm_status_t st = tcomm_all_reduce(c->comm, in, TCOMM_SUM, &out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "all_reduce: %s", tcomm_last_error())) {
        float got[6];
        tcomm_tensor_to_host(out, got, sizeof got);
        for (int i = 0; i < 6; i++)
            EXPECT(c, got[i] == 10.0f + 2.0f * (float)i, "[%d]", i);
        EXPECT(c, tcomm_tensor_graph(out) == c->g, "out on in's graph");
        tcomm_tensor_release(out);
    }
    /* Local argument errors: each rank's own, no data moves. */
    tcomm_tensor_t *ints = tensor(c->g, TCOMM_I32, 2, 3, 0);
    tcomm_tensor_t *wrong = tensor(c->other, TCOMM_F32, 2, 3, 0);
    EXPECT(c, tcomm_all_gather(c->comm, in, 2, &out) == TCOMM_ERR_INVALID_ARG,
           "dim");
    EXPECT(c, tcomm_all_reduce(c->comm, ints, TCOMM_AVG, &out) ==
                  TCOMM_ERR_DTYPE, "avg");
    EXPECT(c, tcomm_reduce_scatter(c->comm, in, TCOMM_SUM, 1, &out) ==
                  TCOMM_ERR_SHAPE, "divisible");
    EXPECT(c, tcomm_all_reduce_into(c->comm, in, TCOMM_SUM, wrong) ==
                  TCOMM_ERR_GRAPH_MISMATCH, "affinity");
    /* Agreement over the backend's allgather_bytes. */
    tcomm_tensor_t *odd = tensor(c->g, TCOMM_F32, 2, 3 + (size_t)c->rank, 0);
    st = tcomm_all_reduce(c->comm, odd, TCOMM_SUM, &out);
    EXPECT(c, st == TCOMM_ERR_MISMATCH &&
                  strstr(tcomm_last_error(), "disagree on shape"),
           "mismatch: %s", tcomm_last_error());
    EXPECT(c, c->w->calls[c->rank] == 1, "calls %d", c->w->calls[c->rank]);
    /* Uneven all_gather: the front end exchanged the sizes. */
    st = tcomm_all_gather(c->comm, odd, 1, &out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "gather: %s", tcomm_last_error())) {
        float got[14], want[14] = {0, 1, 2, 0, 1, 2, 3, 3, 4, 5, 4, 5, 6, 7};
        EXPECT(c, tcomm_tensor_dim(out, 1) == 7, "cols");
        tcomm_tensor_to_host(out, got, sizeof got);
        EXPECT(c, !memcmp(got, want, sizeof got), "gathered values");
        tcomm_tensor_release(out);
    }
    /* The backend's own error; the handle is unusable afterwards. */
    st = tcomm_broadcast(c->comm, in, 0, &out);
    EXPECT(c, st == TCOMM_ERR_UNSUPPORTED &&
                  !strcmp(tcomm_last_error(), "pair: no broadcast (use "
                                              "all_reduce or all_gather)"),
           "backend error: %s", tcomm_last_error());
    EXPECT(c, tcomm_barrier(c->comm) == TCOMM_ERR_COMM_FAILED, "failed");
    tcomm_tensor_release(odd);
    tcomm_tensor_release(wrong);
    tcomm_tensor_release(ints);
    tcomm_tensor_release(in);
}

static void *pair_thread(void *arg)
{
    ctx_t *c = arg;
    pair_body(c);
    tcomm_comm_destroy(c->comm);
    return NULL;
}

START_TEST(pair_world_gets_the_front_end)
{
    pair_world_t w = {0};
    pthread_barrier_init(&w.gate, NULL, 2);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ctx_t ctx[2];
    pthread_t th[2];
    for (int r = 0; r < 2; r++) {
        ctx[r] = (ctx_t){.comm = pair_comm(&w, r, 2), .w = &w, .rank = r};
        ck_assert_int_eq(tcomm_graph_create(host, &ctx[r].g), 0);
        ck_assert_int_eq(tcomm_graph_create(host, &ctx[r].other), 0);
    }
    for (int r = 0; r < 2; r++)
        pthread_create(&th[r], NULL, pair_thread, &ctx[r]);
    for (int r = 0; r < 2; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < 2; r++) {
        ck_assert_msg(!ctx[r].fail[0], "%s", ctx[r].fail);
        tcomm_graph_destroy(ctx[r].other);
        tcomm_graph_destroy(ctx[r].g);
    }
    ck_assert_int_eq(w.destroyed, 2);
    pthread_barrier_destroy(&w.gate);
}
END_TEST

/* Without allgather_bytes there is no way to learn the other ranks' sizes
 * along dim: all_gather refuses before anything reaches the backend. */
START_TEST(all_gather_needs_allgather_bytes)
{
    tcomm_backend_ops_t ops = pair_ops;
    ops.allgather_bytes = NULL;
    pair_world_t w = {0};
    pair_t *p = calloc(1, sizeof *p);
    *p = (pair_t){.w = &w, .rank = 0, .size = 2};
    tcomm_comm_t *c = NULL;
    tcomm_graph_t *g;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    ck_assert_int_eq(tcomm_comm_create_custom(&ops, p, &c), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    tcomm_tensor_t *in = tensor(g, TCOMM_F32, 2, 3, 0);
    tcomm_tensor_t *out = (tcomm_tensor_t *)&w; /* must stay untouched */
    ck_assert_int_eq(tcomm_all_gather(c, in, 0, &out), TCOMM_ERR_UNSUPPORTED);
    ck_assert_ptr_eq(out, (tcomm_tensor_t *)&w);
    ck_assert_ptr_nonnull(strstr(tcomm_last_error(), "allgather_bytes"));
    tcomm_tensor_release(in);
    tcomm_comm_destroy(c);
    tcomm_graph_destroy(g);
}
END_TEST

/* Slots a table leaves NULL, or that lie past its size: the front end
 * answers TCOMM_ERR_UNSUPPORTED on both ranks before anything reaches
 * the backend, and the communicator stays usable. A barrier needs no
 * slot in checked mode (the agreement is one). */
typedef struct {
    tcomm_comm_t *comm;
    tcomm_graph_t *g;
    int rank;
    char fail[256];
} absent_ctx_t;

static void *absent_thread(void *arg)
{
    absent_ctx_t *a = arg;
    tcomm_tensor_t *in = tensor(a->g, TCOMM_F32, 2, 2, a->rank), *out = NULL;
    tcomm_status_t st = tcomm_broadcast(a->comm, in, 0, &out);
    const char *want = "tcomm_broadcast: backend pair has no broadcast";
    if (st != TCOMM_ERR_UNSUPPORTED || out ||
        strncmp(tcomm_last_error(), want, strlen(want)))
        snprintf(a->fail, sizeof a->fail, "rank %d: broadcast %d: %s",
                 a->rank, st, tcomm_last_error());
    else if ((st = tcomm_barrier(a->comm)) != TCOMM_SUCCESS)
        snprintf(a->fail, sizeof a->fail, "rank %d: checked barrier %d: %s",
                 a->rank, st, tcomm_last_error());
    tcomm_comm_set_attr(a->comm, TCOMM_ATTR_CHECK, 0);
    if (!a->fail[0] && (st = tcomm_barrier(a->comm)) != TCOMM_ERR_UNSUPPORTED)
        snprintf(a->fail, sizeof a->fail, "rank %d: unchecked barrier %d: %s",
                 a->rank, st, tcomm_last_error());
    if (!a->fail[0] &&
        (st = tcomm_all_reduce(a->comm, in, TCOMM_SUM, &out)) != 0)
        snprintf(a->fail, sizeof a->fail, "rank %d: all_reduce after: %s",
                 a->rank, tcomm_last_error());
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    return NULL;
}

START_TEST(absent_slots_answer_unsupported)
{
    /* broadcast left NULL; the table ends before barrier and destroy */
    tcomm_backend_ops_t ops = pair_ops;
    ops.broadcast = NULL;
    ops.size = offsetof(tcomm_backend_ops_t, barrier);
    pair_world_t w = {0};
    pthread_barrier_init(&w.gate, NULL, 2);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    absent_ctx_t a[2];
    pair_t *p[2];
    pthread_t th[2];
    for (int r = 0; r < 2; r++) {
        p[r] = calloc(1, sizeof *p[r]);
        *p[r] = (pair_t){.w = &w, .rank = r, .size = 2};
        a[r] = (absent_ctx_t){.rank = r};
        ck_assert_int_eq(tcomm_comm_create_custom(&ops, p[r], &a[r].comm),
                         TCOMM_SUCCESS);
        ck_assert_int_eq(tcomm_graph_create(host, &a[r].g), TCOMM_SUCCESS);
    }
    for (int r = 0; r < 2; r++)
        pthread_create(&th[r], NULL, absent_thread, &a[r]);
    for (int r = 0; r < 2; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < 2; r++) {
        ck_assert_msg(!a[r].fail[0], "%s", a[r].fail);
        tcomm_comm_destroy(a[r].comm); /* destroy is past the size too */
        tcomm_graph_destroy(a[r].g);
        free(p[r]);
    }
    ck_assert_int_eq(w.destroyed, 0);
    pthread_barrier_destroy(&w.gate);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("custom_backend");
    TCase *tc = tcase_create("pair");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, create_custom_checks_the_vtable);
    tcase_add_test(tc, loopback_world_never_reaches_the_backend);
    tcase_add_test(tc, pair_world_gets_the_front_end);
    tcase_add_test(tc, all_gather_needs_allgather_bytes);
    tcase_add_test(tc, absent_slots_answer_unsupported);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
