/* SPDX-License-Identifier: BSD-3-Clause */
/* The correctness matrix of all_to_all, all_to_all_v and
 * reduce_scatter_v (see a2a_matrix.h). One reference serves every
 * exchange: a plan says each rank's input shape and what it sends each
 * rank, and the expected output follows from the contract's placement
 * rule alone (tcomm's code is not consulted). */
#include "a2a_matrix.h"

#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"

#define MAXR 8 /* ranks a plan describes */
enum { ND = 3 };
static const size_t base[ND] = {2, 3, 2};

typedef enum { FORM_ALLOC, FORM_INTO, FORM_INPLACE } form_t;

typedef struct {
    int nd, split, concat;
    size_t shape[MAXR][TCOMM_MAX_DIMS]; /* rank r's input */
    size_t send[MAXR][MAXR];            /* rank r sends send[r][j] to j */
} plan_t;

size_t a2a_token_size(int r, int j)
{
    return (size_t)((r + 2 * j) % 3);
}

size_t a2a_chunk_size(int r)
{
    return r == 1 ? 0 : (size_t)r + 1;
}

static size_t prod(int nd, const size_t *s)
{
    size_t p = 1;
    for (int i = 0; i < nd; i++)
        p *= s[i];
    return p;
}

static size_t flat(int nd, const size_t *shape, const size_t *idx)
{
    size_t f = 0;
    for (int i = 0; i < nd; i++)
        f = f * shape[i] + idx[i];
    return f;
}

