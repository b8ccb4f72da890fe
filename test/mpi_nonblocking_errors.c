/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives' errors under mpirun (1-4 ranks), with
 * MPI_THREAD_MULTIPLE (a progress thread per communicator): a local
 * argument error on one rank (its start returns it, *req NULL; the
 * others' requests complete with TCOMM_ERR_MISMATCH naming it; requests
 * before and after it are fine), also in caller mode; a blocking call
 * queued behind a request failing; a mismatch between ranks; NULL and
 * negative arguments of tcomm_wait/test/wait_all and of the starts;
 * TCOMM_CHECK=0; set_attr and tcomm_comm_destroy with requests in
 * flight. After each failure: out untouched and the next call succeeds.
 * TCOMM_TIMEOUT is in test/mpi_nonblocking_timeout.c. */
#include "mpi_nonblocking_safety.h"

/* One rank (rank 1, or the only one) makes a local error, between two
 * good requests: 0 a bad op, 1 a dim out of range, 2 an out of the wrong
 * shape, 3 a root out of range, 4 a NULL out; 5-9 the same with
 * TCOMM_PROGRESS=caller (each start completes its collective). */
START_TEST(local_error_on_one_rank)
{
    if (_i >= 5) {
        setenv("TCOMM_PROGRESS", "caller", 1);
        tcomm_config_reload();
    }
    int bad = nranks > 2 ? 1 : nranks - 1, me = rank == bad;
    static const size_t s42[2] = {4, 2};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *out = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *wrong = make(graph, TCOMM_F32, 2, s42);
    tcomm_tensor_t *gathered = NULL;
    size_t sg[2] = {2 * (size_t)nranks, 4};
    ck_assert_int_eq(tcomm_tensor_empty(graph, TCOMM_F32, 2, sg, &gathered),
                     TCOMM_SUCCESS);
    void *snap_in = snapshot(in), *snap_out = snapshot(out);
    void *snap_g = snapshot(gathered), *snap_w = snapshot(wrong);
    nb_spec_t gs = {NB_REDUCE, TCOMM_F64, TCOMM_SUM, 0, 3, 5};
    tcomm_tensor_t *gin[2], *gout[2];
    tcomm_request_t *before = good_start(comm, &gs, &gin[0], &gout[0]);

    tcomm_request_t *r = SENTINEL_REQ;
    tcomm_status_t st, want = TCOMM_ERR_INVALID_ARG;
    const char *fn = "tcomm_all_reduce_start";
    char key[160];
    switch (_i % 5) {
    case 0:
        st = tcomm_all_reduce_start(comm, in, me ? (tcomm_op_t)99 : TCOMM_SUM,
                                    out, &r);
        snprintf(key, sizeof key, "op 99 is not a tcomm_op_t");
        break;
    case 1:
        fn = "tcomm_all_gather_start";
        st = tcomm_all_gather_start(comm, in, me ? 5 : 0, gathered, &r);
        snprintf(key, sizeof key, "dim 5 is out of range for a "
                                  "2-dimensional tensor (use 0..1)");
        break;
    case 2:
        st = tcomm_all_reduce_start(comm, in, TCOMM_SUM, me ? wrong : out,
                                    &r);
        want = TCOMM_ERR_SHAPE;
        snprintf(key, sizeof key, "out has shape [4, 2] but the result has "
                                  "shape [2, 4]");
        break;
    case 3:
        fn = "tcomm_broadcast_start";
        st = tcomm_broadcast_start(comm, in, me ? nranks + 2 : 0, out, &r);
        snprintf(key, sizeof key, "root %d is out of range for world size "
                                  "%d", nranks + 2, nranks);
        break;
    default:
        st = tcomm_all_reduce_start(comm, in, TCOMM_SUM, me ? NULL : out, &r);
        snprintf(key, sizeof key, "the output is NULL");
        break;
    }
    if (me) { /* the start says it, and there is no request */
        expect(st, want, fn, key, (char *)NULL);
        ck_assert_ptr_null(r);
    } else {
        expect(st, TCOMM_SUCCESS, (char *)NULL);
        ck_assert_ptr_nonnull(r);
        char quote[256];
        snprintf(quote, sizeof quote, "%s: rank %d rejected the call: %s",
                 fn, bad, key);
        expect(tcomm_wait(&r), TCOMM_ERR_MISMATCH, quote, (char *)NULL);
        ck_assert_ptr_null(r);
    }
    tcomm_request_t *after = good_start(comm, &gs, &gin[1], &gout[1]);
    good_finish(&after, &gs, gin[1], gout[1]); /* the later one first */
    good_finish(&before, &gs, gin[0], gout[0]);
    assert_same(in, snap_in, "in");
    assert_same(out, snap_out, "out");
    assert_same(gathered, snap_g, "out");
    assert_same(wrong, snap_w, "out");
    free(snap_in);
    free(snap_out);
    free(snap_g);
    free(snap_w);
    tcomm_tensor_release(gathered);
    tcomm_tensor_release(wrong);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    assert_recovers();
    unsetenv("TCOMM_PROGRESS");
    tcomm_config_reload();
}
END_TEST

