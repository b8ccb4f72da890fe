/* SPDX-License-Identifier: BSD-3-Clause */
/* The checks of mpi_device_a2a_ref.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_device_a2a_ref.h"
#include "mpi_reference.h"

#define ND 3

static const char *cfg;
static int me, np;
static long failures;

void a2a_reset(const char *config, int rank, int size)
{
    cfg = config;
    me = rank;
    np = size;
    failures = 0;
}

long a2a_failures(void)
{
    return failures;
}

static void fail(const char *what, int dt, int a, int b, const char *detail)
{
    if (failures++ < 10)
        fprintf(stderr, "mpi_device_a2a [%s] rank %d/%d: %s %s (%d, %d): "
                "%s\n", cfg, me, np, what, tcomm_dtype_name(dt), a, b,
                detail);
}

static size_t prod(int nd, const size_t *s)
{
    size_t p = 1;
    for (int i = 0; i < nd; i++)
        p *= s[i];
    return p;
}

static size_t flat(int nd, const size_t *shape, const size_t *x)
{
    size_t i = 0;
    for (int k = 0; k < nd; k++)
        i = i * shape[k] + x[k];
    return i;
}

static void unravel(size_t i, int nd, const size_t *shape, size_t *y)
{
    for (int k = nd - 1; k >= 0; k--) {
        y[k] = i % shape[k];
        i /= shape[k];
    }
}

/* Rank r's input for op (-1: a payload) of the given shape, on the host;
 * NaN at element 1 of the last rank's where float MIN/MAX must
 * propagate it. */
static void *host_input(int dt, int op, int r, int nd, const size_t *shape,
                        int nan)
{
    size_t n = prod(nd, shape);
    void *h = malloc(n * tcomm_dtype_size(dt) + 1);
    ref_fill(dt, op, r, h, n);
    if (nan && r == np - 1 && n > 1)
        ref_store_nan(dt, h, 1);
    return h;
}

static tcomm_tensor_t *device_input(tcomm_graph_t *g, int dt, int nd,
                                    const size_t *shape, const void *h)
{
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_from_host(g, dt, h, nd, shape, &t) != TCOMM_SUCCESS)
        fail("tensor_from_host", dt, 0, 0, tcomm_last_error());
    return t;
}

/* out's shape and every element against want (op < 0: exact). */
static void check_out(const char *what, tcomm_status_t st,
                      tcomm_tensor_t *out, int dt, int op, int a, int b,
                      int nd, const size_t *shape, const double *want)
{
    char msg[160];
    if (st != TCOMM_SUCCESS) {
        fail(what, dt, a, b, tcomm_last_error());
        return;
    }
    for (int k = 0; k < nd; k++) {
        if (tcomm_tensor_ndim(out) != nd ||
            tcomm_tensor_dim(out, k) != shape[k]) {
            snprintf(msg, sizeof msg, "dim %d is %zu, expected %zu", k,
                     tcomm_tensor_dim(out, k), shape[k]);
            fail(what, dt, a, b, msg);
            return;
        }
    }
    size_t n = prod(nd, shape);
    void *got = malloc(n * tcomm_dtype_size(dt) + 1);
    if (tcomm_tensor_to_host(out, got, n * tcomm_dtype_size(dt)) !=
        TCOMM_SUCCESS) {
        fail(what, dt, a, b, tcomm_last_error());
        n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        double g = ref_load(dt, got, i);
        if (!ref_match(dt, op, g, want[i])) {
            snprintf(msg, sizeof msg, "element %zu of %zu is %g, expected %g",
                     i, n, g, want[i]);
            fail(what, dt, a, b, msg);
            break;
        }
    }
    free(got);
}

static void check_unchanged(tcomm_tensor_t *t, int dt, const void *h,
                            size_t n)
{
    size_t bytes = n * tcomm_dtype_size(dt);
    void *now = malloc(bytes + 1);
    if (tcomm_tensor_to_host(t, now, bytes) != TCOMM_SUCCESS ||
        memcmp(now, h, bytes))
        fail("input unchanged", dt, 0, 0, "the input was modified");
    free(now);
}

