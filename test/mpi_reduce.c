/* SPDX-License-Identifier: BSD-3-Clause */
/* tcomm_reduce_into (MPI_Reduce's semantics) at 1-4 ranks, against the
 * tests' own reference (test/mpi_reference.c): every dtype and op, every
 * root, into a separate out, in place, with out NULL or a tensor off the
 * root (which must stay as it was); small calls (carried by the
 * agreement) and large ones (the single copies on one node, and
 * MPI_Reduce through TCOMM_TUNE), deterministic
 * mode, sim device tensors, tcomm_reduce_start; and the errors: a root
 * out of range, out NULL on the root, roots or ops that differ, each on
 * every rank, with nobody hanging. */
#include <check.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"
#include "mpi_suite.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_sim.h"

static tcomm_comm_t *comm;
/* TCOMM_TUNE=reduce:0-:mpi_reduce: MPI_Reduce at every size, where comm
 * takes the single copies from 4 KiB on one node */
static tcomm_comm_t *comm_mpi_reduce;
static tcomm_graph_t *host_graph, *sim_graph;
static int rank, nranks;

enum { FORM_INTO, FORM_INPLACE, FORM_NULL_ELSEWHERE, FORM_START };

/* A tensor of rank's values for (dtype, op), its host copy in *host. */
static tcomm_tensor_t *input(tcomm_graph_t *g, tcomm_dtype_t d, int op,
                             size_t n, void **host)
{
    size_t es = tcomm_dtype_size(d), shape[1] = {n};
    *host = malloc(n * es + 1);
    ref_fill(d, op, rank, *host, n);
    tcomm_tensor_t *t = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(g, d, *host, 1, shape, &t),
                     TCOMM_SUCCESS);
    return t;
}

static void *to_host(const tcomm_tensor_t *t, size_t bytes)
{
    void *buf = malloc(bytes + 1);
    ck_assert_int_eq(tcomm_tensor_to_host(t, buf, bytes), TCOMM_SUCCESS);
    return buf;
}

/* One reduce of n elements to root; checks the root's result and that
 * nothing else changed. */
static void reduce_case(tcomm_graph_t *g, tcomm_dtype_t d, int op, size_t n,
                        int root, int form)
{
    size_t es = tcomm_dtype_size(d), bytes = n * es, shape[1] = {n};
    void *host;
    tcomm_tensor_t *in = input(g, d, op, n, &host), *out = NULL;
    unsigned char *mark = malloc(bytes + 1);
    memset(mark, 0x5a, bytes + 1);
    int here = rank == root;
    if (form == FORM_INPLACE && here)
        out = tcomm_tensor_retain(in);
    else if (here || form != FORM_NULL_ELSEWHERE)
        ck_assert_int_eq(tcomm_tensor_from_host(g, d, mark, 1, shape, &out),
                         TCOMM_SUCCESS);
    tcomm_status_t st;
    if (form == FORM_START) {
        tcomm_request_t *req = NULL;
        st = tcomm_reduce_start(comm, in, (tcomm_op_t)op, root, out, &req);
        if (st == TCOMM_SUCCESS)
            st = tcomm_wait(&req);
    } else {
        st = tcomm_reduce_into(comm, in, (tcomm_op_t)op, root,
                               form == FORM_INPLACE && here ? in : out);
    }
    ck_assert_msg(st == TCOMM_SUCCESS, "reduce %s %s n=%zu root %d: %s",
                  tcomm_dtype_name(d), tcomm_op_name(op), n, root,
                  tcomm_last_error());
    void *res = out ? to_host(out, bytes) : NULL;
    for (size_t i = 0; here && i < n; i++) {
        double want = ref_reduce(d, op, nranks, i);
        double got = ref_load(d, res, i);
        ck_assert_msg(ref_match(d, op, got, want),
                      "reduce %s %s n=%zu root %d [%zu]: got %g want %g",
                      tcomm_dtype_name(d), tcomm_op_name(op), n, root, i,
                      got, want);
    }
    if (!here && res) /* off the root, out is not written */
        ck_assert_msg(!memcmp(res, mark, bytes),
                      "reduce changed out on rank %d (root %d)", rank, root);
    if (!(form == FORM_INPLACE && here)) {
        void *now = to_host(in, bytes);
        ck_assert_msg(!memcmp(now, host, bytes), "the input was modified");
        free(now);
    }
    free(res);
    free(mark);
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* 5 elements: carried by the agreement; 3000: MPI_Reduce, or the
 * device path on sim. */
START_TEST(every_dtype_op_root_form)
{
    tcomm_dtype_t d = (tcomm_dtype_t)_i;
    for (int op = 0; op < TCOMM_OP_COUNT; op++) {
        if (op == TCOMM_AVG && !ref_is_float(d))
            continue; /* an argument error, below */
        for (int root = 0; root < nranks; root++)
            for (int form = FORM_INTO; form <= FORM_START; form++) {
                reduce_case(host_graph, d, op, 5, root, form);
                reduce_case(host_graph, d, op, 3000, root, form);
            }
        tcomm_comm_t *keep = comm;
        comm = comm_mpi_reduce;
        reduce_case(host_graph, d, op, 3000, 0, FORM_INTO);
        reduce_case(host_graph, d, op, 3000, nranks - 1, FORM_INPLACE);
        comm = keep;
        reduce_case(sim_graph, d, op, 3000, nranks - 1, FORM_INTO);
        reduce_case(sim_graph, d, op, 7, 0, FORM_NULL_ELSEWHERE);
    }
}
END_TEST

START_TEST(deterministic_mode)
{
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1),
                     TCOMM_SUCCESS);
    for (int op = 0; op < TCOMM_OP_COUNT; op++)
        for (int root = 0; root < nranks; root++) {
            reduce_case(host_graph, TCOMM_F32, op, 3000, root, FORM_INTO);
            reduce_case(host_graph, TCOMM_F64, op, 3000, root,
                        FORM_NULL_ELSEWHERE);
            reduce_case(sim_graph, TCOMM_BF16, op, 3000, root, FORM_INTO);
        }
    ck_assert_int_eq(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0),
                     TCOMM_SUCCESS);
}
END_TEST

