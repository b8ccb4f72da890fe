/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI correctness suite, run at 1-4 ranks: every collective x dtype x
 * op x dim x form (allocating, _into, in place), uneven all_gather,
 * empty and 0-d tensors, and the large-count splitting path, each result
 * checked element by element against tests' own reference; the
 * common forms both as small calls completed in the agreement and
 * through the backend's algorithms. */
#include <check.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"
#include "tcomm_mpi.h"
#include "tcomm_mpi_kernels.h"
#include "mpi_suite.h"
#include "tcomm_test_hooks.h"

static tcomm_comm_t *comm;
static tcomm_graph_t *graph, *graph2;
static int rank, nranks;

typedef enum { FORM_ALLOC, FORM_INTO, FORM_INPLACE } form_t;

static size_t prod(int nd, const size_t *s)
{
    size_t p = 1;
    for (int i = 0; i < nd; i++)
        p *= s[i];
    return p;
}

/* A tensor of rank's values for (dtype, op) on g, plus its host copy. */
static tcomm_tensor_t *make_input(tcomm_graph_t *g, tcomm_dtype_t d, int op,
                                  int nd, const size_t *shape, void **host)
{
    size_t n = prod(nd, shape), es = tcomm_dtype_size(d);
    *host = malloc(n * es + 1);
    ref_fill(d, op, rank, *host, n);
    tcomm_tensor_t *t;
    ck_assert_int_eq(tcomm_tensor_from_host(g, d, *host, nd, shape, &t),
                     TCOMM_SUCCESS);
    return t;
}

static void *to_host(const tcomm_tensor_t *t)
{
    size_t bytes = tcomm_tensor_numel(t) * tcomm_dtype_size(
                                               tcomm_tensor_dtype(t));
    void *buf = malloc(bytes + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(t, buf, bytes), TCOMM_SUCCESS);
    return buf;
}

/* The input must be unchanged unless the call was in place. */
static void assert_unchanged(const tcomm_tensor_t *in, const void *host)
{
    void *now = to_host(in);
    size_t bytes = tcomm_tensor_numel(in) *
                   tcomm_dtype_size(tcomm_tensor_dtype(in));
    ck_assert_msg(!memcmp(now, host, bytes), "the input was modified");
    free(now);
}

static void assert_shape(const tcomm_tensor_t *t, int nd, const size_t *s)
{
    ck_assert_int_eq(tcomm_tensor_ndim(t), nd);
    for (int i = 0; i < nd; i++)
        ck_assert_uint_eq(tcomm_tensor_dim(t, i), s[i]);
}

