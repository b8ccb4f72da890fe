/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives under mpirun (1-4 ranks), against the
 * independent reference: several requests outstanding on one
 * communicator, waited forward, in reverse, in a permutation and with
 * tcomm_wait_all; blocking calls between the starts and the waits;
 * tcomm_test loops; inputs released after the start; in place; every
 * dtype and op; TCOMM_PROGRESS=caller. Built twice: with
 * MPI_THREAD_MULTIPLE (progress thread) and, as mpi_nonblocking_single
 * (-DNB_MPI_SINGLE), under plain MPI_Init, where every start must
 * complete its collective itself (the caller-mode fallback). The rest
 * is in test/mpi_nonblocking_progress.c. */
#include "mpi_nonblocking.h"

/* The set of collectives kept outstanding together (7 requests). */
#define NSET 7
static void make_set(nb_spec_t set[NSET])
{
    size_t n = (size_t)nranks;
    nb_spec_t s[NSET] = {
        {NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 64, 1000}, /* 256 KB */
        {NB_GATHER, TCOMM_F32, -1, 0, 2, 3},
        {NB_GATHER, TCOMM_I32, -1, 1, 2, 3},
        {NB_SCATTER, TCOMM_F64, TCOMM_MAX, 0, 2 * n, 3},
        {NB_SCATTER, TCOMM_F32, TCOMM_SUM, 1, 2, 3 * n},
        {NB_BCAST, TCOMM_I64, -1, nranks - 1, 3, 5},
        {NB_REDUCE, TCOMM_BF16, TCOMM_MIN, 0, 4, 4},
    };
    memcpy(set, s, sizeof s);
}

/* A blocking all_reduce and broadcast between starts: right values. */
static void blocking_between(tcomm_comm_t *c)
{
    nb_spec_t s = {NB_REDUCE, TCOMM_I32, TCOMM_SUM, 0, 1, 7};
    tcomm_tensor_t *in = nb_input(graph, &s, rank), *out = NULL;
    ok(tcomm_all_reduce(c, in, TCOMM_SUM, &out), "blocking all_reduce");
    nb_check(out, &s, rank, nranks, "blocking all_reduce");
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    nb_spec_t b = {NB_BCAST, TCOMM_F32, -1, 0, 2, 2};
    in = nb_input(graph, &b, rank);
    out = NULL;
    ok(tcomm_broadcast(c, in, 0, &out), "blocking broadcast");
    nb_check(out, &b, rank, nranks, "blocking broadcast");
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    ok(tcomm_barrier(c), "blocking barrier");
}

static const int forward[NSET + 1] = {0, 1, 2, 3, 4, 5, 6, 7};
static const int reverse[NSET + 1] = {7, 6, 5, 4, 3, 2, 1, 0};
static const int permuted[NSET + 1] = {3, 0, 7, 6, 2, 5, 1, 4};

/* Starts the set (and a barrier, request NSET) on c, with blocking
 * calls among the starts and before the waits; waits in order `order`,
 * or with tcomm_wait_all (order NULL); checks every output. */
static void run_set(tcomm_comm_t *c, const int *order, int caller)
{
    nb_spec_t set[NSET];
    tcomm_tensor_t *in[NSET], *out[NSET];
    tcomm_request_t *req[NSET + 2] = {0}; /* [NSET + 1] stays NULL */
    make_set(set);
    for (int i = 0; i < NSET; i++) {
        in[i] = nb_input(graph, &set[i], rank);
        out[i] = nb_output(graph, &set[i], nranks);
        ok(nb_start(c, &set[i], in[i], out[i], &req[i]), "start");
        expect_done_if_caller(req[i], caller);
        if (i == 3)
            blocking_between(c); /* behind the 4 in flight */
    }
    ok(tcomm_barrier_start(c, &req[NSET]), "tcomm_barrier_start");
    blocking_between(c);
    if (order) {
        for (int k = 0; k <= NSET; k++) {
            ok(tcomm_wait(&req[order[k]]), "tcomm_wait");
            if (req[order[k]]) {
                fprintf(stderr, "rank %d: tcomm_wait left *req set\n",
                        rank);
                nb_bad++;
            }
        }
    } else {
        ok(tcomm_wait_all(NSET + 2, req), "tcomm_wait_all");
        for (int k = 0; k < NSET + 2; k++)
            if (req[k]) {
                fprintf(stderr, "rank %d: wait_all left reqs[%d]\n", rank,
                        k);
                nb_bad++;
            }
    }
    for (int i = 0; i < NSET; i++) {
        nb_check(out[i], &set[i], rank, nranks, "request of the set");
        tcomm_tensor_release(out[i]);
        tcomm_tensor_release(in[i]);
    }
}

