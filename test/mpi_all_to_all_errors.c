/* SPDX-License-Identifier: BSD-3-Clause */
/* The argument rules of contract 0.2's all_to_all, all_to_all_v and
 * reduce_scatter_v under mpirun (1-4 ranks): errors made alike on every
 * rank (TCOMM_CHECK on and off), an error on one rank only (its own
 * status there, TCOMM_ERR_MISMATCH quoting it elsewhere), ranks that
 * disagree (shape, dims, send_sizes in the transpose mode, sizes) named
 * on every rank, and world size 1's zero-copy answer. After each: *out
 * and the inputs untouched, and the next valid collective succeeds. */
#include "mpi_safety.h"
#include "tcomm_config.h"

static const tcomm_status_t INV = TCOMM_ERR_INVALID_ARG;

/* Errors every rank makes alike, with TCOMM_CHECK = _i. */
START_TEST(same_error_on_every_rank)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, _i),
                     TCOMM_SUCCESS);
    size_t n = (size_t)nranks;
    size_t sodd[2] = {3 * n + 1, 2}, s[2] = {2 * n, 3}, sw[2] = {n, 3};
    tcomm_tensor_t *odd = make(graph, TCOMM_F32, 2, sodd);
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s);
    tcomm_tensor_t *wrong = make(graph, TCOMM_F32, 2, sw);
    tcomm_tensor_t *zero_d = make(graph, TCOMM_F32, 0, s);
    tcomm_tensor_t *other = make(graph2, TCOMM_F32, 2, s);
    void *snap = snapshot(in), *snap_wrong = snapshot(wrong);
    tcomm_tensor_t *out = SENTINEL;
    size_t sizes[4] = {0}, bad_sum[4] = {0};
    for (int r = 0; r < nranks; r++)
        sizes[r] = bad_sum[r] = 2;
    bad_sum[0] = 3; /* adds up to 2n + 1 */

    if (nranks > 1)
        expect(tcomm_all_to_all(comm, odd, 0, 1, &out), TCOMM_ERR_SHAPE,
               "tcomm_all_to_all: size", "along split_dim 0 is not "
               "divisible by the world size", "tcomm_all_to_all_v",
               (char *)NULL);
    expect(tcomm_all_to_all(comm, in, 2, 0, &out), INV,
           "tcomm_all_to_all: split_dim 2 is out of range for a "
           "2-dimensional tensor (use 0..1)", (char *)NULL);
    expect(tcomm_all_to_all(comm, in, 0, -1, &out), INV,
           "concat_dim -1 is out of range", (char *)NULL);
    expect(tcomm_all_to_all(comm, zero_d, 0, 0, &out), TCOMM_ERR_SHAPE,
           "the input is 0-dimensional", (char *)NULL);
    expect(tcomm_all_to_all(comm, in, 0, 0, NULL), INV,
           "tcomm_all_to_all: the output is NULL", (char *)NULL);
    expect(tcomm_all_to_all_v(comm, in, 0, NULL, 0, &out), INV,
           "tcomm_all_to_all_v: send_sizes is NULL", (char *)NULL);
    expect(tcomm_all_to_all_v(comm, in, 0, bad_sum, 1, &out),
           TCOMM_ERR_SHAPE, "send_sizes add up to", (char *)NULL);
    expect(tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 0, NULL, &out), INV,
           "tcomm_reduce_scatter_v: sizes is NULL", (char *)NULL);
    expect(tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 0, bad_sum, &out),
           TCOMM_ERR_SHAPE, "sizes add up to", (char *)NULL);
    expect(tcomm_reduce_scatter_v(comm, in, (tcomm_op_t)42, 0, sizes, &out),
           INV, "op 42 is not a tcomm_op_t", (char *)NULL);
    expect(tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 3, sizes, &out), INV,
           "dim 3 is out of range", (char *)NULL);
    ck_assert_ptr_eq(out, SENTINEL);
    /* _into: the result's shape is [2n / n, 3 n] = [2, 3n] */
    char want[160];
    snprintf(want, sizeof want, "out has shape [%zu, 3] but the result has "
             "shape [2, %zu]", n, 3 * n);
    if (nranks > 1)
        expect(tcomm_all_to_all_into(comm, in, 0, 1, wrong), TCOMM_ERR_SHAPE,
               "tcomm_all_to_all_into", want, (char *)NULL);
    expect(tcomm_all_to_all_into(comm, in, 0, 1, other),
           TCOMM_ERR_GRAPH_MISMATCH, "out is on graph", (char *)NULL);
    if (nranks > 1) /* in place needs split_dim == concat_dim */
        expect(tcomm_all_to_all_into(comm, in, 0, 1, in), TCOMM_ERR_SHAPE,
               "out has shape", (char *)NULL);
    assert_same(in, snap, "the input");
    assert_same(wrong, snap_wrong, "out");
    free(snap);
    free(snap_wrong);
    tcomm_tensor_t *all[] = {odd, in, wrong, zero_d, other};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tcomm_tensor_release(all[i]);
    assert_recovers();
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 1),
                     TCOMM_SUCCESS);
}
END_TEST

