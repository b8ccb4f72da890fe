/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking suites' inputs and expected results, from the
 * independent reference (test/mpi_reference.h): a collective's input on
 * rank r is ref_fill(dtype, op, r) (op -1: a gather/broadcast payload),
 * and each output element is recomputed from every rank's regenerated
 * values. Nothing here calls MPI or Check, so that the local backend's
 * threads can use it too: a mismatch is counted in nb_bad (per thread)
 * and the first few are printed. */
#ifndef TCOMM_TEST_NONBLOCKING_REF_H
#define TCOMM_TEST_NONBLOCKING_REF_H

#include <stdio.h>
#include <stdlib.h>

#include "mpi_reference.h"
#include "tcomm.h"

static __thread long nb_bad; /* mismatches seen by this thread */

/* NB_A2A: all_to_all with split_dim == concat_dim == dim (shape kept). */
typedef enum { NB_REDUCE, NB_GATHER, NB_SCATTER, NB_BCAST, NB_A2A } nb_kind_t;

/* One collective's expectation: input [a, b] of dtype on every rank. */
typedef struct {
    nb_kind_t kind;
    tcomm_dtype_t dtype;
    int op;  /* reductions; -1 for the payloads */
    int dim; /* gather/scatter: 0 or 1; broadcast: the root */
    size_t a, b;
} nb_spec_t;

/* rank's input tensor of spec s on g (NULL on failure, counted). */
static tcomm_tensor_t *nb_input(tcomm_graph_t *g, const nb_spec_t *s,
                                int rank)
{
    size_t shape[2] = {s->a, s->b}, n = s->a * s->b;
    void *buf = calloc(n + 1, tcomm_dtype_size(s->dtype));
    ref_fill(s->dtype, s->op, rank, buf, n);
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_from_host(g, s->dtype, buf, 2, shape, &t) !=
        TCOMM_SUCCESS) {
        fprintf(stderr, "rank %d: nb_input: %s\n", rank, tcomm_last_error());
        nb_bad++;
    }
    free(buf);
    return t;
}

/* The output shape of s at n ranks. */
static void nb_out_shape(const nb_spec_t *s, int n, size_t out[2])
{
    out[0] = s->a;
    out[1] = s->b;
    if (s->kind == NB_GATHER)
        out[s->dim] *= (size_t)n;
    else if (s->kind == NB_SCATTER)
        out[s->dim] /= (size_t)n;
}

/* A zeroed tensor of the output shape of s (an _into / start's out). */
static tcomm_tensor_t *nb_output(tcomm_graph_t *g, const nb_spec_t *s,
                                 int n)
{
    size_t shape[2];
    nb_out_shape(s, n, shape);
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_empty(g, s->dtype, 2, shape, &t) != TCOMM_SUCCESS)
        nb_bad++;
    return t;
}

/* The expected element k of rank's output. */
static double nb_want(const nb_spec_t *s, int rank, int n, size_t k)
{
    size_t a = s->a, b = s->b;
    switch (s->kind) {
    case NB_REDUCE:
        return ref_reduce(s->dtype, s->op, n, k);
    case NB_BCAST:
        return ref_value(s->dtype, -1, s->dim, k);
    case NB_A2A: {
        /* block r along dim comes from rank r: its block `rank` */
        size_t c = (s->dim == 0 ? a : b) / (size_t)n;
        size_t i = k / b, j = k % b, *x = s->dim == 0 ? &i : &j;
        int from = (int)(*x / c);
        *x = (size_t)rank * c + *x % c;
        return ref_value(s->dtype, -1, from, i * b + j);
    }
    case NB_GATHER:
        if (s->dim == 0) /* out [a*n, b]: block r of rows is rank r's */
            return ref_value(s->dtype, -1, (int)(k / b / a),
                             (k / b % a) * b + k % b);
        /* out [a, b*n]: block r of columns is rank r's */
        return ref_value(s->dtype, -1, (int)(k % (b * n) / b),
                         k / (b * n) * b + k % (b * n) % b);
    case NB_SCATTER:
    default:
        if (s->dim == 0) { /* out [a/n, b]: rank's block of rows */
            size_t rows = a / (size_t)n;
            return ref_reduce(s->dtype, s->op, n,
                              ((size_t)rank * rows + k / b) * b + k % b);
        }
        size_t cols = b / (size_t)n; /* out [a, b/n] */
        return ref_reduce(s->dtype, s->op, n,
                          k / cols * b + (size_t)rank * cols + k % cols);
    }
}

/* Compares rank's output t of s with the reference; returns the number
 * of wrong elements (also added to nb_bad). */
static long nb_check(const tcomm_tensor_t *t, const nb_spec_t *s, int rank,
                     int n, const char *what)
{
    size_t shape[2];
    nb_out_shape(s, n, shape);
    size_t numel = shape[0] * shape[1];
    if (!t || tcomm_tensor_numel(t) != numel ||
        tcomm_tensor_dtype(t) != s->dtype) {
        fprintf(stderr, "rank %d: %s: no output of %zu %s elements\n", rank,
                what, numel, tcomm_dtype_name(s->dtype));
        nb_bad++;
        return 1;
    }
    void *got = calloc(numel + 1, tcomm_dtype_size(s->dtype));
    long wrong = 0;
    if (tcomm_tensor_to_host(t, got, numel * tcomm_dtype_size(s->dtype)) !=
        TCOMM_SUCCESS)
        wrong = 1;
    for (size_t k = 0; !wrong && k < numel; k++) {
        double g = ref_load(s->dtype, got, k), w = nb_want(s, rank, n, k);
        if (ref_match(s->dtype, s->op, g, w))
            continue;
        if (wrong++ < 3)
            fprintf(stderr,
                    "rank %d: %s (%s, op %d, dim %d): [%zu] = %g, want %g\n",
                    rank, what, tcomm_dtype_name(s->dtype), s->op, s->dim, k,
                    g, w);
    }
    free(got);
    nb_bad += wrong;
    return wrong;
}

/* Starts s on comm with out (in place where out == in). */
static tcomm_status_t nb_start(tcomm_comm_t *comm, const nb_spec_t *s,
                               const tcomm_tensor_t *in, tcomm_tensor_t *out,
                               tcomm_request_t **req)
{
    switch (s->kind) {
    case NB_REDUCE:
        return tcomm_all_reduce_start(comm, in, (tcomm_op_t)s->op, out, req);
    case NB_GATHER:
        return tcomm_all_gather_start(comm, in, s->dim, out, req);
    case NB_SCATTER:
        return tcomm_reduce_scatter_start(comm, in, (tcomm_op_t)s->op,
                                          s->dim, out, req);
    case NB_A2A:
        return tcomm_all_to_all_start(comm, in, s->dim, s->dim, out, req);
    case NB_BCAST:
    default:
        return tcomm_broadcast_start(comm, in, s->dim, out, req);
    }
}

#endif /* TCOMM_TEST_NONBLOCKING_REF_H */