/* 0 forward, 1 reverse, 2 a permutation, 3 tcomm_wait_all. */
START_TEST(wait_orders)
{
    static const int *orders[4] = {forward, reverse, permuted, NULL};
    run_set(comm, orders[_i], caller_mode);
    agree("wait_orders");
}
END_TEST

/* tcomm_test until done: *req stays set while running, NULL once done. */
START_TEST(test_until_done)
{
    nb_spec_t s[2] = {{NB_REDUCE, TCOMM_F64, TCOMM_PROD, 0, 16, 512},
                      {NB_GATHER, TCOMM_U8, -1, 1, 3, 4}};
    tcomm_tensor_t *in[2], *out[2];
    tcomm_request_t *req[2];
    for (int i = 0; i < 2; i++) {
        in[i] = nb_input(graph, &s[i], rank);
        out[i] = nb_output(graph, &s[i], nranks);
        ok(nb_start(comm, &s[i], in[i], out[i], &req[i]), "start");
    }
    for (int i = 1; i >= 0; i--) { /* the later one first */
        int done = 0;
        while (!done) {
            tcomm_request_t *before = req[i];
            ok(tcomm_test(&req[i], &done), "tcomm_test");
            if (done ? req[i] != NULL : req[i] != before) {
                fprintf(stderr, "rank %d: tcomm_test done %d, *req %p\n",
                        rank, done, (void *)req[i]);
                nb_bad++;
                break;
            }
            if (!done)
                usleep(100);
        }
        nb_check(out[i], &s[i], rank, nranks, "tested request");
    }
    for (int i = 0; i < 2; i++) {
        tcomm_tensor_release(out[i]);
        tcomm_tensor_release(in[i]);
    }
    agree("test_until_done");
}
END_TEST

/* The caller may drop its references right after the start: the
 * request holds in (and out) until it completes. */
START_TEST(release_after_start)
{
    nb_spec_t s[2] = {{NB_REDUCE, TCOMM_I32, TCOMM_SUM, 0, 16, 100},
                      {NB_BCAST, TCOMM_F64, -1, nranks - 1, 4, 50}};
    tcomm_tensor_t *out[2];
    tcomm_request_t *req[2];
    for (int i = 0; i < 2; i++) {
        tcomm_tensor_t *in = nb_input(graph, &s[i], rank);
        out[i] = nb_output(graph, &s[i], nranks);
        ok(nb_start(comm, &s[i], in, out[i], &req[i]), "start");
        tcomm_tensor_release(in); /* the request's reference remains */
    }
    ok(tcomm_wait_all(2, req), "tcomm_wait_all");
    for (int i = 0; i < 2; i++) {
        nb_check(out[i], &s[i], rank, nranks, "released input");
        tcomm_tensor_release(out[i]);
    }
    agree("release_after_start");
}
END_TEST