START_TEST(error_on_one_rank_only)
{
    int bad = nranks - 1, me_bad = rank == bad;
    size_t n = (size_t)nranks, s[2] = {2 * n, 3};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s), *out = SENTINEL;
    void *snap = snapshot(in);
    size_t sizes[4], bad_sum[4];
    for (int r = 0; r < nranks; r++)
        sizes[r] = bad_sum[r] = 2;
    bad_sum[0] = 1;

    tcomm_status_t st = tcomm_all_to_all(comm, in, me_bad ? 7 : 0, 1, &out);
    expect_one(st, bad, INV, "tcomm_all_to_all",
               "split_dim 7 is out of range for a 2-dimensional tensor");
    st = tcomm_all_to_all(comm, in, 0, me_bad ? 2 : 1, &out);
    expect_one(st, bad, INV, "tcomm_all_to_all", "concat_dim 2 is out");
    st = tcomm_all_to_all_v(comm, in, 0, me_bad ? bad_sum : sizes, 0, &out);
    expect_one(st, bad, TCOMM_ERR_SHAPE, "tcomm_all_to_all_v",
               "send_sizes add up to");
    st = tcomm_all_to_all_v(comm, in, 0, me_bad ? NULL : sizes, 1, &out);
    expect_one(st, bad, INV, "tcomm_all_to_all_v", "send_sizes is NULL");
    st = tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 0,
                                me_bad ? bad_sum : sizes, &out);
    expect_one(st, bad, TCOMM_ERR_SHAPE, "tcomm_reduce_scatter_v",
               "sizes add up to");
    ck_assert_ptr_eq(out, SENTINEL);
    assert_same(in, snap, "the input");
    free(snap);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* Valid on each rank, different across ranks: TCOMM_ERR_MISMATCH on
 * every rank naming the field and the ranks. */
