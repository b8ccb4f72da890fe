/* SPDX-License-Identifier: BSD-3-Clause */
/* Inputs, references and checks of test/mpi_device.c (see
 * mpi_device_ref.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_device_ref.h"
#include "tcomm_half.h"
#include "tcomm_host_kernels.h"

static const char *cfg;
static int me, np;
static long failures;

void ref_reset(const char *config, int rank, int size)
{
    cfg = config;
    me = rank;
    np = size;
    failures = 0;
}

long ref_failures(void)
{
    return failures;
}

int ref_is_float(int dt)
{
    return dt == TCOMM_F16 || dt == TCOMM_BF16 || dt == TCOMM_F32 ||
           dt == TCOMM_F64;
}

static void fail(const char *what, int dt, int op, const char *detail)
{
    if (failures++ < 10)
        fprintf(stderr, "mpi_device [%s] rank %d/%d: %s %s op %d: %s\n", cfg,
                me, np, what, tcomm_dtype_name(dt), op, detail);
}

/* Element i of rank r's input of case salt. */
static void gen(int dt, int op, int r, unsigned salt, size_t n, void *buf)
{
    for (size_t i = 0; i < n; i++) {
        long v = (long)((i * 7 + (size_t)r * 13 + salt) % 11) - 5;
        if (op == TCOMM_PROD)
            v = (long)((i * 5 + (size_t)r * 3 + salt) % 4) - 1;
        int nan = ref_is_float(dt) && (op == TCOMM_MIN || op == TCOMM_MAX) &&
                  (i + salt) % 17 == (size_t)r + 3;
        double x = nan ? (double)NAN : (double)v;
        switch (dt) {
        case TCOMM_U8: ((uint8_t *)buf)[i] = (uint8_t)(v + 5); break;
        case TCOMM_I8: ((int8_t *)buf)[i] = (int8_t)v; break;
        case TCOMM_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
        case TCOMM_U32: ((uint32_t *)buf)[i] = (uint32_t)(v + 5); break;
        case TCOMM_I64: ((int64_t *)buf)[i] = (int64_t)v * 1000000007LL;
            break;
        case TCOMM_F16: ((uint16_t *)buf)[i] = tcomm_f32_to_f16((float)x);
            break;
        case TCOMM_BF16: ((uint16_t *)buf)[i] = tcomm_f32_to_bf16((float)x);
            break;
        case TCOMM_F32: ((float *)buf)[i] = (float)x; break;
        case TCOMM_F64: ((double *)buf)[i] = x; break;
        }
    }
}

static int is_nan(int dt, const unsigned char *p)
{
    uint16_t h;
    float f;
    double d;
    switch (dt) {
    case TCOMM_F16: memcpy(&h, p, 2); return tcomm_f16_is_nan(h);
    case TCOMM_BF16: memcpy(&h, p, 2); return tcomm_bf16_is_nan(h);
    case TCOMM_F32: memcpy(&f, p, 4); return f != f;
    case TCOMM_F64: memcpy(&d, p, 8); return d != d;
    default: return 0;
    }
}

/* Bitwise, except that any NaN matches any NaN. */
static void compare(const char *what, int dt, int op, const void *got,
                    const void *want, size_t n)
{
    size_t el = tcomm_dtype_size(dt);
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; i++, g += el, w += el) {
        if (!memcmp(g, w, el) || (is_nan(dt, g) && is_nan(dt, w)))
            continue;
        char msg[96];
        snprintf(msg, sizeof msg, "element %zu of %zu differs", i, n);
        fail(what, dt, op, msg);
        return;
    }
}

/* The rank-order fold of all ranks' inputs (n elements). */
static void *fold_all(int dt, int op, unsigned salt, size_t n)
{
    size_t el = tcomm_dtype_size(dt);
    unsigned char *acc = malloc(n * el + 1), *x = malloc(n * el + 1);
    gen(dt, op, 0, salt, n, acc);
    for (int r = 1; r < np; r++) {
        gen(dt, op, r, salt, n, x);
        tcomm_host_reduce(dt, op, acc, x, n);
    }
    if (op == TCOMM_AVG)
        tcomm_host_divide(dt, acc, n, (double)np);
    free(x);
    return acc;
}