/* out == in: all_reduce of every op and a broadcast from every root. */
START_TEST(in_place)
{
    tcomm_tensor_t *t[TCOMM_OP_COUNT + 4] = {0};
    nb_spec_t s[TCOMM_OP_COUNT + 4];
    tcomm_request_t *req[TCOMM_OP_COUNT + 4] = {0};
    int n = 0;
    for (int op = 0; op < TCOMM_OP_COUNT; op++, n++) {
        s[n] = (nb_spec_t){NB_REDUCE, TCOMM_F32, op, 0, 5, 7};
        t[n] = nb_input(graph, &s[n], rank);
        ok(nb_start(comm, &s[n], t[n], t[n], &req[n]), "in-place reduce");
    }
    for (int root = 0; root < nranks; root++, n++) {
        s[n] = (nb_spec_t){NB_BCAST, TCOMM_I32, -1, root, 3, 3};
        t[n] = nb_input(graph, &s[n], rank);
        ok(nb_start(comm, &s[n], t[n], t[n], &req[n]), "in-place bcast");
    }
    ok(tcomm_wait_all(n, req), "tcomm_wait_all");
    for (int i = 0; i < n; i++) {
        nb_check(t[i], &s[i], rank, nranks, "in place");
        tcomm_tensor_release(t[i]);
    }
    agree("in_place");
}
END_TEST

/* Every dtype x op (all_reduce, reduce_scatter), every dtype (all_gather
 * along 0 and 1, broadcast): all outstanding, waited in reverse. */
START_TEST(every_dtype_and_op)
{
    enum { MAX = TCOMM_DTYPE_COUNT * (2 * TCOMM_OP_COUNT + 3) };
    nb_spec_t *s = calloc(MAX, sizeof *s);
    tcomm_tensor_t **in = calloc(MAX, sizeof *in);
    tcomm_tensor_t **out = calloc(MAX, sizeof *out);
    tcomm_request_t **req = calloc(MAX, sizeof *req);
    size_t n3 = 3 * (size_t)nranks;
    int n = 0;
    for (int dt = 0; dt < TCOMM_DTYPE_COUNT; dt++) {
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(dt))
                continue;
            s[n++] = (nb_spec_t){NB_REDUCE, dt, op, 0, 3, 11};
            s[n++] = (nb_spec_t){NB_SCATTER, dt, op, op % 2,
                                 op % 2 ? 2 : n3, op % 2 ? n3 : 2};
        }
        s[n++] = (nb_spec_t){NB_GATHER, dt, -1, 0, 2, 5};
        s[n++] = (nb_spec_t){NB_GATHER, dt, -1, 1, 2, 5};
        s[n++] = (nb_spec_t){NB_BCAST, dt, -1, dt % nranks, 4, 3};
    }
    for (int i = 0; i < n; i++) {
        in[i] = nb_input(graph, &s[i], rank);
        out[i] = nb_output(graph, &s[i], nranks);
        ok(nb_start(comm, &s[i], in[i], out[i], &req[i]), "start");
    }
    for (int i = n - 1; i >= 0; i--)
        ok(tcomm_wait(&req[i]), "tcomm_wait");
    for (int i = 0; i < n; i++) {
        nb_check(out[i], &s[i], rank, nranks, "dtype x op");
        tcomm_tensor_release(out[i]);
        tcomm_tensor_release(in[i]);
    }
    free(req);
    free(out);
    free(in);
    free(s);
    agree("every_dtype_and_op");
}
END_TEST
/* TCOMM_PROGRESS=caller: each start completes its collective; the same
 * results, in every wait order. */
START_TEST(progress_caller)
{
    setenv("TCOMM_PROGRESS", "caller", 1);
    tcomm_config_reload();
    tcomm_comm_t *c = NULL;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    run_set(c, forward, 1);
    run_set(c, permuted, 1);
    run_set(c, NULL, 1);
    ck_assert_int_eq(tcomm_comm_destroy(c), TCOMM_SUCCESS);
    unsetenv("TCOMM_PROGRESS");
    tcomm_config_reload();
    agree("progress_caller");
}
END_TEST
static void add(TCase *tc)
{
    tcase_add_loop_test(tc, wait_orders, 0, 4);
    tcase_add_test(tc, test_until_done);
    tcase_add_test(tc, in_place);
    tcase_add_test(tc, release_after_start);
    tcase_add_test(tc, every_dtype_and_op);
    tcase_add_test(tc, progress_caller);
}

int main(int argc, char **argv)
{
    return nb_main(argc, argv, "mpi_nonblocking", add);
}