START_TEST(ranks_disagree)
{
    int last = nranks - 1;
    size_t n = (size_t)nranks, s[2] = {2 * n, 3}, s4[2] = {2 * n, 4};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s), *out = SENTINEL;
    tcomm_tensor_t *in4 = make(graph, TCOMM_F32, 2, s4);
    tcomm_tensor_t *mine = rank == last ? in4 : in;
    size_t sizes[4], swapped[4];
    for (int r = 0; r < nranks; r++)
        sizes[r] = swapped[r] = 2;
    swapped[0] = 1; /* the same sum, another split */
    swapped[1] = 3;
    char want[256];

    snprintf(want, sizeof want, "rank 0 has [%zu, 3], rank %d has [%zu, 4]",
             2 * n, last, 2 * n);
    expect(tcomm_all_to_all(comm, mine, 0, 0, &out), TCOMM_ERR_MISMATCH,
           "tcomm_all_to_all: ranks disagree on shape", want, (char *)NULL);
    expect(tcomm_all_to_all(comm, in, 0, rank == last, &out),
           TCOMM_ERR_MISMATCH, "ranks disagree on concat_dim", (char *)NULL);
    size_t sq[2] = {2 * n, 2 * n};
    tcomm_tensor_t *square = make(graph, TCOMM_F32, 2, sq);
    expect(tcomm_all_to_all(comm, square, rank == last, 0, &out),
           TCOMM_ERR_MISMATCH, "ranks disagree on split_dim", (char *)NULL);
    tcomm_tensor_release(square);
    /* the transpose mode needs one send_sizes on every rank */
    snprintf(want, sizeof want, "rank %d has [1, 3", last);
    expect(tcomm_all_to_all_v(comm, in, 0, rank == last ? swapped : sizes, 1,
                              &out),
           TCOMM_ERR_MISMATCH, "ranks disagree on send_sizes: rank 0 has [2, 2",
           want, "transpose", (char *)NULL);
    /* other dims must agree in both modes */
    expect(tcomm_all_to_all_v(comm, mine, 0, sizes, 0, &out),
           TCOMM_ERR_MISMATCH, "ranks disagree on shape", (char *)NULL);
    snprintf(want, sizeof want, "rank %d has [1, 3", last);
    expect(tcomm_reduce_scatter_v(comm, in, TCOMM_SUM, 0,
                                  rank == last ? swapped : sizes, &out),
           TCOMM_ERR_MISMATCH,
           "tcomm_reduce_scatter_v: ranks disagree on sizes: rank 0 has [2, 2",
           want, (char *)NULL);
    expect(tcomm_reduce_scatter_v(comm, in, rank == last ? TCOMM_MAX
                                                         : TCOMM_SUM,
                                  0, sizes, &out),
           TCOMM_ERR_MISMATCH, "ranks disagree on op", (char *)NULL);
    if (rank == 0)
        expect(tcomm_all_to_all(comm, in, 0, 0, &out), TCOMM_ERR_MISMATCH,
               "ranks disagree on the collective", (char *)NULL);
    else
        expect(tcomm_all_reduce(comm, in, TCOMM_SUM, &out),
               TCOMM_ERR_MISMATCH, "ranks disagree on the collective",
               (char *)NULL);
    ck_assert_ptr_eq(out, SENTINEL);
    tcomm_tensor_release(in);
    tcomm_tensor_release(in4);
    assert_recovers();
}
END_TEST

/* TCOMM_CHECK=0 still exchanges all_to_all_v's sizes, so differing
 * send_sizes in the transpose mode are an error on every rank there
 * too. */
START_TEST(unchecked_transpose_sizes)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 0),
                     TCOMM_SUCCESS);
    size_t n = (size_t)nranks, s[2] = {2 * n, 3};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s), *out = SENTINEL;
    size_t sizes[4], swapped[4];
    for (int r = 0; r < nranks; r++)
        sizes[r] = swapped[r] = 2;
    swapped[0] = 1;
    swapped[1] = 3;
    expect(tcomm_all_to_all_v(comm, in, 0, rank == 1 ? swapped : sizes, 1,
                              &out),
           TCOMM_ERR_MISMATCH, "ranks disagree on send_sizes", "rank 1 has",
           (char *)NULL);
    ck_assert_ptr_eq(out, SENTINEL);
    tcomm_tensor_release(in);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 1),
                     TCOMM_SUCCESS);
    assert_recovers();
}
END_TEST

/* TCOMM_CHECK=0 with a timeout: a rank's local error is still an error on
 * every rank (the identity round), and nobody is left waiting. */
