/* SPDX-License-Identifier: BSD-3-Clause */
/* The graph-affine add: the one tensor operation of the public API that
 * computes, so it sits above the host kernels. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_internal.h"

/* Device spaces: both operands go through host memory (add is a
 * convenience, not a collective's hot path). */
static tcomm_status_t add_via_host(const tcomm_tensor_t *a,
                                   const tcomm_tensor_t *b,
                                   tcomm_tensor_t *sum)
{
    tcomm_graph_t *g = a->graph;
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    void *ha = malloc(a->nbytes ? a->nbytes : 1);
    void *hb = malloc(a->nbytes ? a->nbytes : 1);
    if (!ha || !hb) {
        tcomm_error(st, "tcomm_tensor_add: out of host memory");
        goto out;
    }
    if ((st = g->space->to_host(g->space_ctx, ha, a->data, a->nbytes)) ||
        (st = g->space->to_host(g->space_ctx, hb, b->data, a->nbytes)))
        goto out;
    tcomm_host_add(a->dtype, ha, hb, ha, a->numel);
    st = g->space->from_host(g->space_ctx, sum->data, ha, a->nbytes);
out:
    free(hb);
    free(ha);
    return st;
}

tcomm_status_t tcomm_tensor_add(const tcomm_tensor_t *a,
                                const tcomm_tensor_t *b,
                                tcomm_tensor_t **sum)
{
    static const char fn[] = "tcomm_tensor_add";
    tcomm_error_clear();
    if (!a || !b || !sum)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: %s is NULL (pass two tensors and the "
                           "address of the result pointer)",
                           fn, !a ? "a" : !b ? "b" : "sum");
    if (a->graph != b->graph)
        return tcomm_error(TCOMM_ERR_GRAPH_MISMATCH,
                           "%s: a is on graph %llu and b on graph %llu "
                           "(bring both onto one graph first)",
                           fn, (unsigned long long)a->graph->id,
                           (unsigned long long)b->graph->id);
    if (a->dtype != b->dtype)
        return tcomm_error(TCOMM_ERR_DTYPE,
                           "%s: a is %s and b is %s (use one dtype)", fn,
                           tcomm_dtype_name(a->dtype),
                           tcomm_dtype_name(b->dtype));
    if (a->ndim != b->ndim ||
        memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof(size_t))) {
        char sa[256], sb[256];
        tcomm_shape_text(a->ndim, a->shape, sa, sizeof sa);
        tcomm_shape_text(b->ndim, b->shape, sb, sizeof sb);
        return tcomm_error(TCOMM_ERR_SHAPE,
                           "%s: a has shape %s and b has %s (use equal "
                           "shapes)",
                           fn, sa, sb);
    }
    tcomm_tensor_t *t;
    TCOMM_TRY(tcomm_tensor_alloc(fn, a->graph, a->dtype, a->ndim, a->shape,
                                 &t));
    tcomm_status_t st = TCOMM_SUCCESS;
    if (a->graph->space->is_host)
        tcomm_host_add(a->dtype, a->data, b->data, t->data, a->numel);
    else
        st = add_via_host(a, b, t);
    if (st != TCOMM_SUCCESS) {
        tcomm_tensor_release(t);
        return st;
    }
    *sum = t;
    return TCOMM_SUCCESS;
}
