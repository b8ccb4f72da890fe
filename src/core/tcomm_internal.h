/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal types shared by the core, the backends and the tests. */
#ifndef TCOMM_INTERNAL_H
#define TCOMM_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tcomm.h"
#include "tcomm_backend.h"
#include "tcomm_error.h"
#include "tcomm_paths.h"

/* One cache line: the unit of the shared-memory layouts (a line per rank,
 * so that no two ranks write one line) and of host tensor alignment. */
#define TCOMM_CACHE_LINE 64

/* Per-rank arrays live on the stack up to this many ranks, on the heap
 * beyond (where an allocation can fail: every user has an error path). */
#define TCOMM_STACK_RANKS 128

/* A memory space: where a graph's tensors live and how to reach them.
 * host: plain host memory. Device spaces (cuda, sim) add staging. */
typedef struct tcomm_memspace {
    const char *name;
    int is_host; /* 1: MPI and host kernels may touch the memory directly */
    tcomm_status_t (*alloc)(void *ctx, size_t bytes, void **ptr);
    void (*free)(void *ctx, void *ptr);
    tcomm_status_t (*to_host)(void *ctx, void *dst, const void *src,
                              size_t bytes);
    tcomm_status_t (*from_host)(void *ctx, void *dst, const void *src,
                                size_t bytes);
    tcomm_status_t (*copy)(void *ctx, void *dst, const void *src,
                           size_t bytes);
    tcomm_status_t (*memset0)(void *ctx, void *dst, size_t bytes);
    /* tcomm_tensor_wrap: accept or reject a caller's buffer (NULL: any) */
    tcomm_status_t (*register_buffer)(void *ctx, const void *ptr,
                                      size_t bytes);
    /* Device spaces only (NULL on host, but for copy_async, reduce,
     * divide and split_pack); see src/core/device_space.c. alloc,
     * free, to_host, from_host, copy and memset0 above are complete on
     * return. The *_async calls, reduce, divide and the reshaping run in
     * order on the graph's stream: the host sees their effects only after
     * wait or synchronize. */
    /* graph create: the context of device index (its memory, stream) */
    tcomm_status_t (*open)(int index, void **ctx);
    void (*close)(void *ctx); /* graph destroy: release everything */
    /* A pinned host buffer of >= bytes owned by ctx, valid until the next
     * staging call or close (the staged path's double buffers). */
    tcomm_status_t (*staging)(void *ctx, size_t bytes, void **ptr);
    tcomm_status_t (*to_host_async)(void *ctx, void *dst, const void *src,
                                    size_t bytes);
    tcomm_status_t (*from_host_async)(void *ctx, void *dst, const void *src,
                                      size_t bytes);
    tcomm_status_t (*copy_async)(void *ctx, void *dst, const void *src,
                                 size_t bytes);
    /* acc[i] = acc[i] op x[i], as tcomm_host_reduce (AVG folds as SUM).
     * With copy_async and divide, the element ops of tcomm_space_fold and
     * tcomm_space_finish, which every space has (host too). */
    tcomm_status_t (*reduce)(void *ctx, tcomm_dtype_t dtype, tcomm_op_t op,
                             void *acc, const void *x, size_t n);
    /* buf[i] /= divisor, as tcomm_host_divide. */
    tcomm_status_t (*divide)(void *ctx, tcomm_dtype_t dtype, void *buf,
                             size_t n, double divisor);
    /* As tcomm_host_gather_unpack, tcomm_host_scatter_pack and
     * tcomm_host_split_pack (uneven blocks: all_to_all_v,
     * reduce_scatter_v). */
    tcomm_status_t (*gather_unpack)(void *ctx, const void *src, void *dst,
                                    size_t elsize, size_t outer, int nranks,
                                    const size_t *seg);
    tcomm_status_t (*scatter_pack)(void *ctx, const void *src, void *dst,
                                   size_t elsize, size_t outer, int nranks,
                                   size_t chunk);
    tcomm_status_t (*split_pack)(void *ctx, const void *src, void *dst,
                                 size_t elsize, size_t outer, int nranks,
                                 const size_t *seg);
    /* Events: record marks the work queued so far under slot
     * (0 .. TCOMM_MEMSPACE_SLOTS-1); wait blocks the host until that
     * work is done; synchronize until all queued work is done. */
    tcomm_status_t (*record)(void *ctx, int slot);
    tcomm_status_t (*wait)(void *ctx, int slot);
    tcomm_status_t (*synchronize)(void *ctx);
    /* 1: where MPI is CUDA-aware it may take this space's pointers. */
    int mpi_direct;
} tcomm_memspace_t;

#define TCOMM_MEMSPACE_SLOTS 4

extern const tcomm_memspace_t tcomm_memspace_host;
/* The host space's memory ops (src/core/host_memory.c): its table, with
 * the element ops over the host kernels, is mpi_kernels/tcomm_host_space.c. */
tcomm_status_t tcomm_host_mem_alloc(void *ctx, size_t bytes, void **ptr);
void tcomm_host_mem_free(void *ctx, void *ptr);
tcomm_status_t tcomm_host_mem_copy(void *ctx, void *dst, const void *src,
                                   size_t bytes);
tcomm_status_t tcomm_host_mem_memset0(void *ctx, void *dst, size_t bytes);
/* A buffer of the C heap that only grows: *buf of *bytes becomes at least
 * want bytes (realloc, contents kept); what names it in the error. */
tcomm_status_t tcomm_host_grow(void **buf, size_t *bytes, size_t want,
                               const char *what);

struct tcomm_graph {
    uint64_t id;
    tcomm_device_t device;
    const tcomm_memspace_t *space;
    void *space_ctx;
    atomic_long live_tensors; /* destroy is refused while > 0 */
};

