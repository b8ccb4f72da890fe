/* SPDX-License-Identifier: BSD-3-Clause */
/* The sim space's memory and stream (src/core/sim_stream.c): the state of
 * a sim graph (its queue of deferred work, its events, its staging
 * buffer) and the ops that need no kernel. Its table and the ops that
 * run the host kernels are mpi_kernels/tcomm_sim_space.c, which queues
 * them here with the function that runs them: core calls no kernel by
 * name. Every function takes the space's ctx, as tcomm_memspace_t's ops
 * do. */
#ifndef TCOMM_SIM_STREAM_H
#define TCOMM_SIM_STREAM_H

#include "tcomm_internal.h"

typedef struct tcomm_sim_op tcomm_sim_op_t;

/* Work queued on a sim stream. Pointers are untagged (host addresses). */
struct tcomm_sim_op {
    void (*run)(const tcomm_sim_op_t *o); /* NULL: memmove n bytes */
    void *dst;
    const void *src;
    size_t n; /* bytes for copies, elements otherwise */
    tcomm_dtype_t dtype;
    tcomm_op_t op;
    double divisor;
    size_t elsize, outer, chunk;
    int nranks;
    const size_t *seg; /* NULL, or nranks entries: the queue copies them,
                        * since the caller's array may be gone when the
                        * work runs */
};

/* A sim device's context; tagged: its pointers fault on host access. */
tcomm_status_t tcomm_sim_open(int index, int tagged, void **ctx);
void tcomm_sim_close(void *ctx);
/* The host address behind a sim pointer. */
void *tcomm_sim_untag(void *ctx, const void *ptr);
/* Queue o; it runs at the next wait, synchronize or synchronous op. */
tcomm_status_t tcomm_sim_enqueue(void *ctx, const tcomm_sim_op_t *o);

/* tcomm_memspace_t's ops of the sim space that run no kernel. */
tcomm_status_t tcomm_sim_alloc(void *ctx, size_t bytes, void **ptr);
void tcomm_sim_free(void *ctx, void *ptr);
tcomm_status_t tcomm_sim_copy_sync(void *ctx, void *dst, const void *src,
                                   size_t bytes);
tcomm_status_t tcomm_sim_memset0(void *ctx, void *dst, size_t bytes);
tcomm_status_t tcomm_sim_register(void *ctx, const void *ptr, size_t bytes);
tcomm_status_t tcomm_sim_staging(void *ctx, size_t bytes, void **ptr);
tcomm_status_t tcomm_sim_copy_async(void *ctx, void *dst, const void *src,
                                    size_t bytes);
tcomm_status_t tcomm_sim_record(void *ctx, int slot);
tcomm_status_t tcomm_sim_wait(void *ctx, int slot);
tcomm_status_t tcomm_sim_synchronize(void *ctx);

/* Testing entry points (tcomm_sim.h), on a sim graph. Operations queued
 * on its stream that have not run yet (the sim stream defers work until
 * a wait or synchronize, so that a missing synchronization shows up as a
 * wrong result). */
size_t tcomm_sim_pending(const tcomm_graph_t *graph);
/* The host address behind a sim "device" pointer (untags it). */
void *tcomm_sim_host_ptr(const tcomm_graph_t *graph, const void *ptr);

#endif /* TCOMM_SIM_STREAM_H */