static void refused_by(int op, int root, int pass_out, tcomm_dtype_t od,
                       tcomm_status_t want, tcomm_status_t peers, int culprit,
                       const char *key);

/* A call that every rank must refuse; out (of dtype od, passed where
 * pass_out) stays as it was. A rank's own local error is want; its peers
 * hear of it as TCOMM_ERR_MISMATCH quoting it ("rank R rejected the
 * call: ..."), so both carry key. */
static void refused(int op, int root, int pass_out, tcomm_dtype_t od,
                    tcomm_status_t want, const char *key)
{
    refused_by(op, root, pass_out, od, want, want, -1, key);
}

static void refused_by(int op, int root, int pass_out, tcomm_dtype_t od,
                       tcomm_status_t want, tcomm_status_t peers, int culprit,
                       const char *key)
{
    size_t shape[1] = {64};
    int32_t mark[64]; /* 4 bytes an element, like i32 and f32 */
    for (int i = 0; i < 64; i++)
        mark[i] = -7;
    void *host;
    tcomm_tensor_t *in = input(host_graph, TCOMM_I32, TCOMM_SUM, 64, &host);
    tcomm_tensor_t *out = NULL;
    ck_assert_int_eq(tcomm_tensor_from_host(host_graph, od, mark, 1, shape,
                                            &out),
                     TCOMM_SUCCESS);
    tcomm_status_t st = tcomm_reduce_into(comm, in, (tcomm_op_t)op, root,
                                          pass_out ? out : NULL);
    tcomm_test_expect(rank, st,
                      culprit < 0 || rank == culprit ? want : peers,
                      "tcomm_reduce_into", key, NULL);
    int32_t *now = to_host(out, sizeof mark);
    ck_assert_msg(!memcmp(now, mark, sizeof mark), "out was written");
    free(now);
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

START_TEST(errors_on_every_rank)
{
    refused(TCOMM_SUM, nranks, 0, TCOMM_I32, TCOMM_ERR_INVALID_ARG, "root");
    refused(TCOMM_SUM, -1, 1, TCOMM_I32, TCOMM_ERR_INVALID_ARG, "root");
    refused(TCOMM_AVG, 0, 1, TCOMM_I32, TCOMM_ERR_DTYPE, "TCOMM_AVG");
    /* out NULL on the root: the root names it, the others hear of it */
    refused_by(TCOMM_SUM, 0, 0, TCOMM_I32, TCOMM_ERR_INVALID_ARG,
               TCOMM_ERR_MISMATCH, 0, "out is NULL on the root");
    /* the root's out of another dtype: refused on every rank */
    refused_by(TCOMM_SUM, 0, 1, TCOMM_F32, TCOMM_ERR_DTYPE,
               TCOMM_ERR_MISMATCH, 0, "i32");
    if (nranks > 1) {
        /* ranks that pass different roots or ops */
        refused(TCOMM_SUM, rank == 0 ? 1 : 0, 1, TCOMM_I32,
                TCOMM_ERR_MISMATCH, "root");
        refused(rank == 0 ? TCOMM_MAX : TCOMM_SUM, 0, 1, TCOMM_I32,
                TCOMM_ERR_MISMATCH, "op");
    }
    /* the communicator is usable after them all */
    reduce_case(host_graph, TCOMM_I64, TCOMM_SUM, 300, 0, FORM_INTO);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm);
    setenv("TCOMM_TUNE", "reduce:0-:mpi_reduce", 1);
    tcomm_config_reload();
    tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm_mpi_reduce);
    unsetenv("TCOMM_TUNE");
    tcomm_config_reload();
    tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &host_graph);
    tcomm_graph_create_sim(0, &sim_graph);
    Suite *s = suite_create("mpi_reduce");
    TCase *tc = tcase_create("reduce");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, every_dtype_op_root_form, 0, TCOMM_DTYPE_COUNT);
    tcase_add_test(tc, deterministic_mode);
    tcase_add_test(tc, errors_on_every_rank);
    suite_add_tcase(s, tc);
    int failed = tcomm_test_run_suite(s, 0);
    tcomm_graph_destroy(sim_graph);
    tcomm_graph_destroy(host_graph);
    tcomm_comm_destroy(comm_mpi_reduce);
    tcomm_comm_destroy(comm);
    MPI_Finalize();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