/* A blocking call queued behind a request in flight (on every rank but
 * the last, which starts late) with an error on one rank: the error and
 * its sentence reach the caller's thread, *out stays untouched. */
START_TEST(queued_blocking_call_fails)
{
    int bad = nranks > 2 ? 1 : nranks - 1, me = rank == bad;
    nb_spec_t gs = {NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 4, 50};
    tcomm_tensor_t *gin, *gout, *in = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *out = SENTINEL;
    if (rank == nranks - 1)
        usleep(300000);
    tcomm_request_t *a = good_start(comm, &gs, &gin, &gout);
    tcomm_status_t st = tcomm_all_reduce(
        comm, in, me ? (tcomm_op_t)42 : TCOMM_SUM, &out);
    if (me) {
        expect(st, TCOMM_ERR_INVALID_ARG, "tcomm_all_reduce: op 42 is not",
               (char *)NULL);
    } else {
        char want[128];
        snprintf(want, sizeof want, "tcomm_all_reduce: rank %d rejected the "
                                    "call: op 42 is not", bad);
        expect(st, TCOMM_ERR_MISMATCH, want, (char *)NULL);
    }
    ck_assert_ptr_eq(out, SENTINEL);
    good_finish(&a, &gs, gin, gout);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* Rank 0 starts SUM, the others MAX: every rank's request fails with
 * TCOMM_ERR_MISMATCH; tcomm_wait_all returns it (the first failure in
 * array order, with its sentence) and completes the good ones too. */
START_TEST(mismatch_between_ranks)
{
    nb_spec_t gs = {NB_GATHER, TCOMM_I32, -1, 1, 2, 3};
    tcomm_tensor_t *gin[2], *gout[2];
    tcomm_request_t *req[4] = {0};
    req[0] = good_start(comm, &gs, &gin[0], &gout[0]);
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *out = make(graph, TCOMM_F32, 2, s24);
    void *snap = snapshot(out);
    expect(tcomm_all_reduce_start(comm, in, rank ? TCOMM_MAX : TCOMM_SUM,
                                  out, &req[1]),
           TCOMM_SUCCESS, (char *)NULL);
    req[3] = good_start(comm, &gs, &gin[1], &gout[1]);
    expect(tcomm_wait_all(4, req), TCOMM_ERR_MISMATCH,
           "tcomm_all_reduce_start: ranks disagree on", (char *)NULL);
    for (int i = 0; i < 4; i++)
        ck_assert_ptr_null(req[i]);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(nb_check(gout[i], &gs, rank, nranks, "gather"), 0);
        tcomm_tensor_release(gout[i]);
        tcomm_tensor_release(gin[i]);
    }
    assert_same(out, snap, "out");
    free(snap);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* NULL and negative arguments: TCOMM_ERR_INVALID_ARG with a sentence
 * that names the call and the fix; nothing is started. */
START_TEST(null_arguments)
{
    const tcomm_status_t INV = TCOMM_ERR_INVALID_ARG;
    tcomm_request_t *r = NULL, *reqs[2] = {0};
    int done = 7;
    expect(tcomm_wait(NULL), INV, "tcomm_wait: the request is NULL",
           (char *)NULL);
    expect(tcomm_wait(&r), INV, "tcomm_wait: the request is NULL",
           "a request is completed only once", (char *)NULL);
    expect(tcomm_test(&r, &done), INV, "tcomm_test: the request is NULL",
           (char *)NULL);
    expect(tcomm_test(NULL, &done), INV, "tcomm_test: the request is NULL",
           (char *)NULL);
    ck_assert_int_eq(done, 7); /* untouched */
    expect(tcomm_wait_all(-1, reqs), INV, "tcomm_wait_all: n is negative",
           "pass n >= 0", (char *)NULL);
    expect(tcomm_wait_all(2, NULL), INV, "tcomm_wait_all: reqs is NULL",
           (char *)NULL);
    expect(tcomm_wait_all(0, NULL), TCOMM_SUCCESS, (char *)NULL);
    expect(tcomm_wait_all(2, reqs), TCOMM_SUCCESS, (char *)NULL);
    /* the starts: no req, no comm */
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *out = make(graph, TCOMM_F32, 2, s24);
    expect(tcomm_all_reduce_start(comm, in, TCOMM_SUM, out, NULL), INV,
           "tcomm_all_reduce_start: req is NULL", (char *)NULL);
    expect(tcomm_barrier_start(comm, NULL), INV,
           "tcomm_barrier_start: req is NULL", (char *)NULL);
    r = SENTINEL_REQ;
    expect(tcomm_barrier_start(NULL, &r), INV, "comm is NULL",
           (char *)NULL);
    ck_assert_ptr_null(r);
    r = SENTINEL_REQ;
    expect(tcomm_all_gather_start(NULL, in, 0, out, &r), INV,
           "comm is NULL", (char *)NULL);
    ck_assert_ptr_null(r);
    /* a live request: tcomm_test without done keeps it for tcomm_wait */
    expect(tcomm_barrier_start(comm, &r), TCOMM_SUCCESS, (char *)NULL);
    tcomm_request_t *kept = r;
    expect(tcomm_test(&r, NULL), INV, "tcomm_test: done is NULL",
           "the address of an int", (char *)NULL);
    ck_assert_ptr_eq(r, kept);
    expect(tcomm_wait(&r), TCOMM_SUCCESS, (char *)NULL);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* Several requests in flight, waited out of order: right values. */
static void unchecked_round(void)
{
    size_t n = (size_t)nranks;
    nb_spec_t s[5] = {{NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 16, 100},
                      {NB_GATHER, TCOMM_F16, -1, 0, 2, 3},
                      {NB_SCATTER, TCOMM_I64, TCOMM_PROD, 1, 2, 2 * n},
                      {NB_BCAST, TCOMM_U8, -1, nranks - 1, 3, 3},
                      {NB_REDUCE, TCOMM_F64, TCOMM_AVG, 0, 4, 4}};
    tcomm_tensor_t *in[5], *out[5];
    tcomm_request_t *req[5];
    for (int i = 0; i < 5; i++)
        req[i] = good_start(comm, &s[i], &in[i], &out[i]);
    static const int order[5] = {2, 4, 0, 3, 1};
    for (int k = 0; k < 5; k++)
        good_finish(&req[order[k]], &s[order[k]], in[order[k]],
                    out[order[k]]);
}

/* TCOMM_CHECK=0 (attr): the same results. */
START_TEST(unchecked_results)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 0),
                     TCOMM_SUCCESS);
    unchecked_round();
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 1),
                     TCOMM_SUCCESS);
    assert_recovers();
}
END_TEST

