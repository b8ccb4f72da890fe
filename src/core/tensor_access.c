/* SPDX-License-Identifier: BSD-3-Clause */
/* Tensor accessors and copies to the host. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_internal.h"

tcomm_graph_t *tcomm_tensor_graph(const tcomm_tensor_t *tensor)
{
    return tensor ? tensor->graph : NULL;
}

uint64_t tcomm_tensor_graph_id(const tcomm_tensor_t *tensor)
{
    return tensor ? tensor->graph->id : 0;
}

tcomm_dtype_t tcomm_tensor_dtype(const tcomm_tensor_t *tensor)
{
    return tensor ? tensor->dtype : (tcomm_dtype_t)-1;
}

int tcomm_tensor_ndim(const tcomm_tensor_t *tensor)
{
    return tensor ? tensor->ndim : -1;
}

size_t tcomm_tensor_dim(const tcomm_tensor_t *tensor, int axis)
{
    if (!tensor || axis < 0 || axis >= tensor->ndim)
        return 0;
    return tensor->shape[axis];
}

size_t tcomm_tensor_numel(const tcomm_tensor_t *tensor)
{
    return tensor ? tensor->numel : 0;
}

void *tcomm_tensor_data(const tcomm_tensor_t *tensor)
{
    return tensor ? tensor->data : NULL;
}

tcomm_status_t tcomm_tensor_to_host(const tcomm_tensor_t *tensor, void *dst,
                                    size_t dst_bytes)
{
    static const char fn[] = "tcomm_tensor_to_host";
    tcomm_error_clear();
    if (!tensor)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: tensor is NULL (pass a tensor)", fn);
    if (dst_bytes < tensor->nbytes)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: the destination holds %zu bytes but the "
                           "tensor has %zu (pass a buffer of at least %zu "
                           "bytes)",
                           fn, dst_bytes, tensor->nbytes, tensor->nbytes);
    if (!dst && tensor->nbytes > 0)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: dst is NULL (pass a buffer of at least %zu "
                           "bytes)",
                           fn, tensor->nbytes);
    tcomm_graph_t *g = tensor->graph;
    return g->space->to_host(g->space_ctx, dst, tensor->data,
                             tensor->nbytes);
}
