/* SPDX-License-Identifier: BSD-3-Clause */
/* Ranks that disagree (run at 2-4 ranks): the last rank differs from the
 * others in shape, dtype, op, dim, root, the collective, or the
 * deterministic mode. Every rank must return TCOMM_ERR_MISMATCH naming
 * the field and the ranks, *out and the inputs must be untouched, and the
 * next valid collective on the same communicator must succeed. */
#include "mpi_safety.h"

static int last(void) { return rank == nranks - 1; }

/* "ranks disagree on FIELD: rank 0 has A, rank LAST has B" on every rank */
static void expect_disagree(tcomm_status_t st, const char *fn,
                            const char *field, const char *a,
                            const char *b)
{
    char want[256];
    snprintf(want, sizeof want, "ranks disagree on %s: rank 0 has %s, "
                                "rank %d has %s",
             field, a, nranks - 1, b);
    expect(st, TCOMM_ERR_MISMATCH, fn, want, (char *)NULL);
}

START_TEST(shape_differs)
{
    size_t s[2] = {4, last() ? 9 : 8};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s), *out = SENTINEL;
    void *snap = snapshot(in);
    tcomm_status_t st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
    expect_disagree(st, "tcomm_all_reduce", "shape", "[4, 8]", "[4, 9]");
    ck_assert_ptr_eq(out, SENTINEL);
    assert_same(in, snap, "the input");
    /* all_gather: sizes along dim may differ, the other dims may not */
    st = tcomm_all_gather(comm, in, 0, &out);
    expect_disagree(st, "tcomm_all_gather", "shape", "[4, 8]", "[4, 9]");
    ck_assert_ptr_eq(out, SENTINEL);
    /* ... and a different ndim */
    tcomm_tensor_t *v = make(graph, TCOMM_F32, last() ? 1 : 2, s);
    st = tcomm_broadcast(comm, v, 0, &out);
    expect_disagree(st, "tcomm_broadcast", "shape", "[4, 8]", "[4]");
    ck_assert_ptr_eq(out, SENTINEL);
    assert_same(in, snap, "the input");
    free(snap);
    tcomm_tensor_release(v);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