struct tcomm_tensor {
    atomic_int refs;
    tcomm_graph_t *graph;
    tcomm_dtype_t dtype;
    int ndim;
    size_t shape[TCOMM_MAX_DIMS];
    size_t numel;
    size_t nbytes;
    void *data;
    int owns_data; /* 0 for tcomm_tensor_wrap */
};

struct tcomm_comm {
    const tcomm_backend_ops_t *ops;
    void *state;
    int rank;
    int world_size;
    int cuda_aware;
    int check;         /* TCOMM_CHECK for this communicator */
    int deterministic; /* TCOMM_DETERMINISTIC for this communicator */
    int timed;         /* TCOMM_TIMEOUT > 0 when it was created */
    uint64_t seq;      /* collectives entered on this communicator */
    tcomm_status_t failed; /* non-zero once the communicator is unusable */
    uint64_t trace_id; /* TCOMM_DEBUG=TRACE: its number, 0 until traced */
    tcomm_paths_logged_t paths_logged; /* INFO lines printed (paths.c) */
    /* Nonblocking collectives (src/frontend/progress.c). */
    int progress_thread_ok; /* the backend's ops may run on another thread
                               (MPI: MPI_THREAD_MULTIPLE) */
    struct tcomm_progress *progress; /* its progress thread, once started */
    void (*stop_progress)(tcomm_comm_t *comm); /* drains it and joins */
    int async_running; /* the progress thread is inside a collective */
    int async_waiters; /* threads in tcomm_wait on this communicator */
};

/* A collective the progress thread runs while nobody waits for it: its
 * TCOMM_TIMEOUT clock does not run yet (it bounds tcomm_wait). */
static inline int tcomm_comm_unwaited(const tcomm_comm_t *comm)
{
    return __atomic_load_n(&comm->async_running, __ATOMIC_ACQUIRE) &&
           !__atomic_load_n(&comm->async_waiters, __ATOMIC_ACQUIRE);
}

/* Whether comm's backend has the op at offset slot of its vtable: set,
 * and inside the table its size field describes (0: the slots of
 * contract 0.1, name to destroy). Every optional slot is read through
 * it, so that a table built against an older header is never read past
 * its end. */
int tcomm_backend_has(const tcomm_comm_t *comm, size_t slot);
#define TCOMM_HAS_OP(comm, op)                                              \
    tcomm_backend_has((comm), offsetof(tcomm_backend_ops_t, op))

/* Enum and argument checks shared by the front end and the backends. */
static inline int tcomm_dtype_valid(int dtype)
{
    return dtype >= 0 && dtype < TCOMM_DTYPE_COUNT;
}
static inline int tcomm_op_valid(int op)
{
    return op >= 0 && op < TCOMM_OP_COUNT;
}
static inline int tcomm_dtype_is_float(tcomm_dtype_t dtype)
{
    return dtype == TCOMM_F16 || dtype == TCOMM_BF16 || dtype == TCOMM_F32 ||
           dtype == TCOMM_F64;
}

/* Product of shape[lo..hi) (1 for an empty range). */
static inline size_t tcomm_shape_prod(const size_t *shape, int lo, int hi)
{
    size_t p = 1;
    for (int i = lo; i < hi; i++)
        p *= shape[i];
    return p;
}

/* A tensor seen around dim: outer = the product of the dims before it,
 * inner = that of the dims after it (a 0-d tensor: 1 and 1). */
static inline void tcomm_dim_split(const tcomm_tensor_t *t, int dim,
                                   size_t *outer, size_t *inner)
{
    *outer = tcomm_shape_prod(t->shape, 0, dim);
    *inner = tcomm_shape_prod(t->shape, dim + 1, t->ndim);
}

/* Validate dtype/ndim/shape and compute numel and bytes, with overflow
 * checks; errors name @p fn. */
tcomm_status_t tcomm_shape_check(const char *fn, tcomm_dtype_t dtype,
                                 int ndim, const size_t *shape,
                                 size_t *numel, size_t *nbytes);
/* Allocate a tensor of the given shape on @p graph (zeroed). */
tcomm_status_t tcomm_tensor_alloc(const char *fn, tcomm_graph_t *graph,
                                  tcomm_dtype_t dtype, int ndim,
                                  const size_t *shape, tcomm_tensor_t **out);
/* Copy @p src's elements into @p dst (same bytes, same graph space). */
tcomm_status_t tcomm_tensor_copy(const tcomm_tensor_t *src,
                                 tcomm_tensor_t *dst);
/* Format a shape as "[4, 8]" into buf. */
void tcomm_shape_text(int ndim, const size_t *shape, char *buf, size_t len);

/* Communicator construction for the built-in backends. */
tcomm_status_t tcomm_comm_wrap_backend(const tcomm_backend_ops_t *ops,
                                       void *state, tcomm_comm_t **comm);

extern const tcomm_backend_ops_t tcomm_backend_identity;

/* Device memory spaces (src/core/device_space.c): the space of a
 * TCOMM_DEVICE_CUDA graph, TCOMM_ERR_UNSUPPORTED in a build without CUDA
 * or without a device. */
tcomm_status_t tcomm_device_space_open(tcomm_device_t device,
                                       const tcomm_memspace_t **space,
                                       void **ctx);
void tcomm_device_space_close(const tcomm_memspace_t *space, void *ctx);
/* A graph on an explicit memory space (sim graphs in tests). */
tcomm_status_t tcomm_graph_create_space(tcomm_device_t device,
                                        const tcomm_memspace_t *space,
                                        void *ctx, tcomm_graph_t **graph);

#endif /* TCOMM_INTERNAL_H */