/* tcomm_comm_set_attr with a request in flight applies to the calls
 * started after it, on every rank alike, whenever each rank's progress
 * thread reaches the request: rank 0's thread is inside request A (it
 * started checked) when rank 0 sets TCOMM_CHECK=0; the others set it
 * while their thread is still in the barrier before A. */
START_TEST(set_attr_with_a_request_in_flight)
{
    nb_spec_t s = {NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 8, 64};
    tcomm_tensor_t *in, *out;
    tcomm_request_t *b = NULL, *a;
    if (rank == 0)
        usleep(500000); /* the others' threads wait in the barrier */
    ck_assert_int_eq(tcomm_barrier_start(comm, &b), TCOMM_SUCCESS);
    a = good_start(comm, &s, &in, &out);
    if (rank == 0) {
        expect(tcomm_wait(&b), TCOMM_SUCCESS, (char *)NULL);
        usleep(200000); /* rank 0's thread is now inside A */
    }
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 0),
                     TCOMM_SUCCESS);
    if (b)
        expect(tcomm_wait(&b), TCOMM_SUCCESS, (char *)NULL);
    good_finish(&a, &s, in, out);
    unchecked_round();
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 1),
                     TCOMM_SUCCESS);
    assert_recovers();
}
END_TEST

/* tcomm_comm_destroy with requests in flight completes them: each later
 * tcomm_wait (or tcomm_test) returns success with the right values. */
START_TEST(destroy_completes_requests)
{
    tcomm_comm_t *c = NULL;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    size_t n = (size_t)nranks;
    nb_spec_t s[4] = {{NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 32, 256},
                      {NB_GATHER, TCOMM_F64, -1, 1, 2, 3},
                      {NB_SCATTER, TCOMM_I32, TCOMM_MAX, 0, 2 * n, 3},
                      {NB_BCAST, TCOMM_BF16, -1, 0, 5, 5}};
    tcomm_tensor_t *in[4], *out[4];
    tcomm_request_t *req[5];
    for (int i = 0; i < 4; i++)
        req[i] = good_start(c, &s[i], &in[i], &out[i]);
    ck_assert_int_eq(tcomm_barrier_start(c, &req[4]), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_comm_destroy(c), TCOMM_SUCCESS);
    int done = 0;
    expect(tcomm_test(&req[4], &done), TCOMM_SUCCESS, (char *)NULL);
    ck_assert_int_eq(done, 1);
    ck_assert_ptr_null(req[4]);
    for (int i = 3; i >= 0; i--)
        good_finish(&req[i], &s[i], in[i], out[i]);
}
END_TEST

static void add(TCase *tc)
{
    tcase_add_loop_test(tc, local_error_on_one_rank, 0, 10);
    tcase_add_test(tc, null_arguments);
    tcase_add_test(tc, queued_blocking_call_fails);
    tcase_add_test(tc, unchecked_results);
    tcase_add_test(tc, destroy_completes_requests);
    if (nranks > 1) {
        tcase_add_test(tc, mismatch_between_ranks);
        tcase_add_test(tc, set_attr_with_a_request_in_flight);
    }
}

int main(int argc, char **argv)
{
    return nb_safety_main(argc, argv, "mpi_nonblocking_errors", add);
}
