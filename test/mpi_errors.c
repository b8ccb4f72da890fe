/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument errors under mpirun (1-4 ranks): the same error on every rank
 * (with TCOMM_CHECK on and off), an error on one rank only (that rank
 * gets its own status, the others TCOMM_ERR_MISMATCH quoting it), a
 * non-divisible reduce_scatter, a root out of range, an all_gather_into
 * whose size along dim (or another dim) is wrong, and an MPI failure inside a
 * collective (on a communicator with TCOMM_TIMEOUT). After each: *out and the inputs untouched, and the next
 * valid collective succeeds. */
#include "mpi_safety.h"
#include "tcomm_config.h"
#include "tcomm_test_hooks.h"

static const size_t s24[2] = {2, 4};

/* Every local argument error, made alike on every rank. */
START_TEST(same_error_on_every_rank)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, _i),
                     TCOMM_SUCCESS);
    size_t sn[1] = {(size_t)nranks * 3 + 1}; /* not divisible for n > 1 */
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s24);
    tcomm_tensor_t *ints = make(graph, TCOMM_I32, 2, s24);
    tcomm_tensor_t *odd = make(graph, TCOMM_F32, 1, sn);
    tcomm_tensor_t *other = make(graph2, TCOMM_F32, 2, s24);
    tcomm_tensor_t *f64 = make(graph, TCOMM_F64, 2, s24);
    static const size_t s42[2] = {4, 2};
    tcomm_tensor_t *wrong = make(graph, TCOMM_F32, 2, s42);
    void *snap = snapshot(in), *snap_other = snapshot(other);
    tcomm_tensor_t *out = SENTINEL;
    const tcomm_status_t INV = TCOMM_ERR_INVALID_ARG;

    expect(tcomm_all_reduce(NULL, in, TCOMM_SUM, &out), INV,
           "tcomm_all_reduce", "comm is NULL", (char *)NULL);
    expect(tcomm_barrier(NULL), INV, "comm is NULL", (char *)NULL);
    expect(tcomm_all_reduce(comm, NULL, TCOMM_SUM, &out), INV,
           "tcomm_all_reduce: the input tensor is NULL", (char *)NULL);
    expect(tcomm_all_gather(comm, in, 0, NULL), INV,
           "tcomm_all_gather: the output is NULL", (char *)NULL);
    expect(tcomm_broadcast_into(comm, in, 0, NULL), INV,
           "tcomm_broadcast_into: the output is NULL", (char *)NULL);
    expect(tcomm_all_reduce(comm, in, (tcomm_op_t)99, &out), INV,
           "op 99 is not a tcomm_op_t", (char *)NULL);
    expect(tcomm_reduce_scatter(comm, in, (tcomm_op_t)-1, 0, &out), INV,
           "op -1 is not a tcomm_op_t", (char *)NULL);
    expect(tcomm_all_reduce(comm, ints, TCOMM_AVG, &out), TCOMM_ERR_DTYPE,
           "TCOMM_AVG needs a floating dtype", "i32", (char *)NULL);
    expect(tcomm_all_gather(comm, in, 2, &out), INV,
           "tcomm_all_gather: dim 2 is out of range for a 2-dimensional "
           "tensor (use 0..1)",
           (char *)NULL);
    expect(tcomm_reduce_scatter(comm, in, TCOMM_SUM, -1, &out), INV,
           "dim -1 is out of range", (char *)NULL);
    char want[128];
    snprintf(want, sizeof want, "root %d is out of range for world size %d",
             nranks, nranks);
    expect(tcomm_broadcast(comm, in, nranks, &out), INV, want,
           (char *)NULL);
    expect(tcomm_broadcast(comm, in, -1, &out), INV, "root -1 is out",
           (char *)NULL);
    if (nranks > 1)
        expect(tcomm_reduce_scatter(comm, odd, TCOMM_SUM, 0, &out),
               TCOMM_ERR_SHAPE, "is not divisible by the world size",
               (char *)NULL);
    ck_assert_ptr_eq(out, SENTINEL);
    /* _into: another graph, another shape, another dtype */
    expect(tcomm_all_reduce_into(comm, in, TCOMM_SUM, other),
           TCOMM_ERR_GRAPH_MISMATCH, "tcomm_all_reduce_into: out is on graph",
           (char *)NULL);
    expect(tcomm_broadcast_into(comm, in, 0, wrong), TCOMM_ERR_SHAPE,
           "out has shape [4, 2] but the result has shape [2, 4]",
           (char *)NULL);
    expect(tcomm_all_reduce_into(comm, in, TCOMM_SUM, f64), TCOMM_ERR_DTYPE,
           "out is f64 but the input is f32", (char *)NULL);
    expect(tcomm_reduce_scatter_into(comm, in, TCOMM_SUM, 1, in),
           nranks > 1 ? TCOMM_ERR_SHAPE : TCOMM_SUCCESS, (char *)NULL);
    assert_same(in, snap, "the input");
    assert_same(other, snap_other, "out");
    free(snap);
    free(snap_other);
    tcomm_tensor_t *all[] = {in, ints, odd, other, f64, wrong};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tcomm_tensor_release(all[i]);
    assert_recovers();
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 1),
                     TCOMM_SUCCESS);
}
END_TEST