static void all_reduce_case(tcomm_graph_t *g, tcomm_dtype_t d, int op,
                            int nd, const size_t *shape, form_t form)
{
    void *host;
    tcomm_tensor_t *in = make_input(g, d, op, nd, shape, &host), *out;
    size_t n = prod(nd, shape);
    int nan_at = -1; /* MIN/MAX propagate a NaN from the last rank */
    if (ref_is_float(d) && (op == TCOMM_MIN || op == TCOMM_MAX) && n > 1) {
        nan_at = 1;
        if (rank == nranks - 1) {
            ref_store_nan(d, host, 1);
            tcomm_tensor_release(in);
            ck_assert_int_eq(tcomm_tensor_from_host(g, d, host, nd, shape,
                                                    &in),
                             TCOMM_SUCCESS);
        }
    }
    tcomm_status_t st;
    if (form == FORM_ALLOC) {
        st = tcomm_all_reduce(comm, in, (tcomm_op_t)op, &out);
    } else if (form == FORM_INTO) {
        ck_assert_int_eq(tcomm_tensor_empty(g, d, nd, shape, &out),
                         TCOMM_SUCCESS);
        st = tcomm_all_reduce_into(comm, in, (tcomm_op_t)op, out);
    } else {
        out = tcomm_tensor_retain(in);
        st = tcomm_all_reduce_into(comm, in, (tcomm_op_t)op, in);
    }
    ck_assert_msg(st == TCOMM_SUCCESS, "all_reduce %s %s: %s",
                  tcomm_dtype_name(d), tcomm_op_name(op), tcomm_last_error());
    if (form == FORM_ALLOC && nranks == 1)
        ck_assert_ptr_eq(out, in); /* world size 1: zero copy */
    ck_assert_uint_eq(tcomm_tensor_graph_id(out), tcomm_graph_id(g));
    assert_shape(out, nd, shape);
    void *res = to_host(out);
    for (size_t i = 0; i < n; i++) {
        double want = (int)i == nan_at ? NAN : ref_reduce(d, op, nranks, i);
        double got = ref_load(d, res, i);
        ck_assert_msg(ref_match(d, op, got, want),
                      "all_reduce %s %s n=%zu [%zu]: got %g want %g",
                      tcomm_dtype_name(d), tcomm_op_name(op), n, i, got,
                      want);
    }
    if (form != FORM_INPLACE)
        assert_unchanged(in, host);
    free(res);
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static const size_t shape_0d[1] = {0};
static const size_t shape_empty[1] = {0};
static const size_t shape_1d[1] = {13};
static const size_t shape_3d[3] = {3, 4, 2};

START_TEST(all_reduce_every_dtype_op_form)
{
    tcomm_dtype_t d = (tcomm_dtype_t)_i;
    for (int op = 0; op < TCOMM_OP_COUNT; op++) {
        if (op == TCOMM_AVG && !ref_is_float(d))
            continue; /* an argument error: test/mpi_errors.c */
        for (int f = FORM_ALLOC; f <= FORM_INPLACE; f++) {
            all_reduce_case(graph, d, op, 0, shape_0d, (form_t)f);
            all_reduce_case(graph, d, op, 1, shape_empty, (form_t)f);
            all_reduce_case(graph, d, op, 1, shape_1d, (form_t)f);
            all_reduce_case(graph2, d, op, 3, shape_3d, (form_t)f);
        }
    }
}
END_TEST

/* all_gather: rank r's size along dim is base + r (0 on rank 0 when
 * zero_first), so sizes are uneven. */
static void all_gather_case(tcomm_dtype_t d, int nd, const size_t *base,
                            int dim, int zero_first, form_t form)
{
    size_t shape[TCOMM_MAX_DIMS], oshape[TCOMM_MAX_DIMS];
    if (nd) /* base is NULL for a 0-d tensor */
        memcpy(shape, base, (size_t)nd * sizeof *base);
    size_t off = 0, total = 0;
    for (int r = 0; r < nranks; r++) {
        size_t s = nd ? (zero_first && r == 0 ? 0 : base[dim] + (size_t)r)
                      : 1;
        off += r < rank ? s : 0;
        total += s;
    }
    if (nd)
        shape[dim] = zero_first && rank == 0 ? 0 : base[dim] + (size_t)rank;
    int ond = nd ? nd : 1;
    memcpy(oshape, shape, sizeof shape);
    oshape[nd ? dim : 0] = total;
    void *host;
    tcomm_tensor_t *in = make_input(graph, d, -1, nd, shape, &host), *out;
    tcomm_status_t st;
    if (form == FORM_ALLOC) {
        st = tcomm_all_gather(comm, in, dim, &out);
    } else {
        ck_assert_int_eq(tcomm_tensor_empty(graph, d, ond, oshape, &out),
                         TCOMM_SUCCESS);
        st = tcomm_all_gather_into(comm, in, dim, out);
    }
    ck_assert_msg(st == TCOMM_SUCCESS, "all_gather %s dim %d: %s",
                  tcomm_dtype_name(d), dim, tcomm_last_error());
    if (nranks == 1 && form == FORM_ALLOC) {
        ck_assert_ptr_eq(out, in);
    } else {
        assert_shape(out, ond, oshape);
    }
    (void)off;
    /* out viewed as [outer][total][inner]: find the owning rank. */
    size_t outer = prod(nd ? dim : 0, shape);
    size_t inner = nd ? prod(nd - dim - 1, shape + dim + 1) : 1;
    void *res = to_host(out);
    for (size_t o = 0; o < outer; o++) {
        size_t col = 0;
        for (int q = 0; q < nranks; q++) {
            size_t s = nd ? (zero_first && q == 0 ? 0 : base[dim] + (size_t)q)
                          : 1;
            for (size_t j = 0; j < s * inner; j++) {
                size_t oi = (o * total + col) * inner + j;
                double want = ref_value(d, -1, q, o * s * inner + j);
                double got = ref_load(d, res, oi);
                ck_assert_msg(got == want,
                              "all_gather %s dim %d [%zu] from rank %d: "
                              "got %g want %g",
                              tcomm_dtype_name(d), dim, oi, q, got, want);
            }
            col += s;
        }
    }
    assert_unchanged(in, host);
    free(res);
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

START_TEST(all_gather_every_dtype_dim_form)
{
    tcomm_dtype_t d = (tcomm_dtype_t)_i;
    static const size_t b1[1] = {3}, b3[3] = {2, 3, 2};
    for (int f = FORM_ALLOC; f <= FORM_INTO; f++) {
        all_gather_case(d, 0, NULL, 0, 0, (form_t)f);
        all_gather_case(d, 1, b1, 0, 0, (form_t)f);
        all_gather_case(d, 1, b1, 0, 1, (form_t)f);
        for (int dim = 0; dim < 3; dim++) {
            all_gather_case(d, 3, b3, dim, 0, (form_t)f);
            all_gather_case(d, 3, b3, dim, 1, (form_t)f);
        }
    }
}
END_TEST

static void reduce_scatter_case(tcomm_dtype_t d, int op, int nd,
                                const size_t *base, int dim, form_t form)
{
    size_t shape[TCOMM_MAX_DIMS], oshape[TCOMM_MAX_DIMS];
    memcpy(shape, base, (size_t)nd * sizeof *base);
    shape[dim] = base[dim] * (size_t)nranks;
    memcpy(oshape, shape, sizeof shape);
    oshape[dim] = base[dim];
    void *host;
    tcomm_tensor_t *in = make_input(graph, d, op, nd, shape, &host), *out;
    tcomm_status_t st;
    if (form == FORM_ALLOC) {
        st = tcomm_reduce_scatter(comm, in, (tcomm_op_t)op, dim, &out);
    } else {
        ck_assert_int_eq(tcomm_tensor_empty(graph, d, nd, oshape, &out),
                         TCOMM_SUCCESS);
        st = tcomm_reduce_scatter_into(comm, in, (tcomm_op_t)op, dim, out);
    }
    ck_assert_msg(st == TCOMM_SUCCESS, "reduce_scatter %s %s dim %d: %s",
                  tcomm_dtype_name(d), tcomm_op_name(op), dim,
                  tcomm_last_error());
    assert_shape(out, nd, oshape);
    size_t outer = prod(dim, shape), inner = prod(nd - dim - 1,
                                                  shape + dim + 1);
    size_t c = base[dim];
    void *res = to_host(out);
    for (size_t o = 0; o < outer; o++) {
        for (size_t j = 0; j < c * inner; j++) {
            size_t src = (o * nranks * c + (size_t)rank * c) * inner + j;
            double want = ref_reduce(d, op, nranks, src);
            double got = ref_load(d, res, o * c * inner + j);
            ck_assert_msg(ref_match(d, op, got, want),
                          "reduce_scatter %s %s dim %d: got %g want %g",
                          tcomm_dtype_name(d), tcomm_op_name(op), dim, got,
                          want);
        }
    }
    assert_unchanged(in, host);
    free(res);
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

START_TEST(reduce_scatter_every_dtype_op_dim_form)
{
    tcomm_dtype_t d = (tcomm_dtype_t)_i;
    static const size_t b1[1] = {5}, b3[3] = {2, 3, 2}, e2[2] = {0, 2};
    for (int op = 0; op < TCOMM_OP_COUNT; op++) {
        if (op == TCOMM_AVG && !ref_is_float(d))
            continue;
        for (int f = FORM_ALLOC; f <= FORM_INTO; f++) {
            reduce_scatter_case(d, op, 1, b1, 0, (form_t)f);
            reduce_scatter_case(d, op, 2, e2, 1, (form_t)f);
            for (int dim = 0; dim < 3; dim++)
                reduce_scatter_case(d, op, 3, b3, dim, (form_t)f);
        }
    }
}
END_TEST

static void broadcast_case(tcomm_dtype_t d, int nd, const size_t *shape,
                           int root, form_t form)
{
    void *host;
    tcomm_tensor_t *in = make_input(graph, d, -1, nd, shape, &host), *out;
    tcomm_status_t st;
    if (form == FORM_ALLOC) {
        st = tcomm_broadcast(comm, in, root, &out);
    } else if (form == FORM_INTO) {
        ck_assert_int_eq(tcomm_tensor_empty(graph, d, nd, shape, &out),
                         TCOMM_SUCCESS);
        st = tcomm_broadcast_into(comm, in, root, out);
    } else {
        out = tcomm_tensor_retain(in);
        st = tcomm_broadcast_into(comm, in, root, in);
    }
    ck_assert_msg(st == TCOMM_SUCCESS, "broadcast %s root %d: %s",
                  tcomm_dtype_name(d), root, tcomm_last_error());
    assert_shape(out, nd, shape);
    ck_assert_uint_eq(tcomm_tensor_graph_id(out), tcomm_graph_id(graph));
    void *res = to_host(out);
    for (size_t i = 0; i < prod(nd, shape); i++)
        ck_assert_msg(ref_load(d, res, i) == ref_value(d, -1, root, i),
                      "broadcast %s root %d [%zu]", tcomm_dtype_name(d),
                      root, i);
    if (form != FORM_INPLACE)
        assert_unchanged(in, host);
    free(res);
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

START_TEST(broadcast_every_dtype_root_form)
{
    tcomm_dtype_t d = (tcomm_dtype_t)_i;
    static const size_t s2[2] = {3, 5};
    for (int root = 0; root < nranks; root++)
        for (int f = FORM_ALLOC; f <= FORM_INPLACE; f++) {
            broadcast_case(d, 0, shape_0d, root, (form_t)f);
            broadcast_case(d, 1, shape_empty, root, (form_t)f);
            broadcast_case(d, 2, s2, root, (form_t)f);
        }
}
END_TEST

START_TEST(barrier_succeeds)
{
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(tcomm_barrier(comm), TCOMM_SUCCESS);
}
END_TEST

/* With at most 7 elements per MPI call every collective splits into
 * pieces (counts above INT_MAX take the same path). */
START_TEST(large_count_splitting_path)
{
    long saved = tcomm_test_hook(TCOMM_HOOK_COUNT_LIMIT);
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, 7);
    static const size_t big[1] = {101}, b3[3] = {3, 5, 2};
    static const tcomm_dtype_t dts[] = {TCOMM_F32, TCOMM_BF16, TCOMM_I64};
    for (size_t k = 0; k < 3; k++) {
        tcomm_dtype_t d = dts[k];
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(d))
                continue;
            all_reduce_case(graph, d, op, 1, big, FORM_INTO);
            all_reduce_case(graph, d, op, 1, big, FORM_INPLACE);
            reduce_scatter_case(d, op, 1, big, 0, FORM_ALLOC);
            reduce_scatter_case(d, op, 3, b3, 1, FORM_INTO);
        }
        all_gather_case(d, 1, big, 0, 0, FORM_INTO);
        all_gather_case(d, 3, b3, 1, 1, FORM_ALLOC);
        broadcast_case(d, 1, big, nranks - 1, FORM_INTO);
    }
    tcomm_test_set_hook(TCOMM_HOOK_COUNT_LIMIT, saved);
}
END_TEST

START_TEST(info_reports_the_world)
{
    tcomm_comm_info_t info;
    ck_assert_int_eq(tcomm_comm_info(comm, &info), TCOMM_SUCCESS);
    ck_assert_int_eq(info.rank, rank);
    ck_assert_int_eq(info.world_size, nranks);
    ck_assert_str_eq(info.backend, "mpi");
    ck_assert_int_eq(info.cuda_aware, 0);
}
END_TEST

static void no_eager(void)
{
    tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 1);
}