START_TEST(unchecked_timed_error_on_one_rank)
{
    tcomm_comm_t *c;
    setenv("TCOMM_TIMEOUT", "10", 1);
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c),
                     TCOMM_SUCCESS);
    unsetenv("TCOMM_TIMEOUT");
    tcomm_config_reload();
    ck_assert_int_eq(tcomm_comm_set_attr(c, TCOMM_ATTR_CHECK, 0),
                     TCOMM_SUCCESS);
    int bad = nranks - 1;
    size_t n = (size_t)nranks, s[2] = {2 * n, 3}, sizes[4];
    for (int r = 0; r < nranks; r++)
        sizes[r] = 2;
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s), *out = SENTINEL;
    expect_one(tcomm_all_to_all_v(c, in, 0, rank == bad ? NULL : sizes, 0,
                                  &out),
               bad, INV, "tcomm_all_to_all_v", "send_sizes is NULL");
    expect_one(tcomm_reduce_scatter_v(c, in, TCOMM_SUM, rank == bad ? 3 : 0,
                                      sizes, &out),
               bad, INV, "tcomm_reduce_scatter_v", "dim 3 is out of range");
    ck_assert_ptr_eq(out, SENTINEL);
    ck_assert_int_eq(tcomm_barrier(c), TCOMM_SUCCESS);
    tcomm_tensor_release(in);
    tcomm_comm_destroy(c);
    assert_recovers();
}
END_TEST

/* World size 1: the input itself, one more reference; _into copies, in
 * place is a no-op. */
START_TEST(single_rank_answers_alone)
{
    tcomm_comm_t *one;
    ck_assert_int_eq(tcomm_comm_create_identity(&one), TCOMM_SUCCESS);
    size_t s[3] = {4, 3, 2}, all[1] = {3}, bad[1] = {2};
    tcomm_tensor_t *in = make(graph, TCOMM_I32, 3, s), *out = NULL;
    tcomm_tensor_t *into = make(graph2, TCOMM_I32, 3, s);
    ck_assert_int_eq(tcomm_all_to_all(one, in, 0, 2, &out), TCOMM_SUCCESS);
    ck_assert_ptr_eq(out, in);
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_all_to_all_v(one, in, 1, all, 2, &out),
                     TCOMM_SUCCESS);
    ck_assert_ptr_eq(out, in);
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_reduce_scatter_v(one, in, TCOMM_MAX, 1, all, &out),
                     TCOMM_SUCCESS);
    ck_assert_ptr_eq(out, in);
    tcomm_tensor_release(out);
    out = SENTINEL;
    expect(tcomm_all_to_all_v(one, in, 1, bad, 2, &out), TCOMM_ERR_SHAPE,
           "send_sizes add up to 2 but the size along split_dim 1 is 3",
           (char *)NULL);
    ck_assert_ptr_eq(out, SENTINEL);
    expect(tcomm_all_to_all_into(one, in, 0, 1, into),
           TCOMM_ERR_GRAPH_MISMATCH, (char *)NULL);
    tcomm_tensor_t *copy = NULL;
    void *snap = snapshot(in);
    int32_t zero[24] = {0};
    ck_assert_int_eq(tcomm_tensor_from_host(graph, TCOMM_I32, zero, 3, s,
                                            &copy),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_all_to_all_into(one, in, 0, 1, copy),
                     TCOMM_SUCCESS);
    assert_same(copy, snap, "the copy");
    ck_assert_int_eq(tcomm_all_to_all_into(one, in, 1, 1, in), TCOMM_SUCCESS);
    assert_same(in, snap, "in place");
    free(snap);
    tcomm_tensor_release(copy);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    tcomm_comm_destroy(one);
}
END_TEST

int main(int argc, char **argv)
{
    safety_setup(&argc, &argv);
    Suite *s = suite_create("mpi_all_to_all_errors");
    TCase *tc = tcase_create("errors");
    tcase_set_timeout(tc, 0);
    tcase_add_checked_fixture(tc, case_arm, case_disarm);
    tcase_add_loop_test(tc, same_error_on_every_rank, 0, 2); /* CHECK 0/1 */
    tcase_add_test(tc, single_rank_answers_alone);
    if (nranks > 1) {
        tcase_add_test(tc, error_on_one_rank_only);
        tcase_add_test(tc, ranks_disagree);
        tcase_add_test(tc, unchecked_transpose_sizes);
        tcase_add_test(tc, unchecked_timed_error_on_one_rank);
    }
    suite_add_tcase(s, tc);
    return safety_run(s);
}