START_TEST(error_on_one_rank_only)
{
    int bad = nranks - 1 > 1 ? 1 : nranks - 1;
    int me_bad = rank == bad;
    size_t s[2] = {2 * (size_t)nranks, 4};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s), *out = SENTINEL;
    tcomm_tensor_t *ints = make(graph, TCOMM_I64, 2, s);
    void *snap = snapshot(in);

    tcomm_status_t st = tcomm_all_gather(comm, in, me_bad ? 5 : 0, &out);
    expect_one(st, bad, TCOMM_ERR_INVALID_ARG, "tcomm_all_gather",
               "dim 5 is out of range for a 2-dimensional tensor");
    st = tcomm_all_reduce(comm, me_bad ? NULL : in, TCOMM_SUM, &out);
    expect_one(st, bad, TCOMM_ERR_INVALID_ARG, "tcomm_all_reduce",
               "the input tensor is NULL");
    st = tcomm_all_reduce(comm, ints, me_bad ? TCOMM_AVG : TCOMM_SUM, &out);
    expect_one(st, bad, TCOMM_ERR_DTYPE, "tcomm_all_reduce",
               "TCOMM_AVG needs a floating dtype but the tensor is i64");
    st = tcomm_broadcast(comm, in, me_bad ? -3 : 0, &out);
    expect_one(st, bad, TCOMM_ERR_INVALID_ARG, "tcomm_broadcast",
               "root -3 is out of range");
    ck_assert_ptr_eq(out, SENTINEL);
    /* a size that is divisible on every rank but one */
    size_t sb[2] = {me_bad ? 2 * (size_t)nranks + 1 : 2 * (size_t)nranks, 4};
    tcomm_tensor_t *uneven = make(graph, TCOMM_F32, 2, sb);
    st = tcomm_reduce_scatter(comm, uneven, TCOMM_SUM, 0, &out);
    char key[128];
    snprintf(key, sizeof key, "size %zu along dim 0 is not divisible by "
                              "the world size %d",
             2 * (size_t)nranks + 1, nranks);
    expect_one(st, bad, TCOMM_ERR_SHAPE, "tcomm_reduce_scatter", key);
    ck_assert_ptr_eq(out, SENTINEL);
    /* two ranks fail differently: each keeps its own error, the others
     * quote the lowest failing rank */
    if (nranks > 2) {
        st = tcomm_all_gather(comm, rank == 2 ? NULL : in, me_bad ? 7 : 0,
                              &out);
        if (rank == 2)
            expect(st, TCOMM_ERR_INVALID_ARG, "input tensor is NULL",
                   (char *)NULL);
        else
            expect_one(st, bad, TCOMM_ERR_INVALID_ARG, "tcomm_all_gather",
                       "dim 7 is out of range");
    }
    ck_assert_ptr_eq(out, SENTINEL);
    assert_same(in, snap, "the input");
    free(snap);
    tcomm_tensor_release(uneven);
    tcomm_tensor_release(ints);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* all_gather_into whose out is one row short on one rank only. */
START_TEST(gather_into_wrong_size_on_one_rank)
{
    int bad = nranks - 1;
    static const size_t s[2] = {2, 3};
    size_t so[2] = {2 * (size_t)nranks - (rank == bad), 3};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s);
    tcomm_tensor_t *into = make(graph, TCOMM_F32, 2, so);
    void *snap = snapshot(in), *snap_into = snapshot(into);
    tcomm_status_t st = tcomm_all_gather_into(comm, in, 0, into);
    char key[128];
    snprintf(key, sizeof key, "out has size %zu along dim 0 but the ranks' "
                              "sizes add up to %zu",
             2 * (size_t)nranks - 1, 2 * (size_t)nranks);
    expect_one(st, bad, TCOMM_ERR_SHAPE, "tcomm_all_gather_into", key);
    assert_same(in, snap, "the input");
    assert_same(into, snap_into, "out");
    free(snap);
    free(snap_into);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* Every rank whose out is wrong reports its own SHAPE error, not only
 * the first of them; the others name the first wrong rank. */
