/* SPDX-License-Identifier: BSD-3-Clause */
/* The soak's valid calls: a random collective (or one the warm-up
 * picks), run and checked element by element against test/mpi_reference;
 * the input must be unchanged. */
#include <stdlib.h>
#include <string.h>

#include "mpi_reference.h"
#include "soak.h"

static void *host_copy(const tcomm_tensor_t *t)
{
    size_t b = tcomm_tensor_numel(t) *
               tcomm_dtype_size(tcomm_tensor_dtype(t));
    void *p = malloc(b + 1);
    tcomm_tensor_to_host(t, p, b);
    return p;
}

/* A random shape: 0-d, empty, small uneven, or (rarely) multi-MiB. */
static void rand_shape(tcomm_dtype_t d, int *nd, size_t *s)
{
    size_t es = tcomm_dtype_size(d);
    unsigned pick = (unsigned)below(100);
    if (pick < 8) { /* 0-d */
        *nd = 0;
        return;
    }
    if (pick < 14) { /* multi-MiB, 1-d or 2-d */
        size_t bytes = ((size_t)1 << 20) + below((size_t)n_bytes_max);
        size_t n = bytes / es;
        *nd = 1 + (int)below(2);
        if (*nd == 1) {
            s[0] = n;
        } else {
            s[0] = 1 + below(7);
            s[1] = n / s[0];
        }
        return;
    }
    *nd = 1 + (int)below(4);
    for (int i = 0; i < *nd; i++)
        s[i] = below(16) == 0 ? 0 : 1 + below(6); /* some empty */
}

/* Check a result: element k of out against want(k). */
typedef double (*want_fn)(void *ctx, size_t k);

static void check_out(const tcomm_tensor_t *out, int nd, const size_t *s,
                      tcomm_dtype_t d, int op, want_fn want, void *ctx,
                      const char *what)
{
    if (tcomm_tensor_ndim(out) != nd) {
        FAIL("%s: ndim %d, want %d", what, tcomm_tensor_ndim(out), nd);
        return;
    }
    for (int i = 0; i < nd; i++)
        if (tcomm_tensor_dim(out, i) != s[i]) {
            FAIL("%s: dim %d is %zu, want %zu", what, i,
                 tcomm_tensor_dim(out, i), s[i]);
            return;
        }
    void *h = host_copy(out);
    size_t n = numel(nd, s);
    for (size_t k = 0; k < n; k++) {
        double got = ref_load(d, h, k), w = want(ctx, k);
        if (!ref_match(d, op, got, w)) {
            FAIL("%s: element %zu is %g, want %g", what, k, got, w);
            break;
        }
    }
    free(h);
}

typedef struct {
    tcomm_dtype_t d;
    int op, dim, root, nd;
    const size_t *in_shape;
    const size_t *sizes; /* all_gather: every rank's size along dim */
    size_t outer, inner, total;
} ref_ctx_t;

static double want_reduce(void *p, size_t k)
{
    ref_ctx_t *c = p;
    return ref_reduce(c->d, c->op, nranks, k);
}

static double want_bcast(void *p, size_t k)
{
    ref_ctx_t *c = p;
    return ref_value(c->d, -1, c->root, k);
}

static double want_gather(void *p, size_t k)
{
    ref_ctx_t *c = p;
    size_t in = k % c->inner, rest = k / c->inner;
    size_t j = rest % c->total, o = rest / c->total;
    int r = 0;
    while (j >= c->sizes[r])
        j -= c->sizes[r++];
    return ref_value(c->d, -1, r, (o * c->sizes[r] + j) * c->inner + in);
}

static double want_scatter(void *p, size_t k)
{
    ref_ctx_t *c = p;
    size_t chunk = c->total / (size_t)nranks;
    size_t in = k % c->inner, rest = k / c->inner;
    size_t j = rest % chunk, o = rest / chunk;
    size_t flat = (o * c->total + (size_t)rank * chunk + j) * c->inner + in;
    return ref_reduce(c->d, c->op, nranks, flat);
}

static void split(int nd, const size_t *s, int dim, size_t *outer,
                  size_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < dim && i < nd; i++)
        *outer *= s[i];
    for (int i = dim + 1; i < nd; i++)
        *inner *= s[i];
}