START_TEST(dtype_differs)
{
    static const size_t s[1] = {6};
    tcomm_tensor_t *in = make(graph, last() ? TCOMM_F64 : TCOMM_F32, 1, s);
    tcomm_tensor_t *into = make(graph, tcomm_tensor_dtype(in), 1, s);
    void *snap = snapshot(in), *snap_into = snapshot(into);
    tcomm_status_t st = tcomm_all_reduce_into(comm, in, TCOMM_MAX, into);
    expect_disagree(st, "tcomm_all_reduce_into", "dtype", "f32", "f64");
    assert_same(into, snap_into, "out");
    assert_same(in, snap, "the input");
    tcomm_tensor_t *out = SENTINEL;
    st = tcomm_broadcast(comm, in, 0, &out);
    expect_disagree(st, "tcomm_broadcast", "dtype", "f32", "f64");
    ck_assert_ptr_eq(out, SENTINEL);
    free(snap);
    free(snap_into);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

START_TEST(op_differs)
{
    size_t s[1] = {2 * (size_t)nranks};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 1, s), *out = SENTINEL;
    void *snap = snapshot(in);
    tcomm_op_t op = last() ? TCOMM_MAX : TCOMM_SUM;
    tcomm_status_t st = tcomm_all_reduce(comm, in, op, &out);
    expect_disagree(st, "tcomm_all_reduce", "op", "sum", "max");
    ck_assert_ptr_eq(out, SENTINEL);
    st = tcomm_reduce_scatter(comm, in, op, 0, &out);
    expect_disagree(st, "tcomm_reduce_scatter", "op", "sum", "max");
    ck_assert_ptr_eq(out, SENTINEL);
    assert_same(in, snap, "the input");
    free(snap);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

START_TEST(dim_differs)
{
    size_t s[2] = {2 * (size_t)nranks, 2 * (size_t)nranks};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 2, s), *out = SENTINEL;
    void *snap = snapshot(in);
    int dim = last() ? 1 : 0;
    tcomm_status_t st = tcomm_all_gather(comm, in, dim, &out);
    expect_disagree(st, "tcomm_all_gather", "dim", "0", "1");
    ck_assert_ptr_eq(out, SENTINEL);
    st = tcomm_reduce_scatter(comm, in, TCOMM_SUM, dim, &out);
    expect_disagree(st, "tcomm_reduce_scatter", "dim", "0", "1");
    ck_assert_ptr_eq(out, SENTINEL);
    assert_same(in, snap, "the input");
    free(snap);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

START_TEST(root_differs)
{
    static const size_t s[2] = {3, 2};
    tcomm_tensor_t *in = make(graph, TCOMM_I32, 2, s), *out = SENTINEL;
    tcomm_tensor_t *into = make(graph, TCOMM_I32, 2, s);
    void *snap = snapshot(in), *snap_into = snapshot(into);
    tcomm_status_t st = tcomm_broadcast(comm, in, last() ? 1 : 0, &out);
    expect_disagree(st, "tcomm_broadcast", "root", "0", "1");
    ck_assert_ptr_eq(out, SENTINEL);
    st = tcomm_broadcast_into(comm, in, last() ? 1 : 0, into);
    expect_disagree(st, "tcomm_broadcast_into", "root", "0", "1");
    assert_same(into, snap_into, "out");
    /* in place: the buffer is both input and output */
    st = tcomm_broadcast_into(comm, in, last() ? 1 : 0, in);
    expect_disagree(st, "tcomm_broadcast_into", "root", "0", "1");
    assert_same(in, snap, "the input");
    free(snap);
    free(snap_into);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* Rank 0 calls one collective, the others another. */
static tcomm_status_t call_kind(int kind, tcomm_tensor_t *in,
                                tcomm_tensor_t **out)
{
    switch (kind) {
    case 0: return tcomm_all_reduce(comm, in, TCOMM_SUM, out);
    case 1: return tcomm_all_gather(comm, in, 0, out);
    case 2: return tcomm_reduce_scatter(comm, in, TCOMM_SUM, 0, out);
    case 3: return tcomm_broadcast(comm, in, 0, out);
    default: return tcomm_barrier(comm);
    }
}

START_TEST(collective_differs)
{
    static const char *const names[] = {"all_reduce", "all_gather",
                                        "reduce_scatter", "broadcast",
                                        "barrier"};
    size_t s[1] = {2 * (size_t)nranks};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 1, s);
    void *snap = snapshot(in);
    for (int a = 0; a < 5; a++) {
        for (int b = 0; b < 5; b++) {
            if (a == b)
                continue;
            tcomm_tensor_t *out = SENTINEL;
            tcomm_status_t st = call_kind(rank == 0 ? a : b, in, &out);
            char want[128];
            snprintf(want, sizeof want, "ranks disagree on the collective: "
                                        "rank 0 has %s, rank 1 has %s",
                     names[a], names[b]);
            expect(st, TCOMM_ERR_MISMATCH, want, (char *)NULL);
            ck_assert_ptr_eq(out, SENTINEL);
            assert_same(in, snap, "the input");
        }
    }
    free(snap);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* One rank folds in rank order, the others let MPI reduce: the two
 * algorithms do not match, so the ranks must refuse before moving data. */
START_TEST(deterministic_mode_differs)
{
    size_t s[1] = {3 * (size_t)nranks};
    tcomm_tensor_t *in = make(graph, TCOMM_F32, 1, s), *out = SENTINEL;
    void *snap = snapshot(in);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC,
                                         last()),
                     TCOMM_SUCCESS);
    tcomm_status_t st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
    expect_disagree(st, "tcomm_all_reduce", "deterministic mode", "0", "1");
    ck_assert_ptr_eq(out, SENTINEL);
    st = tcomm_reduce_scatter(comm, in, TCOMM_SUM, 0, &out);
    expect_disagree(st, "tcomm_reduce_scatter", "deterministic mode", "0",
                    "1");
    ck_assert_ptr_eq(out, SENTINEL);
    /* collectives without a reduction do not care */
    st = tcomm_broadcast(comm, in, 0, &out);
    ck_assert_msg(st == TCOMM_SUCCESS, "%s", tcomm_last_error());
    tcomm_tensor_release(out);
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0),
                     TCOMM_SUCCESS);
    assert_same(in, snap, "the input");
    free(snap);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

/* Several fields differ at once: the first in the order kind, dtype, op,
 * dim, root, shape is named. */
START_TEST(first_field_is_named)
{
    size_t s[1] = {last() ? 4 : 8};
    tcomm_tensor_t *in = make(graph, last() ? TCOMM_F64 : TCOMM_F32, 1, s);
    tcomm_tensor_t *out = SENTINEL;
    tcomm_status_t st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
    expect_disagree(st, "tcomm_all_reduce", "dtype", "f32", "f64");
    ck_assert_ptr_eq(out, SENTINEL);
    tcomm_tensor_release(in);
    assert_recovers();
}
END_TEST

int main(int argc, char **argv)
{
    safety_setup(&argc, &argv);
    Suite *s = suite_create("mpi_mismatch");
    TCase *tc = tcase_create("mismatch");
    tcase_set_timeout(tc, 0);
    tcase_add_checked_fixture(tc, case_arm, case_disarm);
    if (nranks > 1) {
        tcase_add_test(tc, shape_differs);
        tcase_add_test(tc, dtype_differs);
        tcase_add_test(tc, op_differs);
        tcase_add_test(tc, dim_differs);
        tcase_add_test(tc, root_differs);
        tcase_add_test(tc, collective_differs);
        tcase_add_test(tc, deterministic_mode_differs);
        tcase_add_test(tc, first_field_is_named);
    }
    suite_add_tcase(s, tc);
    return safety_run(s);
}
