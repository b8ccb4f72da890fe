/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives on the local backend (ranks as threads of
 * this process, each with its own communicator handle and so its own
 * progress thread): every rank keeps several requests outstanding and
 * waits for them in its own order (rank r rotates the order by r, odd
 * ranks reverse it), with tcomm_test loops, tcomm_wait_all, blocking
 * calls among the starts, in place, and every dtype x op, against the
 * MPI-free reference. Threads count their failures (Check's assertions
 * belong to the main thread) and keep calling, so that a failure never
 * leaves a peer waiting. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nonblocking_ref.h"

#define MAXREQ (TCOMM_DTYPE_COUNT * (2 * TCOMM_OP_COUNT + 3))

typedef struct {
    tcomm_comm_t *comm;
    tcomm_graph_t *graph;
    int rank, nranks;
    long bad; /* the thread's nb_bad when it ended */
} ctx_t;

static void ok(const ctx_t *c, tcomm_status_t st, const char *what)
{
    if (st == TCOMM_SUCCESS)
        return;
    fprintf(stderr, "rank %d: %s: %d %s\n", c->rank, what, st,
            tcomm_last_error());
    nb_bad++;
}

/* The specs of one round: every dtype x op when `all`, else a few. */
static int specs(const ctx_t *c, int all, nb_spec_t *s)
{
    size_t n = (size_t)c->nranks;
    int k = 0;
    for (int dt = 0; dt < TCOMM_DTYPE_COUNT; dt++) {
        if (!all && dt != TCOMM_F32 && dt != TCOMM_I64 && dt != TCOMM_BF16)
            continue;
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if ((op == TCOMM_AVG && !ref_is_float(dt)) || (!all && op > 1))
                continue;
            s[k++] = (nb_spec_t){NB_REDUCE, dt, op, 0, 4, 33};
            s[k++] = (nb_spec_t){NB_SCATTER, dt, op, op % 2,
                                 op % 2 ? 3 : 2 * n, op % 2 ? 2 * n : 3};
        }
        s[k++] = (nb_spec_t){NB_GATHER, dt, -1, dt % 2, 3, 4};
        s[k++] = (nb_spec_t){NB_BCAST, dt, -1, dt % c->nranks, 2, 9};
        s[k++] = (nb_spec_t){NB_GATHER, dt, -1, 1 - dt % 2, 1, 2};
    }
    return k;
}

/* One round: start every spec (in place for the reductions and the
 * broadcasts where `in_place`), a blocking all_reduce halfway, then
 * complete them by `how`: 0 the rank's rotated order, 1 tcomm_test
 * loops, 2 tcomm_wait_all. */
static void round_of(ctx_t *c, int all, int in_place, int how)
{
    nb_spec_t s[MAXREQ];
    tcomm_tensor_t *in[MAXREQ], *out[MAXREQ];
    tcomm_request_t *req[MAXREQ];
    int n = specs(c, all, s);
    for (int i = 0; i < n; i++) {
        in[i] = nb_input(c->graph, &s[i], c->rank);
        int same = in_place && (s[i].kind == NB_REDUCE ||
                                s[i].kind == NB_BCAST);
        out[i] = same ? in[i] : nb_output(c->graph, &s[i], c->nranks);
        req[i] = NULL;
        ok(c, nb_start(c->comm, &s[i], in[i], out[i], &req[i]), "start");
        if (i == n / 2) {
            nb_spec_t b = {NB_REDUCE, TCOMM_F64, TCOMM_MAX, 0, 2, 5};
            tcomm_tensor_t *bi = nb_input(c->graph, &b, c->rank), *bo = NULL;
            ok(c, tcomm_all_reduce(c->comm, bi, TCOMM_MAX, &bo),
               "blocking all_reduce");
            nb_check(bo, &b, c->rank, c->nranks, "blocking all_reduce");
            tcomm_tensor_release(bo);
            tcomm_tensor_release(bi);
        }
    }
    if (how == 2) {
        ok(c, tcomm_wait_all(n, req), "tcomm_wait_all");
    } else {
        for (int k = 0; k < n; k++) {
            int i = (k + c->rank * 7) % n; /* rotated by rank */
            if (c->rank % 2)
                i = n - 1 - i; /* and reversed on odd ranks */
            if (how == 0) {
                ok(c, tcomm_wait(&req[i]), "tcomm_wait");
                continue;
            }
            for (int done = 0; !done;)
                ok(c, tcomm_test(&req[i], &done), "tcomm_test");
        }
    }
    for (int i = 0; i < n; i++) {
        if (req[i]) {
            fprintf(stderr, "rank %d: request %d left set\n", c->rank, i);
            nb_bad++;
        }
        nb_check(out[i], &s[i], c->rank, c->nranks, "local request");
        if (out[i] != in[i])
            tcomm_tensor_release(out[i]);
        tcomm_tensor_release(in[i]);
    }
}

static void *thread_main(void *arg)
{
    ctx_t *c = arg;
    nb_bad = 0;
    for (int how = 0; how < 3; how++)
        round_of(c, 0, how == 1, how);
    round_of(c, 1, 0, 0); /* every dtype x op */
    round_of(c, 1, 1, 2);
    /* requests in flight when the rank destroys its handle complete */
    nb_spec_t s = {NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 16, 64};
    tcomm_tensor_t *in = nb_input(c->graph, &s, c->rank);
    tcomm_tensor_t *out = nb_output(c->graph, &s, c->nranks);
    tcomm_request_t *r = NULL;
    ok(c, tcomm_all_reduce_start(c->comm, in, TCOMM_SUM, out, &r), "start");
    ok(c, tcomm_comm_destroy(c->comm), "tcomm_comm_destroy");
    ok(c, tcomm_wait(&r), "tcomm_wait after destroy");
    nb_check(out, &s, c->rank, c->nranks, "after destroy");
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    c->bad = nb_bad;
    return NULL;
}

START_TEST(ranks_as_threads)
{
    int n = _i;
    tcomm_comm_t *comms[4];
    ctx_t ctx[4];
    pthread_t th[4];
    ck_assert_int_eq(tcomm_comm_create_local(n, comms), TCOMM_SUCCESS);
    for (int r = 0; r < n; r++) {
        tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
        ctx[r] = (ctx_t){.comm = comms[r], .rank = r, .nranks = n};
        ck_assert_int_eq(tcomm_graph_create(host, &ctx[r].graph),
                         TCOMM_SUCCESS);
    }
    for (int r = 0; r < n; r++)
        ck_assert_int_eq(pthread_create(&th[r], NULL, thread_main, &ctx[r]),
                         0);
    for (int r = 0; r < n; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < n; r++) {
        ck_assert_msg(ctx[r].bad == 0, "%d ranks: rank %d: %ld failures "
                                       "(see stderr)", n, r, ctx[r].bad);
        ck_assert_int_eq(tcomm_graph_destroy(ctx[r].graph), TCOMM_SUCCESS);
    }
}
END_TEST

/* World sizes 1 (no progress thread: the start completes it) to 4. */
int main(void)
{
    Suite *s = suite_create("local_nonblocking");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, ranks_as_threads, 1, 5);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