/* A tensor of rank r's input; also checks later that it is unchanged. */
static tcomm_tensor_t *input(tcomm_graph_t *g, int dt, int op, unsigned salt,
                             int ndim, const size_t *shape, size_t n)
{
    size_t el = tcomm_dtype_size(dt);
    void *buf = malloc(n * el + 1);
    tcomm_tensor_t *t = NULL;
    gen(dt, op, me, salt, n, buf);
    if (tcomm_tensor_from_host(g, dt, buf, ndim, shape, &t) != TCOMM_SUCCESS)
        fail("tensor_from_host", dt, op, tcomm_last_error());
    free(buf);
    return t;
}

static void check_unchanged(const char *what, tcomm_tensor_t *t, int dt,
                            int op, unsigned salt, size_t n)
{
    size_t el = tcomm_dtype_size(dt);
    void *got = malloc(n * el + 1), *want = malloc(n * el + 1);
    gen(dt, op, me, salt, n, want);
    if (tcomm_tensor_to_host(t, got, n * el) != TCOMM_SUCCESS)
        fail(what, dt, op, tcomm_last_error());
    else
        compare(what, dt, op, got, want, n);
    free(got);
    free(want);
}

static void check_result(const char *what, tcomm_status_t st,
                         tcomm_tensor_t *out, int dt, int op,
                         const void *want, size_t n)
{
    size_t el = tcomm_dtype_size(dt);
    if (st != TCOMM_SUCCESS) {
        fail(what, dt, op, tcomm_last_error());
        return;
    }
    if (tcomm_tensor_numel(out) != n) {
        char m[64];
        snprintf(m, sizeof m, "%zu elements, expected %zu",
                 tcomm_tensor_numel(out), n);
        fail(what, dt, op, m);
        return;
    }
    void *got = malloc(n * el + 1);
    if (tcomm_tensor_to_host(out, got, n * el) != TCOMM_SUCCESS)
        fail(what, dt, op, tcomm_last_error());
    else
        compare(what, dt, op, got, want, n);
    free(got);
}

void check_all_reduce(tcomm_comm_t *comm, tcomm_graph_t *g, int dt, int op)
{
    static const size_t lens[] = { 1, 37, 300 };
    for (unsigned c = 0; c < 3; c++) {
        size_t n = lens[c], shape[2] = { 1, n };
        unsigned salt = c * 31 + (unsigned)dt;
        void *want = fold_all(dt, op, salt, n);
        tcomm_tensor_t *in = input(g, dt, op, salt, 2, shape, n), *out = NULL;
        tcomm_status_t st = tcomm_all_reduce(comm, in, op, &out);
        check_result("all_reduce", st, out, dt, op, want, n);
        check_unchanged("all_reduce input", in, dt, op, salt, n);
        tcomm_tensor_release(out);
        /* in place */
        st = tcomm_all_reduce_into(comm, in, op, in);
        check_result("all_reduce_into (in place)", st, in, dt, op, want, n);
        tcomm_tensor_release(in);
        free(want);
    }
}

void check_reduce_scatter(tcomm_comm_t *comm, tcomm_graph_t *g, int dt,
                          int op)
{
    /* shape[dim] = np * k */
    static const size_t base[4][3] = {
        { 13, 1, 1 }, { 3, 2, 5 }, { 2, 3, 3 }, { 2, 3, 1 } };
    static const int dims[4] = { 0, 1, 2, 0 }, ndims[4] = { 1, 3, 3, 2 };
    for (unsigned c = 0; c < 4; c++) {
        int dim = dims[c], nd = ndims[c];
        size_t shape[3] = { 0 }, n = 1, outer = 1, inner = 1;
        for (int i = 0; i < nd; i++) {
            shape[i] = base[c][i] * (i == dim ? (size_t)np : 1);
            n *= shape[i];
            outer *= i < dim ? shape[i] : 1;
            inner *= i > dim ? shape[i] : 1;
        }
        size_t k = shape[dim] / (size_t)np, el = tcomm_dtype_size(dt);
        unsigned salt = 100 + c * 7 + (unsigned)dt;
        unsigned char *full = fold_all(dt, op, salt, n);
        unsigned char *want = malloc(n / (size_t)np * el + 1);
        for (size_t o = 0; o < outer; o++)
            memcpy(want + o * k * inner * el,
                   full + (o * shape[dim] + (size_t)me * k) * inner * el,
                   k * inner * el);
        tcomm_tensor_t *in = input(g, dt, op, salt, nd, shape, n), *out = NULL;
        tcomm_status_t st = tcomm_reduce_scatter(comm, in, op, dim, &out);
        check_result("reduce_scatter", st, out, dt, op, want,
                     n / (size_t)np);
        check_unchanged("reduce_scatter input", in, dt, op, salt, n);
        tcomm_tensor_release(out);
        tcomm_tensor_release(in);
        free(full);
        free(want);
    }
}

