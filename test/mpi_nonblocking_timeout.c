/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_TIMEOUT=1 and the nonblocking collectives under mpirun (1-4
 * ranks): requests on a timed communicator work; a rank that starts 4 s
 * late is named by the others' tcomm_wait (also when a blocking call is
 * queued behind the request); the clock runs only while somebody waits,
 * so computing between start and wait is no timeout; TCOMM_CHECK=0 with
 * a timeout still tells the peers of a local error. */
#include "mpi_nonblocking_safety.h"

/* The case's timed communicator: destroyed after the case, pass or
 * fail, and the ranks meet, so that a failed assertion on one rank
 * (a wait that took too long on a loaded machine) cannot leave the
 * others in a collective of the next case. */
static tcomm_comm_t *timed;

static tcomm_comm_t *timed_case(const char *seconds)
{
    timed = timed_comm(seconds);
    return timed;
}

static void timed_teardown(void)
{
    tcomm_comm_destroy(timed);
    timed = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Several requests on a timed communicator, waited out of order. */
START_TEST(requests_with_a_timeout)
{
    tcomm_comm_t *c = timed_case("1");
    size_t n = (size_t)nranks;
    nb_spec_t s[3] = {{NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 8, 64},
                      {NB_GATHER, TCOMM_I32, -1, 1, 2, 3},
                      {NB_SCATTER, TCOMM_F64, TCOMM_MIN, 0, 2 * n, 5}};
    tcomm_tensor_t *in[3], *out[3];
    tcomm_request_t *req[3];
    for (int i = 0; i < 3; i++)
        req[i] = good_start(c, &s[i], &in[i], &out[i]);
    for (int i = 2; i >= 0; i--)
        good_finish(&req[i], &s[i], in[i], out[i]);
}
END_TEST

/* TCOMM_TIMEOUT=1 and the last rank starts only after the others' waits
 * returned (a barrier on MPI_COMM_WORLD holds it, not a sleep, which a
 * loaded machine could outlast): their tcomm_wait returns
 * TCOMM_ERR_TIMEOUT naming it, out untouched; the late rank learns that
 * they gave up. Loop 1: the others first make a
 * blocking barrier, which queues behind the request and so bounds it
 * too (the barrier finds the communicator failed). */
START_TEST(timeout_names_the_late_rank)
{
    tcomm_comm_t *c = timed_case("1");
    int late = nranks - 1;
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *out = make(graph, TCOMM_F32, 2, s24);
    void *snap = snapshot(out);
    tcomm_request_t *r = NULL;
    MPI_Comm early; /* the ranks but the late one */
    MPI_Comm_split(MPI_COMM_WORLD, rank == late ? MPI_UNDEFINED : 0, rank,
                   &early);
    if (rank == late)
        MPI_Barrier(MPI_COMM_WORLD);
    tcomm_status_t st = tcomm_all_reduce_start(c, in, TCOMM_SUM, out, &r);
    double t0 = MPI_Wtime();
    if (_i == 1 && rank != late) /* queued behind the request: a wait */
        expect(tcomm_barrier(c), TCOMM_ERR_COMM_FAILED, (char *)NULL);
    if (st == TCOMM_SUCCESS)
        st = tcomm_wait(&r);
    double dt = MPI_Wtime() - t0;
    if (rank != late) {
        char who[64];
        snprintf(who, sizeof who, "rank %d has not arrived", late);
        expect(st, TCOMM_ERR_TIMEOUT, "tcomm_all_reduce_start",
               "within 1 s", who, (char *)NULL);
        /* Never early: the first rank to give up waited the whole
         * timeout (the others may learn it from that rank sooner than
         * their own clock). The upper limit only catches a hang. */
        double longest;
        MPI_Allreduce(&dt, &longest, 1, MPI_DOUBLE, MPI_MAX, early);
        ck_assert_msg(longest > 0.9 && dt < 20.0,
                      "rank %d waited %.2f s, the longest %.2f s", rank, dt,
                      longest);
        MPI_Comm_free(&early);
        MPI_Barrier(MPI_COMM_WORLD); /* lets the late rank start */
    } else {
        expect(st, TCOMM_ERR_COMM_FAILED, "gave up", (char *)NULL);
    }
    ck_assert_ptr_null(r);
    assert_same(out, snap, "out");
    free(snap);
    expect(tcomm_barrier(c), TCOMM_ERR_COMM_FAILED, (char *)NULL);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    MPI_Barrier(MPI_COMM_WORLD);
    assert_recovers();
}
END_TEST

/* TCOMM_CHECK=0 with TCOMM_TIMEOUT keeps the agreement round on the
 * call's identity: a local error on one rank's start still completes
 * every peer's request with TCOMM_ERR_MISMATCH, and nobody hangs. */
START_TEST(unchecked_timed_local_error)
{
    tcomm_comm_t *c = timed_case("1");
    ck_assert_int_eq(tcomm_comm_set_attr(c, TCOMM_ATTR_CHECK, 0),
                     TCOMM_SUCCESS);
    int bad = nranks - 1, me = rank == bad;
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *out = make(graph, TCOMM_F32, 2, s24);
    void *snap = snapshot(out);
    tcomm_request_t *r = SENTINEL_REQ;
    tcomm_status_t st = tcomm_all_reduce_start(
        c, in, me ? (tcomm_op_t)42 : TCOMM_SUM, out, &r);
    if (me) {
        expect(st, TCOMM_ERR_INVALID_ARG, "op 42 is not", (char *)NULL);
        ck_assert_ptr_null(r);
    } else {
        char want[128];
        snprintf(want, sizeof want, "tcomm_all_reduce_start: rank %d "
                                    "rejected the call", bad);
        expect(st, TCOMM_SUCCESS, (char *)NULL);
        expect(tcomm_wait(&r), TCOMM_ERR_MISMATCH, want, (char *)NULL);
    }
    assert_same(out, snap, "out");
    free(snap);
    nb_spec_t gs = {NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 4, 50};
    tcomm_tensor_t *gin, *gout;
    tcomm_request_t *a = good_start(c, &gs, &gin, &gout);
    good_finish(&a, &gs, gin, gout);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}
END_TEST

/* TCOMM_TIMEOUT=2 bounds the wait, not the computing between start and
 * wait: the ranks but the last start, compute 4 s, then wait; the last
 * starts 3 s late (a clock from the start would have expired at 2 s).
 * Nobody times out. */
START_TEST(timeout_counts_from_the_wait)
{
    tcomm_comm_t *c = timed_case("2");
    nb_spec_t s = {NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 8, 64};
    tcomm_tensor_t *in, *out;
    tcomm_request_t *r;
    int last = rank == nranks - 1;
    if (last)
        sleep(3);
    r = good_start(c, &s, &in, &out);
    if (!last)
        sleep(4); /* computing, no calls into tcomm */
    good_finish(&r, &s, in, out);
    /* the last rank is done 1 s before the others wake: meet first */
    MPI_Barrier(MPI_COMM_WORLD);
    ck_assert_int_eq(tcomm_barrier(c), TCOMM_SUCCESS);
}
END_TEST

static void add(TCase *tc)
{
    tcase_add_checked_fixture(tc, NULL, timed_teardown);
    tcase_add_test(tc, requests_with_a_timeout);
    if (nranks > 1) {
        tcase_add_loop_test(tc, timeout_names_the_late_rank, 0, 2);
        tcase_add_test(tc, timeout_counts_from_the_wait);
        tcase_add_test(tc, unchecked_timed_local_error);
    }
}

int main(int argc, char **argv)
{
    return nb_safety_main(argc, argv, "mpi_nonblocking_timeout", add);
}