static void unflat(int nd, const size_t *shape, size_t f, size_t *idx)
{
    for (int i = nd - 1; i >= 0; i--) {
        idx[i] = f % shape[i];
        f /= shape[i];
    }
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

/* out on the input's graph with shape osh, and the input unchanged. */
static int check_out(matrix_ctx_t *c, const char *what,
                     const tcomm_tensor_t *in, const void *host,
                     const tcomm_tensor_t *out, int nd, const size_t *osh,
                     form_t form)
{
    int ok = EXPECT(c, tcomm_tensor_graph(out) == c->graph, "%s graph", what);
    ok = ok && EXPECT(c, tcomm_tensor_ndim(out) == nd, "%s ndim", what);
    for (int i = 0; ok && i < nd; i++)
        ok = EXPECT(c, tcomm_tensor_dim(out, i) == osh[i],
                    "%s dim %d: %zu, want %zu", what, i,
                    tcomm_tensor_dim(out, i), osh[i]);
    if (ok && form != FORM_INPLACE) {
        void *now = host_copy(in);
        size_t b =
            tcomm_tensor_numel(in) * tcomm_dtype_size(tcomm_tensor_dtype(in));
        ok = EXPECT(c, !memcmp(now, host, b), "%s modified its input", what);
        free(now);
    }
    return ok;
}

/* This rank's output shape under plan p, and where the piece from rank r
 * starts along concat. */
static void out_shape(const matrix_ctx_t *c, const plan_t *p, size_t *osh,
                      size_t *at)
{
    int me = c->rank, token = p->split == p->concat;
    memcpy(osh, p->shape[me], sizeof p->shape[me]);
    size_t total = 0;
    for (int r = 0; r < c->nranks; r++) {
        at[r] = total;
        total += token ? p->send[r][me] : p->shape[r][p->concat];
    }
    if (!token)
        osh[p->split] = p->send[me][me];
    osh[p->concat] = total;
}

/* The element at out index idx: its rank and its value there. */
static double expected(const matrix_ctx_t *c, const plan_t *p, tcomm_dtype_t d,
                       const size_t *at, const size_t *idx)
{
    int r = c->nranks - 1;
    while (r > 0 && idx[p->concat] < at[r])
        r--;
    size_t src[TCOMM_MAX_DIMS], from = 0, local = idx[p->concat] - at[r];
    memcpy(src, idx, sizeof src);
    for (int j = 0; j < c->rank; j++)
        from += p->send[r][j];
    if (p->split == p->concat) {
        src[p->split] = from + local;
    } else {
        src[p->concat] = local;
        src[p->split] = from + idx[p->split];
    }
    return ref_value(d, -1, r, flat(p->nd, p->shape[r], src));
}

/* equal: tcomm_all_to_all[_into], else tcomm_all_to_all_v. */
static void exchange_case(matrix_ctx_t *c, const plan_t *p, tcomm_dtype_t d,
                          int equal, form_t form)
{
    const char *what = equal ? "all_to_all" : "all_to_all_v";
    size_t osh[TCOMM_MAX_DIMS], at[MAXR];
    out_shape(c, p, osh, at);
    void *host;
    tcomm_tensor_t *in = input(c, d, -1, p->nd, p->shape[c->rank], &host);
    tcomm_tensor_t *out = NULL;
    tcomm_status_t st;
    if (!equal) {
        st = tcomm_all_to_all_v(c->comm, in, p->split, p->send[c->rank],
                                p->concat, &out);
    } else if (form == FORM_ALLOC) {
        st = tcomm_all_to_all(c->comm, in, p->split, p->concat, &out);
    } else {
        if (form == FORM_INPLACE)
            out = tcomm_tensor_retain(in);
        else
            tcomm_tensor_empty(c->graph, d, p->nd, osh, &out);
        st = tcomm_all_to_all_into(c->comm, in, p->split, p->concat, out);
    }
    if (EXPECT(c, st == TCOMM_SUCCESS, "%s %s split %d concat %d: %s", what,
               tcomm_dtype_name(d), p->split, p->concat, tcomm_last_error()) &&
        check_out(c, what, in, host, out, p->nd, osh, form)) {
        void *res = host_copy(out);
        size_t idx[TCOMM_MAX_DIMS];
        for (size_t i = 0; i < prod(p->nd, osh); i++) {
            unflat(p->nd, osh, i, idx);
            double want = expected(c, p, d, at, idx), got = ref_load(d, res, i);
            if (!EXPECT(c, got == want,
                        "%s %s split %d concat %d form %d [%zu]: got %g want "
                        "%g",
                        what, tcomm_dtype_name(d), p->split, p->concat, form, i,
                        got, want))
                break;
        }
        free(res);
    }
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

/* Every rank's input base, with [dim] = the sum of what it sends. */
static void plan_shapes(const matrix_ctx_t *c, plan_t *p, const size_t *b)
{
    for (int r = 0; r < c->nranks; r++) {
        memcpy(p->shape[r], b, (size_t)p->nd * sizeof *b);
        p->shape[r][p->split] = 0;
        for (int j = 0; j < c->nranks; j++)
            p->shape[r][p->split] += p->send[r][j];
    }
}

void a2a_matrix_all_to_all(matrix_ctx_t *c)
{
    for (int di = 0; di < TCOMM_DTYPE_COUNT; di++)
        for (int s = 0; s < ND; s++)
            for (int k = 0; k < ND; k++) {
                plan_t p = {.nd = ND, .split = s, .concat = k};
                for (int r = 0; r < c->nranks; r++)
                    for (int j = 0; j < c->nranks; j++)
                        p.send[r][j] = base[s];
                plan_shapes(c, &p, base);
                for (int f = FORM_ALLOC;
                     f <= (s == k ? FORM_INPLACE : FORM_INTO); f++)
                    exchange_case(c, &p, (tcomm_dtype_t)di, 1, (form_t)f);
            }
}

void a2a_matrix_all_to_all_v(matrix_ctx_t *c)
{
    static const size_t one[1] = {5};
    for (int di = 0; di < TCOMM_DTYPE_COUNT; di++) {
        tcomm_dtype_t d = (tcomm_dtype_t)di;
        /* token mode: per-rank send sizes, zeros among them; a 1-d case
         * and one where every piece is empty */
        for (int k = 0; k < ND + 2; k++) {
            int nd = k == ND ? 1 : ND, dim = k < ND ? k : 0;
            plan_t p = {.nd = nd, .split = dim, .concat = dim};
            for (int r = 0; r < c->nranks; r++)
                for (int j = 0; j < c->nranks; j++)
                    p.send[r][j] = k == ND + 1 ? 0 : a2a_token_size(r, j);
            plan_shapes(c, &p, nd == 1 ? one : base);
            exchange_case(c, &p, d, 0, FORM_ALLOC);
        }
        /* transpose mode: one send array; the ranks' sizes along concat
         * differ, rank 2's is 0 */
        for (int s = 0; s < ND; s++)
            for (int k = 0; k < ND; k++) {
                if (s == k)
                    continue;
                plan_t p = {.nd = ND, .split = s, .concat = k};
                for (int r = 0; r < c->nranks; r++)
                    for (int j = 0; j < c->nranks; j++)
                        p.send[r][j] = (size_t)(j + 1) % 3;
                plan_shapes(c, &p, base);
                for (int r = 0; r < c->nranks; r++)
                    p.shape[r][k] = (size_t)(r + 1) % 3;
                exchange_case(c, &p, d, 0, FORM_ALLOC);
            }
    }
}

/* sizes: chunk r of rank r along dim (equal: 2 each, else
 * a2a_chunk_size). */
static void reduce_scatter_v_case(matrix_ctx_t *c, tcomm_dtype_t d, int op,
                                  int nd, int dim, int equal)
{
    size_t sizes[MAXR], shape[TCOMM_MAX_DIMS], osh[TCOMM_MAX_DIMS], off = 0;
    memcpy(shape, base, sizeof base);
    shape[dim] = 0;
    for (int r = 0; r < c->nranks; r++) {
        sizes[r] = equal ? 2 : a2a_chunk_size(r);
        off += r < c->rank ? sizes[r] : 0;
        shape[dim] += sizes[r];
    }
    memcpy(osh, shape, sizeof shape);
    osh[dim] = sizes[c->rank];
    void *host;
    tcomm_tensor_t *in = input(c, d, op, nd, shape, &host), *out = NULL;
    tcomm_status_t st =
        tcomm_reduce_scatter_v(c->comm, in, (tcomm_op_t)op, dim, sizes, &out);
    if (EXPECT(c, st == TCOMM_SUCCESS, "reduce_scatter_v %s %s dim %d: %s",
               tcomm_dtype_name(d), tcomm_op_name(op), dim,
               tcomm_last_error()) &&
        check_out(c, "reduce_scatter_v", in, host, out, nd, osh, FORM_ALLOC)) {
        void *res = host_copy(out);
        size_t idx[TCOMM_MAX_DIMS];
        for (size_t i = 0; i < prod(nd, osh); i++) {
            unflat(nd, osh, i, idx);
            idx[dim] += off;
            double want = ref_reduce(d, op, c->nranks, flat(nd, shape, idx));
            double got = ref_load(d, res, i);
            if (!EXPECT(c, ref_match(d, op, got, want),
                        "reduce_scatter_v %s %s nd %d dim %d equal %d [%zu]: "
                        "got %g want %g",
                        tcomm_dtype_name(d), tcomm_op_name(op), nd, dim, equal,
                        i, got, want))
                break;
        }
        free(res);
    }
    free(host);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

void a2a_matrix_reduce_scatter_v(matrix_ctx_t *c)
{
    for (int di = 0; di < TCOMM_DTYPE_COUNT; di++) {
        tcomm_dtype_t d = (tcomm_dtype_t)di;
        for (int op = 0; op < TCOMM_OP_COUNT; op++) {
            if (op == TCOMM_AVG && !ref_is_float(d))
                continue;
            for (int dim = 0; dim < ND; dim++)
                reduce_scatter_v_case(c, d, op, ND, dim, 0);
            reduce_scatter_v_case(c, d, op, 1, 0, 0);
            reduce_scatter_v_case(c, d, op, ND, 1, 1);
        }
    }
}

/* A value whose sums and products depend on their order. */
static double ordered_value(int op, int r, size_t i)
{
    if (op == TCOMM_PROD)
        return ((r + (int)i) % 3 ? 1.0 : -1.0) * (1.0 + (double)r / 3.0);
    unsigned x = (unsigned)(r + 1) * 2654435761u ^ (unsigned)i * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return ((double)(x % 200001u) - 100000.0) / (double)(1u << (x % 16u));
}

/* The left fold in rank order, in the dtype's own arithmetic. */
static double ordered_fold(tcomm_dtype_t d, int op, int n, size_t i)
{
    float f = (float)ordered_value(op, 0, i);
    double v = ordered_value(op, 0, i);
    for (int r = 1; r < n; r++) {
        double x = ordered_value(op, r, i);
        f = op == TCOMM_SUM ? f + (float)x : f * (float)x;
        v = op == TCOMM_SUM ? v + x : v * x;
    }
    return d == TCOMM_F32 ? (double)f : v;
}

void a2a_matrix_ordered_fold(matrix_ctx_t *c)
{
    static const tcomm_dtype_t dt[2] = {TCOMM_F32, TCOMM_F64};
    static const int ops[2] = {TCOMM_SUM, TCOMM_PROD};
    for (int k = 0; k < 4; k++) {
        tcomm_dtype_t d = dt[k / 2];
        int op = ops[k % 2], dim = k % 2 + 1;
        size_t sizes[MAXR], shape[ND], off = 0, es = tcomm_dtype_size(d);
        memcpy(shape, base, sizeof base);
        shape[dim] = 0;
        for (int r = 0; r < c->nranks; r++) {
            sizes[r] = a2a_chunk_size(r) * 7;
            off += r < c->rank ? sizes[r] : 0;
            shape[dim] += sizes[r];
        }
        size_t n = prod(ND, shape);
        void *host = malloc(n * es);
        for (size_t i = 0; i < n; i++)
            ref_store(d, host, i, ordered_value(op, c->rank, i));
        tcomm_tensor_t *in = NULL, *out = NULL;
        tcomm_tensor_from_host(c->graph, d, host, ND, shape, &in);
        free(host);
        tcomm_status_t st = tcomm_reduce_scatter_v(c->comm, in, (tcomm_op_t)op,
                                                   dim, sizes, &out);
        if (EXPECT(c, st == TCOMM_SUCCESS, "ordered reduce_scatter_v: %s",
                   tcomm_last_error())) {
            size_t osh[ND], idx[ND];
            memcpy(osh, shape, sizeof shape);
            osh[dim] = sizes[c->rank];
            void *res = host_copy(out);
            for (size_t i = 0; i < prod(ND, osh); i++) {
                unflat(ND, osh, i, idx);
                idx[dim] += off;
                double want =
                    ordered_fold(d, op, c->nranks, flat(ND, shape, idx));
                double got = ref_load(d, res, i);
                if (!EXPECT(c, !memcmp(&got, &want, sizeof got),
                            "deterministic reduce_scatter_v %s %s [%zu]: "
                            "got %.17g, the rank-order fold %.17g",
                            tcomm_dtype_name(d), tcomm_op_name(op), i, got,
                            want))
                    break;
            }
            free(res);
        }
        tcomm_tensor_release(out);
        tcomm_tensor_release(in);
    }
}

void a2a_matrix(matrix_ctx_t *c)
{
    if (!EXPECT(c, c->nranks <= MAXR, "a2a_matrix: at most %d ranks", MAXR))
        return;
    a2a_matrix_all_to_all(c);
    a2a_matrix_all_to_all_v(c);
    a2a_matrix_reduce_scatter_v(c);
    EXPECT(c, tcomm_barrier(c->comm) == TCOMM_SUCCESS, "barrier");
}