static void eager_again(void)
{
    tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph) != TCOMM_SUCCESS ||
        tcomm_graph_create(host, &graph2) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    Suite *s = suite_create("mpi_collectives");
    TCase *tc = tcase_create("collectives");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, info_reports_the_world);
    tcase_add_loop_test(tc, all_reduce_every_dtype_op_form, 0,
                        TCOMM_DTYPE_COUNT);
    tcase_add_loop_test(tc, all_gather_every_dtype_dim_form, 0,
                        TCOMM_DTYPE_COUNT);
    tcase_add_loop_test(tc, reduce_scatter_every_dtype_op_dim_form, 0,
                        TCOMM_DTYPE_COUNT);
    tcase_add_loop_test(tc, broadcast_every_dtype_root_form, 0,
                        TCOMM_DTYPE_COUNT);
    tcase_add_test(tc, barrier_succeeds);
    tcase_add_test(tc, large_count_splitting_path);
    suite_add_tcase(s, tc);
    /* The same calls through the backend's algorithms: no rank hands its
     * small input over in the agreement (src/frontend/eager.c). */
    TCase *be = tcase_create("backend_paths");
    tcase_set_timeout(be, 0);
    tcase_add_checked_fixture(be, no_eager, eager_again);
    tcase_add_loop_test(be, all_reduce_every_dtype_op_form, 0,
                        TCOMM_DTYPE_COUNT);
    tcase_add_loop_test(be, all_gather_every_dtype_dim_form, 0,
                        TCOMM_DTYPE_COUNT);
    tcase_add_loop_test(be, reduce_scatter_every_dtype_op_dim_form, 0,
                        TCOMM_DTYPE_COUNT);
    tcase_add_loop_test(be, broadcast_every_dtype_root_form, 0,
                        TCOMM_DTYPE_COUNT);
    suite_add_tcase(s, be);
    int any = tcomm_test_run_suite(s, 0);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(graph2);
    tcomm_graph_destroy(graph);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