static void a2a_equal_case(tcomm_comm_t *comm, tcomm_graph_t *g, int dt,
                           int nd, const size_t *shape, int s, int c)
{
    size_t k = shape[s] / (size_t)np, osh[ND], y[ND], x[ND];
    memcpy(osh, shape, (size_t)nd * sizeof *osh);
    if (s != c) {
        osh[s] = k;
        osh[c] *= (size_t)np;
    }
    size_t n = prod(nd, osh);
    double *want = malloc(n * sizeof *want + 1);
    for (size_t i = 0; i < n; i++) {
        int r;
        unravel(i, nd, osh, y);
        memcpy(x, y, sizeof x);
        if (s != c) {
            r = (int)(y[c] / shape[c]);
            x[c] = y[c] % shape[c];
            x[s] = (size_t)me * k + y[s];
        } else {
            r = (int)(y[s] / k);
            x[s] = (size_t)me * k + y[s] % k;
        }
        want[i] = ref_value(dt, -1, r, flat(nd, shape, x));
    }
    void *h = host_input(dt, -1, me, nd, shape, 0);
    tcomm_tensor_t *in = device_input(g, dt, nd, shape, h), *out = NULL;
    tcomm_status_t st = tcomm_all_to_all(comm, in, s, c, &out);
    check_out("all_to_all", st, out, dt, -1, s, c, nd, osh, want);
    tcomm_tensor_release(out);
    out = NULL;
    if (tcomm_tensor_empty(g, dt, nd, osh, &out) != TCOMM_SUCCESS)
        fail("tensor_empty", dt, s, c, tcomm_last_error());
    st = tcomm_all_to_all_into(comm, in, s, c, out);
    check_out("all_to_all_into", st, out, dt, -1, s, c, nd, osh, want);
    tcomm_tensor_release(out);
    check_unchanged(in, dt, h, prod(nd, shape));
    if (s == c) {
        tcomm_tensor_t *t = device_input(g, dt, nd, shape, h);
        st = tcomm_all_to_all_into(comm, t, s, c, t);
        check_out("all_to_all_into (in place)", st, t, dt, -1, s, c, nd,
                  osh, want);
        tcomm_tensor_release(t);
    }
    tcomm_tensor_release(in);
    free(h);
    free(want);
}

void check_all_to_all(tcomm_comm_t *comm, tcomm_graph_t *g, int dt)
{
    static const size_t base[ND] = {2, 3, 2};
    for (int s = 0; s < ND; s++)
        for (int c = 0; c < ND; c++) {
            size_t shape[ND];
            memcpy(shape, base, sizeof shape);
            shape[s] *= (size_t)np;
            a2a_equal_case(comm, g, dt, ND, shape, s, c);
        }
    size_t one[1] = {5 * (size_t)np};
    a2a_equal_case(comm, g, dt, 1, one, 0, 0);
}

/* Token mode: rank r sends tok(r, j) along dim to rank j. */
static size_t tok(int r, int j, unsigned salt)
{
    return (size_t)(r + 2 * j + (int)salt) % 3;
}

static void a2a_token_case(tcomm_comm_t *comm, tcomm_graph_t *g, int dt,
                           int d, unsigned salt)
{
    static const size_t base[ND] = {2, 3, 2};
    size_t send[4], ish[ND], osh[ND], y[ND], x[ND], xs[ND];
    memcpy(ish, base, sizeof ish);
    memcpy(osh, base, sizeof osh);
    ish[d] = osh[d] = 0;
    for (int j = 0; j < np; j++) {
        send[j] = tok(me, j, salt);
        ish[d] += send[j];
        osh[d] += tok(j, me, salt);
    }
    size_t n = prod(ND, osh);
    double *want = malloc(n * sizeof *want + 1);
    for (size_t i = 0; i < n; i++) {
        unravel(i, ND, osh, y);
        memcpy(x, y, sizeof x);
        memcpy(xs, base, sizeof xs);
        int r = 0;
        size_t at = y[d];
        while (at >= tok(r, me, salt))
            at -= tok(r++, me, salt);
        xs[d] = 0; /* rank r's shape; its chunk for us starts at lo */
        size_t lo = 0;
        for (int j = 0; j < np; j++) {
            xs[d] += tok(r, j, salt);
            lo += j < me ? tok(r, j, salt) : 0;
        }
        x[d] = lo + at;
        want[i] = ref_value(dt, -1, r, flat(ND, xs, x));
    }
    void *h = host_input(dt, -1, me, ND, ish, 0);
    tcomm_tensor_t *in = device_input(g, dt, ND, ish, h), *out = NULL;
    tcomm_status_t st = tcomm_all_to_all_v(comm, in, d, send, d, &out);
    check_out("all_to_all_v (tokens)", st, out, dt, -1, d, d, ND, osh,
              want);
    check_unchanged(in, dt, h, prod(ND, ish));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    free(h);
    free(want);
}

/* Transpose mode: every rank sends ts(j) along s to rank j; rank r's
 * size along c is tc(r). */
static size_t ts(int j, unsigned salt)
{
    return (size_t)(2 * j + (int)salt) % 3;
}
static size_t tcol(int r, unsigned salt)
{
    return (size_t)(r + (int)salt) % 3;
}

