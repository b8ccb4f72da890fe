/* SPDX-License-Identifier: BSD-3-Clause */
/* Tensors: contiguous row-major, reference counted, bound to one graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_internal.h"

void tcomm_shape_text(int ndim, const size_t *shape, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < ndim && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%zu",
                                 i ? ", " : "", shape[i]);
    if (used < len)
        snprintf(buf + used, len - used, "]");
}

tcomm_status_t tcomm_shape_check(const char *fn, tcomm_dtype_t dtype,
                                 int ndim, const size_t *shape,
                                 size_t *numel, size_t *nbytes)
{
    if (!tcomm_dtype_valid(dtype))
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: dtype %d is not a tcomm_dtype_t (use "
                           "TCOMM_U8 .. TCOMM_F64)",
                           fn, (int)dtype);
    if (ndim < 0 || ndim > TCOMM_MAX_DIMS)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: ndim %d is out of range (use 0..%d)", fn,
                           ndim, TCOMM_MAX_DIMS);
    if (ndim > 0 && !shape)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: shape is NULL for a %d-dimensional tensor "
                           "(pass %d sizes)",
                           fn, ndim, ndim);
    size_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (__builtin_mul_overflow(n, shape[i], &n))
            goto overflow;
    }
    size_t bytes;
    if (__builtin_mul_overflow(n, tcomm_dtype_size(dtype), &bytes) ||
        bytes > (size_t)PTRDIFF_MAX)
        goto overflow;
    *numel = n;
    *nbytes = bytes;
    return TCOMM_SUCCESS;
overflow:;
    char text[256];
    tcomm_shape_text(ndim, shape, text, sizeof text);
    return tcomm_error(TCOMM_ERR_SHAPE,
                       "%s: shape %s of %s overflows the address space "
                       "(use smaller sizes)",
                       fn, text, tcomm_dtype_name(dtype));
}

static tcomm_status_t check_out(const char *fn, tcomm_tensor_t **out)
{
    if (out)
        return TCOMM_SUCCESS;
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "%s: the output pointer is NULL (pass the address "
                       "of a tcomm_tensor_t pointer)",
                       fn);
}

/* A tensor header without data; the caller fills data and owns_data. */
static tcomm_status_t tensor_new(const char *fn, tcomm_graph_t *graph,
                                 tcomm_dtype_t dtype, int ndim,
                                 const size_t *shape, tcomm_tensor_t **out)
{
    if (!graph)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: graph is NULL (create one with "
                           "tcomm_graph_create)",
                           fn);
    size_t numel, nbytes;
    TCOMM_TRY(tcomm_shape_check(fn, dtype, ndim, shape, &numel, &nbytes));
    tcomm_tensor_t *t = calloc(1, sizeof *t);
    if (!t)
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                           fn);
    atomic_init(&t->refs, 1);
    t->graph = graph;
    t->dtype = dtype;
    t->ndim = ndim;
    if (ndim > 0)
        memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
    t->numel = numel;
    t->nbytes = nbytes;
    *out = t;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_tensor_alloc(const char *fn, tcomm_graph_t *graph,
                                  tcomm_dtype_t dtype, int ndim,
                                  const size_t *shape, tcomm_tensor_t **out)
{
    tcomm_tensor_t *t;
    TCOMM_TRY(tensor_new(fn, graph, dtype, ndim, shape, &t));
    const tcomm_memspace_t *sp = graph->space;
    tcomm_status_t st = sp->alloc(graph->space_ctx, t->nbytes, &t->data);
    if (st != TCOMM_SUCCESS) {
        free(t);
        return st;
    }
    t->owns_data = 1;
    atomic_fetch_add(&graph->live_tensors, 1);
    *out = t;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_tensor_empty(tcomm_graph_t *graph, tcomm_dtype_t dtype,
                                  int ndim, const size_t *shape,
                                  tcomm_tensor_t **tensor)
{
    tcomm_error_clear();
    TCOMM_TRY(check_out("tcomm_tensor_empty", tensor));
    tcomm_tensor_t *t;
    TCOMM_TRY(tcomm_tensor_alloc("tcomm_tensor_empty", graph, dtype, ndim,
                                 shape, &t));
    tcomm_status_t st =
        graph->space->memset0(graph->space_ctx, t->data, t->nbytes);
    if (st != TCOMM_SUCCESS) {
        tcomm_tensor_release(t);
        return st;
    }
    *tensor = t;
    return TCOMM_SUCCESS;
}

static tcomm_status_t from_host(const char *fn, tcomm_graph_t *graph,
                                tcomm_dtype_t dtype, const void *data,
                                int ndim, const size_t *shape,
                                tcomm_tensor_t **tensor)
{
    TCOMM_TRY(check_out(fn, tensor));
    tcomm_tensor_t *t;
    TCOMM_TRY(tcomm_tensor_alloc(fn, graph, dtype, ndim, shape, &t));
    if (!data && t->nbytes > 0) {
        size_t numel = t->numel, nbytes = t->nbytes; /* t is freed next */
        tcomm_tensor_release(t);
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: data is NULL for %zu elements (pass a host "
                           "buffer of %zu bytes)",
                           fn, numel, nbytes);
    }
    tcomm_status_t st =
        graph->space->from_host(graph->space_ctx, t->data, data, t->nbytes);
    if (st != TCOMM_SUCCESS) {
        tcomm_tensor_release(t);
        return st;
    }
    *tensor = t;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_tensor_from_host(tcomm_graph_t *graph,
                                      tcomm_dtype_t dtype, const void *data,
                                      int ndim, const size_t *shape,
                                      tcomm_tensor_t **tensor)
{
    tcomm_error_clear();
    return from_host("tcomm_tensor_from_host", graph, dtype, data, ndim,
                     shape, tensor);
}

tcomm_status_t tcomm_tensor_const_like(const tcomm_tensor_t *anchor,
                                       tcomm_dtype_t dtype, const void *data,
                                       int ndim, const size_t *shape,
                                       tcomm_tensor_t **tensor)
{
    tcomm_error_clear();
    if (!anchor)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_tensor_const_like: anchor is NULL (pass "
                           "a tensor of the graph to create on)");
    return from_host("tcomm_tensor_const_like", anchor->graph, dtype, data,
                     ndim, shape, tensor);
}

tcomm_status_t tcomm_tensor_wrap(tcomm_graph_t *graph, tcomm_dtype_t dtype,
                                 void *buffer, int ndim, const size_t *shape,
                                 tcomm_tensor_t **tensor)
{
    static const char fn[] = "tcomm_tensor_wrap";
    tcomm_error_clear();
    TCOMM_TRY(check_out(fn, tensor));
    tcomm_tensor_t *t;
    TCOMM_TRY(tensor_new(fn, graph, dtype, ndim, shape, &t));
    tcomm_status_t st = TCOMM_SUCCESS;
    if (!buffer && t->nbytes > 0)
        st = tcomm_error(TCOMM_ERR_INVALID_ARG,
                         "%s: buffer is NULL for %zu elements (pass a "
                         "buffer of %zu bytes)",
                         fn, t->numel, t->nbytes);
    else if (graph->space->register_buffer && t->nbytes > 0)
        st = graph->space->register_buffer(graph->space_ctx, buffer,
                                           t->nbytes);
    if (st != TCOMM_SUCCESS) {
        free(t);
        return st;
    }
    t->data = buffer;
    t->owns_data = 0;
    atomic_fetch_add(&graph->live_tensors, 1);
    *tensor = t;
    return TCOMM_SUCCESS;
}

tcomm_tensor_t *tcomm_tensor_retain(tcomm_tensor_t *tensor)
{
    if (tensor)
        atomic_fetch_add(&tensor->refs, 1);
    return tensor;
}

void tcomm_tensor_release(tcomm_tensor_t *tensor)
{
    if (!tensor || atomic_fetch_sub(&tensor->refs, 1) != 1)
        return;
    tcomm_graph_t *g = tensor->graph;
    if (tensor->owns_data)
        g->space->free(g->space_ctx, tensor->data);
    atomic_fetch_sub(&g->live_tensors, 1);
    free(tensor);
}

tcomm_status_t tcomm_tensor_copy(const tcomm_tensor_t *src,
                                 tcomm_tensor_t *dst)
{
    tcomm_graph_t *g = dst->graph;
    return g->space->copy(g->space_ctx, dst->data, src->data, src->nbytes);
}
