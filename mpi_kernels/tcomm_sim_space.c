/* SPDX-License-Identifier: BSD-3-Clause */
/* The sim memory space's table and its "kernels": the element ops
 * (reduce, divide, pack/unpack) queue the host kernels on the graph's
 * sim stream, which runs them at the next wait or synchronize. The
 * memory, the stream and the events are state, in core
 * (src/core/sim_stream.c); nothing here keeps any. */
#include "tcomm_host_kernels.h"
#include "tcomm_sim.h"

static void run_reduce(const tcomm_sim_op_t *o)
{
    tcomm_host_reduce(o->dtype, o->op, o->dst, o->src, o->n);
}

static void run_divide(const tcomm_sim_op_t *o)
{
    tcomm_host_divide(o->dtype, o->dst, o->n, o->divisor);
}

static void run_unpack(const tcomm_sim_op_t *o)
{
    tcomm_host_gather_unpack(o->src, o->dst, o->elsize, o->outer, o->nranks,
                             o->seg);
}

static void run_pack(const tcomm_sim_op_t *o)
{
    tcomm_host_scatter_pack(o->src, o->dst, o->elsize, o->outer, o->nranks,
                            o->chunk);
}

static void run_split(const tcomm_sim_op_t *o)
{
    tcomm_host_split_pack(o->src, o->dst, o->elsize, o->outer, o->nranks,
                          o->seg);
}

/* The layout ops (pack/unpack), queued with the kernel that runs them. */
static tcomm_status_t layout(void *ctx, void (*run)(const tcomm_sim_op_t *),
                             const void *src, void *dst, size_t elsize,
                             size_t outer, int nranks, const size_t *seg,
                             size_t chunk)
{
    tcomm_sim_op_t o = {.run = run,
                        .dst = tcomm_sim_untag(ctx, dst),
                        .src = tcomm_sim_untag(ctx, src),
                        .elsize = elsize,
                        .outer = outer,
                        .nranks = nranks,
                        .seg = seg,
                        .chunk = chunk};
    return tcomm_sim_enqueue(ctx, &o);
}

static tcomm_status_t sim_unpack(void *ctx, const void *src, void *dst,
                                 size_t elsize, size_t outer, int nranks,
                                 const size_t *seg)
{
    return layout(ctx, run_unpack, src, dst, elsize, outer, nranks, seg, 0);
}

static tcomm_status_t sim_split(void *ctx, const void *src, void *dst,
                                size_t elsize, size_t outer, int nranks,
                                const size_t *seg)
{
    return layout(ctx, run_split, src, dst, elsize, outer, nranks, seg, 0);
}

static tcomm_status_t sim_pack(void *ctx, const void *src, void *dst,
                               size_t elsize, size_t outer, int nranks,
                               size_t chunk)
{
    return layout(ctx, run_pack, src, dst, elsize, outer, nranks, NULL, chunk);
}

static tcomm_status_t sim_reduce(void *ctx, tcomm_dtype_t dtype, tcomm_op_t op,
                                 void *acc, const void *x, size_t n)
{
    tcomm_sim_op_t o = {.run = run_reduce,
                        .dst = tcomm_sim_untag(ctx, acc),
                        .src = tcomm_sim_untag(ctx, x),
                        .n = n,
                        .dtype = dtype,
                        .op = op};
    return tcomm_sim_enqueue(ctx, &o);
}

static tcomm_status_t sim_divide(void *ctx, tcomm_dtype_t dtype, void *buf,
                                 size_t n, double divisor)
{
    tcomm_sim_op_t o = {.run = run_divide,
                        .dst = tcomm_sim_untag(ctx, buf),
                        .n = n,
                        .dtype = dtype,
                        .divisor = divisor};
    return tcomm_sim_enqueue(ctx, &o);
}

#define SIM_SPACE_OPS                                                          \
    .alloc = tcomm_sim_alloc, .free = tcomm_sim_free,                          \
    .to_host = tcomm_sim_copy_sync, .from_host = tcomm_sim_copy_sync,          \
    .copy = tcomm_sim_copy_sync, .memset0 = tcomm_sim_memset0,                 \
    .register_buffer = tcomm_sim_register, .close = tcomm_sim_close,           \
    .staging = tcomm_sim_staging, .to_host_async = tcomm_sim_copy_async,       \
    .from_host_async = tcomm_sim_copy_async,                                   \
    .copy_async = tcomm_sim_copy_async, .reduce = sim_reduce,                  \
    .divide = sim_divide, .gather_unpack = sim_unpack,                         \
    .scatter_pack = sim_pack, .split_pack = sim_split,                         \
    .record = tcomm_sim_record, .wait = tcomm_sim_wait,                        \
    .synchronize = tcomm_sim_synchronize

const tcomm_memspace_t tcomm_memspace_sim = {
    .name = "sim", .is_host = 0, .mpi_direct = 1, SIM_SPACE_OPS
};
const tcomm_memspace_t tcomm_memspace_sim_tagged = {
    .name = "sim-tagged", .is_host = 0, .mpi_direct = 0, SIM_SPACE_OPS
};

tcomm_status_t tcomm_graph_create_sim_flags(int index, int flags,
                                            tcomm_graph_t **graph)
{
    if (!graph || index < 0)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_graph_create_sim: graph is NULL or index "
                           "%d is negative (pass a graph pointer and an "
                           "index >= 0)", index);
    int tagged = (flags & TCOMM_SIM_TAGGED) != 0;
    void *ctx;
    TCOMM_TRY(tcomm_sim_open(index, tagged, &ctx));
    tcomm_device_t dev = { TCOMM_DEVICE_CUDA, index };
    const tcomm_memspace_t *sp =
        tagged ? &tcomm_memspace_sim_tagged : &tcomm_memspace_sim;
    tcomm_status_t st = tcomm_graph_create_space(dev, sp, ctx, graph);
    if (st != TCOMM_SUCCESS)
        tcomm_sim_close(ctx);
    return st;
}

tcomm_status_t tcomm_graph_create_sim(int index, tcomm_graph_t **graph)
{
    return tcomm_graph_create_sim_flags(index, 0, graph);
}