static void a2a_transpose_case(tcomm_comm_t *comm, tcomm_graph_t *g, int dt,
                               int s, int c, unsigned salt)
{
    static const size_t base[ND] = {2, 3, 2};
    size_t send[4], ish[ND], osh[ND], y[ND], x[ND], xs[ND], total = 0;
    for (int j = 0; j < np; j++) {
        send[j] = ts(j, salt);
        total += send[j];
    }
    memcpy(ish, base, sizeof ish);
    ish[s] = total;
    ish[c] = tcol(me, salt);
    memcpy(osh, ish, sizeof osh);
    osh[s] = send[me];
    osh[c] = 0;
    for (int r = 0; r < np; r++)
        osh[c] += tcol(r, salt);
    size_t lo = 0;
    for (int j = 0; j < me; j++)
        lo += send[j];
    size_t n = prod(ND, osh);
    double *want = malloc(n * sizeof *want + 1);
    for (size_t i = 0; i < n; i++) {
        unravel(i, ND, osh, y);
        memcpy(x, y, sizeof x);
        int r = 0;
        size_t at = y[c];
        while (at >= tcol(r, salt))
            at -= tcol(r++, salt);
        memcpy(xs, ish, sizeof xs);
        xs[c] = tcol(r, salt);
        x[c] = at;
        x[s] = lo + y[s];
        want[i] = ref_value(dt, -1, r, flat(ND, xs, x));
    }
    void *h = host_input(dt, -1, me, ND, ish, 0);
    tcomm_tensor_t *in = device_input(g, dt, ND, ish, h), *out = NULL;
    tcomm_status_t st = tcomm_all_to_all_v(comm, in, s, send, c, &out);
    check_out("all_to_all_v (transpose)", st, out, dt, -1, s, c, ND, osh,
              want);
    check_unchanged(in, dt, h, prod(ND, ish));
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    free(h);
    free(want);
}

void check_all_to_all_v(tcomm_comm_t *comm, tcomm_graph_t *g, int dt)
{
    for (unsigned salt = 0; salt < 2; salt++)
        for (int s = 0; s < ND; s++)
            for (int c = 0; c < ND; c++) {
                if (s == c)
                    a2a_token_case(comm, g, dt, s, salt + (unsigned)dt);
                else
                    a2a_transpose_case(comm, g, dt, s, c,
                                       salt + (unsigned)dt);
            }
}

/* Rank r's chunk in pattern p: uneven with zeros, equal, all on one. */
static size_t rsv_size(int p, int r)
{
    switch (p) {
    case 0: return (size_t)(r * 2 + 1) % 4;
    case 1: return (size_t)(r * 2 + 2) % 4;
    case 2: return 2;
    default: return r == np - 1 ? 3 : 0;
    }
}

void check_reduce_scatter_v(tcomm_comm_t *comm, tcomm_graph_t *g, int dt,
                            int op)
{
    static const size_t base[ND] = {2, 3, 2};
    int nan = ref_is_float(dt) && (op == TCOMM_MIN || op == TCOMM_MAX);
    for (int dim = 0; dim < ND; dim++) {
        for (int p = 0; p < 4; p++) {
            size_t sizes[4], shape[ND], osh[ND], total = 0, lo = 0;
            for (int r = 0; r < np; r++) {
                sizes[r] = rsv_size(p, r);
                lo += r < me ? sizes[r] : 0;
                total += sizes[r];
            }
            memcpy(shape, base, sizeof shape);
            shape[dim] = total;
            memcpy(osh, shape, sizeof osh);
            osh[dim] = sizes[me];
            size_t n = prod(ND, osh), y[ND];
            double *want = malloc(n * sizeof *want + 1);
            for (size_t i = 0; i < n; i++) {
                unravel(i, ND, osh, y);
                y[dim] += lo;
                size_t src = flat(ND, shape, y);
                want[i] = nan && src == 1 ? NAN
                                          : ref_reduce(dt, op, np, src);
            }
            void *h = host_input(dt, op, me, ND, shape, nan);
            tcomm_tensor_t *in = device_input(g, dt, ND, shape, h);
            tcomm_tensor_t *out = NULL;
            tcomm_status_t st = tcomm_reduce_scatter_v(
                comm, in, (tcomm_op_t)op, dim, sizes, &out);
            check_out("reduce_scatter_v", st, out, dt, op, dim, p, ND, osh,
                      want);
            check_unchanged(in, dt, h, prod(ND, shape));
            tcomm_tensor_release(out);
            tcomm_tensor_release(in);
            free(h);
            free(want);
        }
    }
}