/* Run call, checked against the reference. */
void run_valid(call_t *call)
{
    int kind = call->kind, form = call->form, op = call->op, nd = call->nd;
    tcomm_dtype_t d = call->d;
    size_t *s = call->s, *sizes = call->sizes;
    ref_ctx_t c = {.d = d, .op = op, .nd = nd, .in_shape = s,
                   .dim = call->dim, .root = call->root};
    tcomm_tensor_t *in = NULL, *out = NULL, *into = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    char what[64];
    snprintf(what, sizeof what, "kind %d form %d dtype %d op %d nd %d",
             kind, form, (int)d, op, nd);

    if (kind == K_BAR) {
        st = tcomm_barrier(comm);
        goto done;
    }
    if (kind == K_RS && nd == 0) {
        nd = c.nd = 1;
        s[0] = (size_t)nranks;
    }
    if (kind == K_RS)
        s[c.dim] = (s[c.dim] / (size_t)nranks) * (size_t)nranks;
    if (kind == K_AG || kind == K_RS) {
        split(nd, s, c.dim, &c.outer, &c.inner);
        c.total = nd ? s[c.dim] : 1;
    }
    if (kind == K_AG) { /* uneven: each rank its own size along dim */
        c.total = 0;
        for (int r = 0; r < nranks; r++)
            c.total += sizes[r];
        if (nd)
            s[c.dim] = sizes[rank];
        c.sizes = sizes;
    }

    int in_op = kind == K_AR || kind == K_RS ? op : -1;
    in = make(d, in_op, nd, s);
    void *before = numel(nd, s) < 65536 ? host_copy(in) : NULL;

    /* the expected output shape */
    int ond = nd;
    size_t os[TCOMM_MAX_DIMS];
    memcpy(os, s, sizeof os);
    if (kind == K_AG) {
        ond = nd ? nd : 1;
        os[c.dim] = c.total;
    }
    if (kind == K_RS)
        os[c.dim] = s[c.dim] / (size_t)nranks;

    switch (form) {
    case F_ALLOC:
        switch (kind) {
        case K_AR: st = tcomm_all_reduce(comm, in, op, &out); break;
        case K_AG: st = tcomm_all_gather(comm, in, c.dim, &out); break;
        case K_RS:
            st = tcomm_reduce_scatter(comm, in, op, c.dim, &out);
            break;
        case K_BC: st = tcomm_broadcast(comm, in, c.root, &out); break;
        }
        break;
    case F_INTO:
        into = make_empty(d, ond, os);
        switch (kind) {
        case K_AR: st = tcomm_all_reduce_into(comm, in, op, into); break;
        case K_AG: st = tcomm_all_gather_into(comm, in, c.dim, into); break;
        case K_RS:
            st = tcomm_reduce_scatter_into(comm, in, op, c.dim, into);
            break;
        case K_BC: st = tcomm_broadcast_into(comm, in, c.root, into); break;
        }
        out = into ? tcomm_tensor_retain(into) : NULL;
        break;
    case F_INPLACE:
        if (kind == K_AR)
            st = tcomm_all_reduce_into(comm, in, op, in);
        else
            st = tcomm_broadcast_into(comm, in, c.root, in);
        out = tcomm_tensor_retain(in);
        break;
    }
    if (st == TCOMM_SUCCESS) {
        want_fn w = kind == K_AR   ? want_reduce
                    : kind == K_BC ? want_bcast
                    : kind == K_AG ? want_gather
                                   : want_scatter;
        check_out(out, ond, os, d, kind == K_AR || kind == K_RS ? op : -1,
                  w, &c, what);
        if (before && form != F_INPLACE) {
            void *now = host_copy(in);
            size_t b = numel(nd, s) * tcomm_dtype_size(d);
            if (memcmp(now, before, b))
                FAIL("%s: the input was modified", what);
            free(now);
        }
    }
    free(before);
    tcomm_tensor_release(out);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
done:
    fatal_check(st);
    if (st != TCOMM_SUCCESS) {
        n_unexpected++;
        FAIL("%s: %s: %s", what, tcomm_status_string(st),
             tcomm_last_error());
    } else {
        n_ok++;
    }
}

/* Draw a valid collective. */
void valid_call(void)
{
    call_t c = {.kind = (int)below(K_COUNT)};
    c.d = (tcomm_dtype_t)below(9);
    c.op = (int)below(5);
    if (c.op == TCOMM_AVG && !ref_is_float(c.d))
        c.op = TCOMM_SUM;
    c.form = (int)below(c.kind == K_AR || c.kind == K_BC ? 3 : 2);
    rand_shape(c.d, &c.nd, c.s);
    if (c.kind == K_AG || c.kind == K_RS)
        c.dim = c.nd ? (int)below((size_t)c.nd) : 0;
    if (c.kind == K_AG) { /* uneven: each rank its own size along dim */
        size_t base = c.nd ? c.s[c.dim] : 1;
        for (int r = 0; r < nranks; r++) {
            c.sizes[r] = c.nd ? (below(4) == 0 ? 0 : base + below(3)) : 1;
            if (base > 4096) /* keep multi-MiB gathers near their size */
                c.sizes[r] = base - below(3);
        }
    }
    if (c.kind == K_BC)
        c.root = (int)below((size_t)nranks);
    run_valid(&c);
}
