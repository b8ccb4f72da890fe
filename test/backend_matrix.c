/* SPDX-License-Identifier: BSD-3-Clause */
/* The correctness matrix shared by the backends' suites (see
 * backend_matrix.h). */
#include "backend_matrix.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"

typedef enum { FORM_ALLOC, FORM_INTO, FORM_INPLACE } form_t;

int matrix_expect(matrix_ctx_t *c, int ok, int line, const char *fmt, ...)
{
    if (!ok && !c->fail[0]) {
        int k = snprintf(c->fail, sizeof c->fail,
                         "rank %d/%d line %d: ", c->rank, c->nranks, line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fail + k, sizeof c->fail - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return ok;
}

static size_t prod(int nd, const size_t *s)
{
    size_t p = 1;
    for (int i = 0; i < nd; i++)
        p *= s[i];
    return p;
}

static tcomm_tensor_t *input(matrix_ctx_t *c, tcomm_dtype_t d, int op, int nd,
                             const size_t *shape, void **host)
{
    size_t n = prod(nd, shape);
    *host = malloc(n * tcomm_dtype_size(d) + 1);
    ref_fill(d, op, c->rank, *host, n);
    tcomm_tensor_t *t = NULL;
    tcomm_tensor_from_host(c->graph, d, *host, nd, shape, &t);
    return t;
}

static void *host_copy(const tcomm_tensor_t *t)
{
    size_t b = tcomm_tensor_numel(t) * tcomm_dtype_size(tcomm_tensor_dtype(t));
    void *buf = malloc(b + 1);
    tcomm_tensor_to_host(t, buf, b);
    return buf;
}

/* out's graph and shape, and (unless in place) the input unchanged. */
static int check_out(matrix_ctx_t *c, const tcomm_tensor_t *in,
                     const tcomm_tensor_t *out, const void *host, int nd,
                     const size_t *shape, form_t form)
{
    int ok = EXPECT(c, tcomm_tensor_graph(out) == c->graph, "graph");
    ok = ok && EXPECT(c, tcomm_tensor_ndim(out) == nd, "ndim");
    for (int i = 0; ok && i < nd; i++)
        ok = EXPECT(c, tcomm_tensor_dim(out, i) == shape[i], "dim %d", i);
    if (ok && form != FORM_INPLACE) {
        void *now = host_copy(in);
        size_t b =
            tcomm_tensor_numel(in) * tcomm_dtype_size(tcomm_tensor_dtype(in));
        ok = EXPECT(c, !memcmp(now, host, b), "the input was modified");
        free(now);
    }
    return ok;
}

static tcomm_tensor_t *output(matrix_ctx_t *c, tcomm_tensor_t *in,
                              tcomm_dtype_t d, int nd, const size_t *shape,
                              form_t form)
{
    tcomm_tensor_t *out = NULL;
    if (form == FORM_INPLACE)
        return tcomm_tensor_retain(in);
    if (form == FORM_INTO)
        tcomm_tensor_empty(c->graph, d, nd, shape, &out);
    return out;
}

static void all_reduce_case(matrix_ctx_t *c, tcomm_dtype_t d, int op, int nd,
                            const size_t *shape, form_t form)
{
    void *host;
    tcomm_tensor_t *in = input(c, d, op, nd, shape, &host);
    tcomm_tensor_t *out = output(c, in, d, nd, shape, form);
    tcomm_status_t st = form == FORM_ALLOC
                            ? tcomm_all_reduce(c->comm, in, op, &out)
                            : tcomm_all_reduce_into(c->comm, in, op, out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "all_reduce: %s", tcomm_last_error()) &&
        check_out(c, in, out, host, nd, shape, form)) {
        void *res = host_copy(out);
        for (size_t i = 0; i < prod(nd, shape); i++) {
            double want = ref_reduce(d, op, c->nranks, i);
            double got = ref_load(d, res, i);
            if (!EXPECT(c, ref_match(d, op, got, want),
                        "all_reduce %s %s [%zu]: got %g want %g",
                        tcomm_dtype_name(d), tcomm_op_name(op), i, got, want))
                break;
        }
        free(res);
    }
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* reduce to root: out on the root only (into, or in place), NULL on the
 * others; the backends without the collective slot run it through their
 * all_reduce into a scratch output. */
static void reduce_case(matrix_ctx_t *c, tcomm_dtype_t d, int op, int nd,
                        const size_t *shape, int root, form_t form)
{
    void *host;
    tcomm_tensor_t *in = input(c, d, op, nd, shape, &host);
    tcomm_tensor_t *out =
        c->rank == root ? output(c, in, d, nd, shape, form) : NULL;
    tcomm_status_t st = tcomm_reduce_into(c->comm, in, op, root, out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "reduce: %s", tcomm_last_error()) &&
        out && check_out(c, in, out, host, nd, shape, form)) {
        void *res = host_copy(out);
        for (size_t i = 0; i < prod(nd, shape); i++)
            if (!EXPECT(c,
                        ref_match(d, op, ref_load(d, res, i),
                                  ref_reduce(d, op, c->nranks, i)),
                        "reduce %s %s root %d [%zu]", tcomm_dtype_name(d),
                        tcomm_op_name(op), root, i))
                break;
        free(res);
    }
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* Rank r's size along dim is base + r (0 on rank 0 when zero_first). */
static size_t gsize(const matrix_ctx_t *c, int nd, const size_t *base, int dim,
                    int zero_first, int r)
{
    (void)c;
    return !nd ? 1 : zero_first && r == 0 ? 0 : base[dim] + (size_t)r;
}

static void all_gather_case(matrix_ctx_t *c, tcomm_dtype_t d, int nd,
                            const size_t *base, int dim, int zero_first,
                            form_t form)
{
    size_t shape[TCOMM_MAX_DIMS] = {0}, oshape[TCOMM_MAX_DIMS], total = 0;
    if (nd) /* base is NULL for a 0-d tensor */
        memcpy(shape, base, (size_t)nd * sizeof *base);
    for (int r = 0; r < c->nranks; r++)
        total += gsize(c, nd, base, dim, zero_first, r);
    if (nd)
        shape[dim] = gsize(c, nd, base, dim, zero_first, c->rank);
    int ond = nd ? nd : 1;
    memcpy(oshape, shape, sizeof shape);
    oshape[nd ? dim : 0] = total;
    void *host;
    tcomm_tensor_t *in = input(c, d, -1, nd, shape, &host);
    tcomm_tensor_t *out = output(c, in, d, ond, oshape, form);
    tcomm_status_t st = form == FORM_ALLOC
                            ? tcomm_all_gather(c->comm, in, dim, &out)
                            : tcomm_all_gather_into(c->comm, in, dim, out);
    int single = c->nranks == 1 && form == FORM_ALLOC; /* zero copy */
    if (EXPECT(c, st == TCOMM_SUCCESS, "all_gather: %s", tcomm_last_error()) &&
        check_out(c, in, out, host, single ? nd : ond, single ? shape : oshape,
                  form)) {
        size_t outer = prod(nd ? dim : 0, shape);
        size_t inner = nd ? prod(nd - dim - 1, shape + dim + 1) : 1;
        void *res = host_copy(out);
        for (size_t o = 0, bad = 0; o < outer && !bad; o++) {
            size_t col = 0;
            for (int q = 0; q < c->nranks && !bad; q++) {
                size_t s = gsize(c, nd, base, dim, zero_first, q);
                for (size_t j = 0; j < s * inner && !bad; j++) {
                    size_t oi = (o * total + col) * inner + j;
                    double want = ref_value(d, -1, q, o * s * inner + j);
                    bad = !EXPECT(c, ref_load(d, res, oi) == want,
                                  "all_gather %s dim %d [%zu] of rank %d",
                                  tcomm_dtype_name(d), dim, oi, q);
                }
                col += s;
            }
        }
        free(res);
    }
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static void reduce_scatter_case(matrix_ctx_t *c, tcomm_dtype_t d, int op,
                                int nd, const size_t *base, int dim,
                                form_t form)
{
    size_t shape[TCOMM_MAX_DIMS], oshape[TCOMM_MAX_DIMS];
    memcpy(shape, base, (size_t)nd * sizeof *base);
    shape[dim] = base[dim] * (size_t)c->nranks;
    memcpy(oshape, shape, sizeof shape);
    oshape[dim] = base[dim];
    void *host;
    tcomm_tensor_t *in = input(c, d, op, nd, shape, &host);
    tcomm_tensor_t *out = output(c, in, d, nd, oshape, form);
    tcomm_status_t st =
        form == FORM_ALLOC
            ? tcomm_reduce_scatter(c->comm, in, op, dim, &out)
            : tcomm_reduce_scatter_into(c->comm, in, op, dim, out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "reduce_scatter: %s",
               tcomm_last_error()) &&
        check_out(c, in, out, host, nd, oshape, form)) {
        size_t outer = prod(dim, shape), ch = base[dim];
        size_t inner = prod(nd - dim - 1, shape + dim + 1);
        void *res = host_copy(out);
        for (size_t o = 0, bad = 0; o < outer && !bad; o++) {
            for (size_t j = 0; j < ch * inner && !bad; j++) {
                size_t src =
                    (o * (size_t)c->nranks * ch + (size_t)c->rank * ch) *
                        inner +
                    j;
                double want = ref_reduce(d, op, c->nranks, src);
                double got = ref_load(d, res, o * ch * inner + j);
                bad = !EXPECT(c, ref_match(d, op, got, want),
                              "reduce_scatter %s %s dim %d: got %g want %g",
                              tcomm_dtype_name(d), tcomm_op_name(op), dim, got,
                              want);
            }
        }
        free(res);
    }
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static void broadcast_case(matrix_ctx_t *c, tcomm_dtype_t d, int nd,
                           const size_t *shape, int root, form_t form)
{
    void *host;
    tcomm_tensor_t *in = input(c, d, -1, nd, shape, &host);
    tcomm_tensor_t *out = output(c, in, d, nd, shape, form);
    tcomm_status_t st = form == FORM_ALLOC
                            ? tcomm_broadcast(c->comm, in, root, &out)
                            : tcomm_broadcast_into(c->comm, in, root, out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "broadcast: %s", tcomm_last_error()) &&
        check_out(c, in, out, host, nd, shape, form)) {
        void *res = host_copy(out);
        for (size_t i = 0; i < prod(nd, shape); i++)
            if (!EXPECT(c, ref_load(d, res, i) == ref_value(d, -1, root, i),
                        "broadcast %s root %d [%zu]", tcomm_dtype_name(d), root,
                        i))
                break;
        free(res);
    }
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static const size_t s0[1] = {0}, s1[1] = {13}, s3[3] = {3, 4, 2};
static const size_t b1[1] = {3}, b3[3] = {2, 3, 2}, e2[2] = {0, 2};
static const size_t r1[1] = {5}, bc2[2] = {3, 5};

void backend_matrix(matrix_ctx_t *c)
{
    for (int di = 0; di < TCOMM_DTYPE_COUNT; di++) {
        tcomm_dtype_t d = (tcomm_dtype_t)di;
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(d))
                continue; /* an argument error, tested below */
            for (int f = FORM_ALLOC; f <= FORM_INPLACE; f++) {
                all_reduce_case(c, d, op, 0, s0, (form_t)f);
                all_reduce_case(c, d, op, 1, s0, (form_t)f);
                all_reduce_case(c, d, op, 1, s1, (form_t)f);
                all_reduce_case(c, d, op, 3, s3, (form_t)f);
            }
            for (int f = FORM_ALLOC; f <= FORM_INTO; f++) {
                reduce_scatter_case(c, d, op, 1, r1, 0, (form_t)f);
                reduce_scatter_case(c, d, op, 2, e2, 1, (form_t)f);
                for (int dim = 0; dim < 3; dim++)
                    reduce_scatter_case(c, d, op, 3, b3, dim, (form_t)f);
            }
            for (int root = 0; root < c->nranks; root++) {
                reduce_case(c, d, op, 3, s3, root, FORM_INTO);
                reduce_case(c, d, op, 1, s1, root, FORM_INPLACE);
            }
        }
        for (int f = FORM_ALLOC; f <= FORM_INTO; f++) {
            all_gather_case(c, d, 0, NULL, 0, 0, (form_t)f);
            all_gather_case(c, d, 1, b1, 0, 0, (form_t)f);
            all_gather_case(c, d, 1, b1, 0, 1, (form_t)f);
            for (int dim = 0; dim < 3; dim++) {
                all_gather_case(c, d, 3, b3, dim, 0, (form_t)f);
                all_gather_case(c, d, 3, b3, dim, 1, (form_t)f);
            }
        }
        for (int root = 0; root < c->nranks; root++)
            for (int f = FORM_ALLOC; f <= FORM_INPLACE; f++) {
                broadcast_case(c, d, 0, s0, root, (form_t)f);
                broadcast_case(c, d, 1, s0, root, (form_t)f);
                broadcast_case(c, d, 2, bc2, root, (form_t)f);
            }
    }
    EXPECT(c, tcomm_barrier(c->comm) == TCOMM_SUCCESS, "barrier");
}
