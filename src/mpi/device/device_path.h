/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared pieces of the device path (src/mpi/device/device_path*.c): collectives
 * on tensors whose graph space is not host memory (cuda, sim).
 *
 *   device_path.c         entry points: direct or staged, dim > 0
 *                         reshaping around either, logging
 *   device_path_direct.c  CUDA-aware MPI on device pointers
 *   device_path_fold.c    all-to-all of chunks + rank-order fold: the
 *                         reductions MPI cannot do (device or host side),
 *                         and host tensors' deterministic mode (ordered.c)
 *   device_path_staged.c  the double-buffered pinned pipeline, and the
 *                         staged all_reduce and broadcast
 *   device_path_staged_ops.c  staged all_gather and reduce_scatter
 *                         (equal and uneven blocks)
 *   device_path_exchange.c    the all-to-all of blocks, direct or staged
 *   device_all_to_all.c   entry points of all_to_all, all_to_all_v and
 *                         reduce_scatter_v */
#ifndef TCOMM_DEVICE_PATH_H
#define TCOMM_DEVICE_PATH_H

#include "tcomm_backend_mpi.h"

/* The space of a tensor's graph and the communicator it runs on. */
typedef struct {
    tcomm_mpi_state_t *st;
    const tcomm_memspace_t *sp;
    void *ctx;
    tcomm_dtype_t dtype;
    size_t el; /* bytes per element */
    int det;   /* deterministic: rank-order fold */
} tcomm_dev_t;

void tcomm_dev_init(tcomm_dev_t *d, tcomm_mpi_state_t *st,
                    const tcomm_tensor_t *t);
/* k arrays of a count per rank, back to back (free() it); NULL with
 * TCOMM_ERR_NO_MEMORY recorded. */
size_t *tcomm_dev_counts(const tcomm_dev_t *d, int k);

/* Device scratch of @p bytes from the graph's allocator (free it with
 * d->sp->free after the stream is synchronized). */
tcomm_status_t tcomm_dev_scratch(const tcomm_dev_t *d, size_t bytes,
                                 void **ptr);

/* 1 if MPI's built-in op reduces (dtype, op) exactly as tcomm does, on any
 * memory: SUM/PROD/MIN/MAX of f32, f64 and integers, except float MIN/MAX
 * (NaN) and deterministic mode. *mpi_op receives the op. */
int tcomm_dev_mpi_builtin(const tcomm_dev_t *d, tcomm_op_t op,
                          MPI_Op *mpi_op);

/* Where a fold runs: the device (direct path, on the graph's stream) or
 * the host (staged path, on pinned buffers). */
typedef struct {
    const tcomm_dev_t *dev; /* NULL: host kernels */
} tcomm_folder_t;

/* All-to-all (point to point, size_t counts; counts and offsets in
 * elements): rank j receives scount[j] elements from send + soff[j];
 * rank r's elements land at recv + roff[r] (rcount[r] of them). */
tcomm_status_t tcomm_dev_alltoallv(const tcomm_dev_t *d, const void *send,
                                   const size_t *scount, const size_t *soff,
                                   void *recv, const size_t *rcount,
                                   const size_t *roff);

/* all_reduce of n elements src -> dst (dst may be src) as an all-to-all
 * of balanced chunks, a rank-order fold of each chunk and an allgather.
 * scratch: (n / size + 1) * size elements in the same memory as src. */
tcomm_status_t tcomm_fold_all_reduce(const tcomm_dev_t *d,
                                     const tcomm_folder_t *f, tcomm_op_t op,
                                     const void *src, void *dst, size_t n,
                                     void *scratch);

/* reduce_scatter: src holds size blocks of stride elements; rank r gets
 * the rank-order fold of elements [off, off + count) of every block in
 * dst. scratch: size * count elements. */
tcomm_status_t tcomm_fold_reduce_scatter(const tcomm_dev_t *d,
                                         const tcomm_folder_t *f,
                                         tcomm_op_t op, const void *src,
                                         size_t stride, size_t off,
                                         void *dst, size_t count,
                                         void *scratch);

/* The same with uneven blocks: block j of count[j] elements at src +
 * off[j]; rank r gets the fold of block r of every rank in dst.
 * scratch: size * count[rank] elements. */
tcomm_status_t tcomm_fold_reduce_scatter_v(const tcomm_dev_t *d,
                                           const tcomm_folder_t *f,
                                           tcomm_op_t op, const void *src,
                                           const size_t *count,
                                           const size_t *off, void *dst,
                                           void *scratch);