void check_all_gather(tcomm_comm_t *comm, tcomm_graph_t *g, int dt)
{
    /* rank r's size along dim is base[dim] + r */
    static const size_t base[5][3] = {
        { 10, 1, 1 }, { 3, 4, 5 }, { 3, 2, 5 }, { 3, 4, 1 }, { 2, 1, 9 } };
    static const int dims[5] = { 0, 0, 1, 2, 1 }, ndims[5] = { 1, 3, 3, 3, 3 };
    size_t el = tcomm_dtype_size(dt);
    for (unsigned c = 0; c < 5; c++) {
        int dim = dims[c], nd = ndims[c];
        size_t outer = 1, inner = 1, total = 0, n_me = 0;
        for (int i = 0; i < nd; i++) {
            outer *= i < dim ? base[c][i] : 1;
            inner *= i > dim ? base[c][i] : 1;
        }
        for (int r = 0; r < np; r++)
            total += base[c][dim] + (size_t)r;
        unsigned salt = 200 + c * 5 + (unsigned)dt;
        unsigned char *want = malloc(outer * total * inner * el + 1);
        size_t col = 0;
        for (int r = 0; r < np; r++) {
            size_t seg = (base[c][dim] + (size_t)r) * inner;
            unsigned char *x = malloc(outer * seg * el + 1);
            gen(dt, TCOMM_SUM, r, salt, outer * seg, x);
            for (size_t o = 0; o < outer; o++)
                memcpy(want + (o * total * inner + col) * el,
                       x + o * seg * el, seg * el);
            col += seg;
            if (r == me)
                n_me = outer * seg;
            free(x);
        }
        size_t shape[3];
        for (int i = 0; i < nd; i++)
            shape[i] = base[c][i] + (i == dim ? (size_t)me : 0);
        tcomm_tensor_t *in = input(g, dt, TCOMM_SUM, salt, nd, shape, n_me);
        tcomm_tensor_t *out = NULL;
        tcomm_status_t st = tcomm_all_gather(comm, in, dim, &out);
        check_result("all_gather", st, out, dt, -1, want,
                     outer * total * inner);
        check_unchanged("all_gather input", in, dt, TCOMM_SUM, salt, n_me);
        tcomm_tensor_release(out);
        tcomm_tensor_release(in);
        free(want);
    }
}

void check_broadcast(tcomm_comm_t *comm, tcomm_graph_t *g, int dt)
{
    static const size_t lens[] = { 1, 50, 333 };
    size_t el = tcomm_dtype_size(dt);
    for (unsigned c = 0; c < 3; c++) {
        size_t n = lens[c], shape[1] = { n };
        int root = (int)(c + (unsigned)dt) % np;
        unsigned salt = 300 + c + (unsigned)dt;
        void *want = malloc(n * el + 1);
        gen(dt, TCOMM_SUM, root, salt, n, want);
        tcomm_tensor_t *in = input(g, dt, TCOMM_SUM, salt, 1, shape, n);
        tcomm_tensor_t *out = NULL;
        tcomm_status_t st = tcomm_broadcast(comm, in, root, &out);
        check_result("broadcast", st, out, dt, -1, want, n);
        check_unchanged("broadcast input", in, dt, TCOMM_SUM, salt, n);
        tcomm_tensor_release(out);
        st = tcomm_broadcast_into(comm, in, root, in);
        check_result("broadcast_into (in place)", st, in, dt, -1, want, n);
        tcomm_tensor_release(in);
        free(want);
    }
}
