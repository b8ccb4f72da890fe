/* SPDX-License-Identifier: BSD-3-Clause */
/* Graphs: a device, the memory space its tensors live in, and a count of
 * live tensors. Ids come from a process-wide atomic counter. */
#include <stdlib.h>

#include "tcomm_config.h"
#include "tcomm_internal.h"

static atomic_uint_fast64_t next_graph_id = 1;

tcomm_status_t tcomm_graph_create_space(tcomm_device_t device,
                                        const tcomm_memspace_t *space,
                                        void *ctx, tcomm_graph_t **graph)
{
    tcomm_graph_t *g = calloc(1, sizeof *g);
    if (!g)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_graph_create: out of host memory");
    g->id = atomic_fetch_add(&next_graph_id, 1);
    g->device = device;
    g->space = space;
    g->space_ctx = ctx;
    atomic_init(&g->live_tensors, 0);
    *graph = g;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_graph_create(tcomm_device_t device,
                                  tcomm_graph_t **graph)
{
    tcomm_error_clear();
    (void)tcomm_config(); /* the point where the settings are read */
    if (!graph)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_graph_create: graph is NULL (pass the "
                           "address of a tcomm_graph_t pointer)");
    if (device.index < 0)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_graph_create: device index %d is negative "
                           "(use 0 or above)",
                           device.index);
    switch (device.kind) {
    case TCOMM_DEVICE_HOST:
        return tcomm_graph_create_space(device, &tcomm_memspace_host, NULL,
                                        graph);
    case TCOMM_DEVICE_CUDA: {
        const tcomm_memspace_t *space;
        void *ctx;
        TCOMM_TRY(tcomm_device_space_open(device, &space, &ctx));
        tcomm_status_t st = tcomm_graph_create_space(device, space, ctx,
                                                     graph);
        if (st != TCOMM_SUCCESS)
            tcomm_device_space_close(space, ctx);
        return st;
    }
    }
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "tcomm_graph_create: device kind %d is not a "
                       "tcomm_device_kind_t (use TCOMM_DEVICE_HOST or "
                       "TCOMM_DEVICE_CUDA)",
                       (int)device.kind);
}

tcomm_status_t tcomm_graph_destroy(tcomm_graph_t *graph)
{
    tcomm_error_clear();
    if (!graph)
        return TCOMM_SUCCESS;
    long live = atomic_load(&graph->live_tensors);
    if (live > 0)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_graph_destroy: graph %llu still has %ld "
                           "live tensors (release them first)",
                           (unsigned long long)graph->id, live);
    if (graph->space != &tcomm_memspace_host)
        tcomm_device_space_close(graph->space, graph->space_ctx);
    free(graph);
    return TCOMM_SUCCESS;
}

uint64_t tcomm_graph_id(const tcomm_graph_t *graph)
{
    return graph ? graph->id : 0;
}

tcomm_device_t tcomm_graph_device(const tcomm_graph_t *graph)
{
    tcomm_device_t none = {TCOMM_DEVICE_HOST, -1};
    return graph ? graph->device : none;
}