/* Direct path (device pointers to MPI). */
tcomm_status_t tcomm_direct_all_reduce(const tcomm_dev_t *d,
                                       const void *in, void *out, size_t n,
                                       tcomm_op_t op);
tcomm_status_t tcomm_direct_all_gather(const tcomm_dev_t *d,
                                       const void *in, void *out,
                                       const size_t *count,
                                       const size_t *off);
tcomm_status_t tcomm_direct_reduce_scatter(const tcomm_dev_t *d,
                                           const void *in, void *out,
                                           size_t count, tcomm_op_t op);
tcomm_status_t tcomm_direct_broadcast(const tcomm_dev_t *d, const void *in,
                                      void *out, size_t n, int root);
/* Uneven blocks (reduce_scatter_v): block j of count[j] elements at in +
 * off[j] (back to back); rank r gets block r reduced. */
tcomm_status_t tcomm_direct_reduce_scatter_v(const tcomm_dev_t *d,
                                             const void *in, void *out,
                                             const size_t *count,
                                             const size_t *off,
                                             tcomm_op_t op);

/* Staged path (device <-> pinned host <-> MPI). Same arguments; in and
 * out are device pointers. */
tcomm_status_t tcomm_staged_all_reduce(const tcomm_dev_t *d,
                                       const void *in, void *out, size_t n,
                                       tcomm_op_t op);
tcomm_status_t tcomm_staged_all_gather(const tcomm_dev_t *d,
                                       const void *in, void *out,
                                       const size_t *count,
                                       const size_t *off);
tcomm_status_t tcomm_staged_reduce_scatter(const tcomm_dev_t *d,
                                           const void *in, void *out,
                                           size_t count, tcomm_op_t op);
tcomm_status_t tcomm_staged_broadcast(const tcomm_dev_t *d, const void *in,
                                      void *out, size_t n, int root);
tcomm_status_t tcomm_staged_reduce_scatter_v(const tcomm_dev_t *d,
                                             const void *in, void *out,
                                             const size_t *count,
                                             const size_t *off,
                                             tcomm_op_t op);

/* The all-to-all of device blocks (tcomm_dev_alltoallv's arguments, on
 * device pointers): direct (MPI on the device pointers, once the stream
 * is synchronized) or staged (pinned pieces of every block per step:
 * device_path_exchange.c). Queued work on send is honoured; on return
 * the stream is synchronized. */
tcomm_status_t tcomm_dev_exchange(const tcomm_dev_t *d, const void *send,
                                  const size_t *scount, const size_t *soff,
                                  void *recv, const size_t *rcount,
                                  const size_t *roff);

/* 1: the direct path (MPI is CUDA-aware and the space allows it). */
int tcomm_dev_use_direct(const tcomm_dev_t *d);

/* The call (coll, named name) takes the direct or staged path, with a
 * pack kernel (along its dim > 0), an unpack kernel and the all-to-all +
 * rank-order fold where they apply: its TRACE word and INFO line. */
void tcomm_dev_note(const tcomm_dev_t *d, tcomm_coll_kind_t coll,
                    const char *name, int pack, int unpack, int fold,
                    size_t bytes);

/* The staged pipeline: steps k = 0 .. steps-1 over two slots of pinned
 * buffers. stage_in(k, s) queues device -> host copies into slot s,
 * exchange(k, s) runs on the host once they are done (MPI, host
 * kernels), stage_out(k, s) queues host -> device copies from slot s.
 * The copies of step k+1 overlap the exchange of step k. */
typedef struct tcomm_pipe {
    const tcomm_dev_t *d;
    size_t steps;
    tcomm_status_t (*stage_in)(struct tcomm_pipe *p, size_t k, int s);
    tcomm_status_t (*exchange)(struct tcomm_pipe *p, size_t k, int s);
    tcomm_status_t (*stage_out)(struct tcomm_pipe *p, size_t k, int s);
} tcomm_pipe_t;

tcomm_status_t tcomm_pipe_run(tcomm_pipe_t *p);

/* Elements per staged chunk of TCOMM_STAGING_CHUNK bytes (>= 1, and
 * small enough for an int count). */
size_t tcomm_staged_chunk_elems(const tcomm_dev_t *d);

#define TCOMM_DEVICE_TAG 0x7c0d

#endif /* TCOMM_DEVICE_PATH_H */