START_TEST(gather_into_wrong_size_on_several_ranks)
{
    if (nranks < 3)
        return; /* needs two wrong ranks and a right one */
    int wrong = rank >= 1; /* ranks 1.. are one row short */
    static const size_t s[2] = {2, 3};
    size_t so[2] = {2 * (size_t)nranks - (size_t)wrong, 3};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s);
    tcomm_tensor_t *into = make(graph, TCOMM_F32, 2, so);
    tcomm_status_t st = tcomm_all_gather_into(comm, in, 0, into);
    char key[128];
    snprintf(key, sizeof key, "out has size %zu along dim 0 but the ranks' "
                              "sizes add up to %zu",
             2 * (size_t)nranks - 1, 2 * (size_t)nranks);
    expect_one(st, wrong ? rank : 1, TCOMM_ERR_SHAPE,
               "tcomm_all_gather_into", key);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* all_gather_into whose out is wrong in another dim than the gather dim
 * (uneven sizes along dim 0): the message names the real result shape,
 * with the ranks' sizes along dim summed, on the wrong rank(s) and in the
 * quote the others get. Loop 0: every rank wrong; 1: the last rank only. */
START_TEST(gather_into_wrong_other_dim)
{
    size_t total = 0;
    for (int r = 0; r < nranks; r++)
        total += 1 + (size_t)r;
    int bad = nranks - 1, wrong = _i == 0 || rank == bad;
    size_t s[2] = {1 + (size_t)rank, 3}, so[2] = {total, wrong ? 4 : 3};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s);
    tcomm_tensor_t *into = make(graph, TCOMM_F32, 2, so);
    void *snap_into = snapshot(into);
    tcomm_status_t st = tcomm_all_gather_into(comm, in, 0, into);
    char key[160];
    snprintf(key, sizeof key, "out has shape [%zu, 4] but the result has "
                              "shape [%zu, 3] (create out with that shape)",
             total, total);
    if (_i == 0)
        expect(st, TCOMM_ERR_SHAPE, "tcomm_all_gather_into: ", key,
               (char *)NULL);
    else
        expect_one(st, bad, TCOMM_ERR_SHAPE, "tcomm_all_gather_into", key);
    assert_same(into, snap_into, "out");
    free(snap_into);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* TCOMM_CHECK=0 lets mismatched sizes reach MPI: the ranks that receive
 * fewer bytes than the root sends get MPI's truncation error as
 * TCOMM_ERR_MPI, and their communicator then answers
 * TCOMM_ERR_COMM_FAILED instead of hanging. */
START_TEST(mpi_failure_inside_a_collective)
{
    tcomm_comm_t *c;
    /* with a timeout layer too: destroying a communicator that failed on
     * some ranks only must not wait for the others */
    setenv("TCOMM_TIMEOUT", "30", 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    unsetenv("TCOMM_TIMEOUT");
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_set_attr(c, TCOMM_ATTR_CHECK, 0),
                     TCOMM_SUCCESS);
    /* the timeout's round would catch the shapes: let them through */
    tcomm_test_set_hook(TCOMM_HOOK_IDENTITY_ONLY, 1);
    size_t s[1] = {rank == 0 ? 64 : 8};
    tcomm_tensor_t *in = make(graph, TCOMM_F64, 1, s), *out = SENTINEL;
    tcomm_status_t st = tcomm_broadcast(c, in, 0, &out);
    tcomm_test_set_hook(TCOMM_HOOK_IDENTITY_ONLY, 0);
    if (rank == 1) /* rank 1 receives from the root in every algorithm */
        ck_assert_msg(st == TCOMM_ERR_MPI, "rank 1: %d %s", st,
                      tcomm_last_error());
    if (st != TCOMM_SUCCESS) {
        expect(st, TCOMM_ERR_MPI, "failed", "truncated", /* any MPI */
               (char *)NULL);
        ck_assert_ptr_eq(out, SENTINEL);
        expect(tcomm_barrier(c), TCOMM_ERR_COMM_FAILED,
               "tcomm_barrier: the communicator failed earlier",
               (char *)NULL);
    } else {
        tcomm_tensor_release(out);
    }
    tcomm_tensor_release(in);
    tcomm_comm_destroy(c);
    MPI_Barrier(MPI_COMM_WORLD);
    assert_recovers(); /* the suite's own communicator is fine */
}
END_TEST

int main(int argc, char **argv)
{
    safety_setup(&argc, &argv);
    Suite *s = suite_create("mpi_errors");
    TCase *tc = tcase_create("errors");
    tcase_set_timeout(tc, 0);
    tcase_add_checked_fixture(tc, case_arm, case_disarm);
    tcase_add_loop_test(tc, same_error_on_every_rank, 0, 2); /* CHECK 0/1 */
    tcase_add_loop_test(tc, gather_into_wrong_other_dim, 0, nranks > 1 ? 2 : 1);
    if (nranks > 1) {
        tcase_add_test(tc, error_on_one_rank_only);
        tcase_add_test(tc, gather_into_wrong_size_on_one_rank);
        tcase_add_test(tc, gather_into_wrong_size_on_several_ranks);
    }
    if (nranks == 2)
        tcase_add_test(tc, mpi_failure_inside_a_collective);
    suite_add_tcase(s, tc);
    return safety_run(s);
}
