/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tcomm.h
 * @brief tcomm core API: graphs, tensors, communicators and collectives.
 *
 * Every function returns a ::tcomm_status_t; on failure
 * tcomm_last_error() holds a sentence naming the call, the problem and the
 * fix, and no output argument is written.
 */

/**
 * @mainpage tcomm API reference
 *
 * tcomm runs collectives (all_reduce, all_gather, reduce_scatter,
 * broadcast, barrier) on tensors bound to a graph (a device and its
 * memory), over MPI or another backend, with cross-rank agreement on
 * every call.
 *
 * - tcomm.h: status codes, dtypes and ops, graphs, tensors, communicators
 *   and the collectives (the core API; no MPI header needed).
 * - tcomm_mpi.h: tcomm_comm_create_mpi(), a communicator over an MPI
 *   communicator.
 * - tcomm_backend.h: the vtable ::tcomm_backend_ops_t for backends written
 *   outside tcomm, and tcomm_comm_create_custom().
 * - tcomm_gloo.h, tcomm_nccl.h: the Gloo and NCCL backends.
 *
 * Build a program with `mpicc prog.c $(pkg-config --cflags --libs tcomm)`.
 * The user guide (doc/user-guide.md), the reference of every setting,
 * configure option and status code (doc/reference.md) and the design notes
 * (doc/design-notes.md) come with the sources; `man tcomm_info` prints the
 * settings in force.
 */
#ifndef TCOMM_H
#define TCOMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Marks the public API for export from libtcomm.so (default
 *  visibility while tcomm itself is built; empty for its users). */
#if defined(TCOMM_BUILDING) && defined(__GNUC__)
#define TCOMM_EXPORT __attribute__((visibility("default")))
#else
#define TCOMM_EXPORT
#endif

/** @brief Major version of these headers (tcomm_get_version() gives the
 *  library's). MAJOR.MINOR is the contract they implement (0.3: the
 *  seed's calls, all_to_all, the _v forms, the nonblocking calls and
 *  reduce). */
#define TCOMM_VERSION_MAJOR 0
/** @brief Minor version of these headers. */
#define TCOMM_VERSION_MINOR 3
/** @brief Patch version of these headers. */
#define TCOMM_VERSION_PATCH 0

/** @brief Status codes: 0 is success, every error is negative. */
typedef enum {
    TCOMM_SUCCESS = 0,             /**< the call did what it says */
    TCOMM_ERR_INVALID_ARG = -1,    /**< NULL, dim/root out of range, bad enum */
    TCOMM_ERR_SHAPE = -2,          /**< local shape rule broken */
    TCOMM_ERR_DTYPE = -3,          /**< dtype mismatch or unsupported dtype/op */
    TCOMM_ERR_GRAPH_MISMATCH = -4, /**< tensors of different graphs combined */
    TCOMM_ERR_MISMATCH = -5,       /**< ranks disagree on the collective */
    TCOMM_ERR_TIMEOUT = -6,        /**< peers late beyond TCOMM_TIMEOUT */
    TCOMM_ERR_UNSUPPORTED = -7,    /**< e.g. CUDA tensor without CUDA */
    TCOMM_ERR_NO_MEMORY = -8,      /**< host or device allocation failed */
    TCOMM_ERR_MPI = -9,            /**< MPI returned an error */
    TCOMM_ERR_CUDA = -10,          /**< a CUDA call failed */
    TCOMM_ERR_COMM_FAILED = -11,   /**< communicator unusable after a fatal error */
    TCOMM_ERR_INTERNAL = -12       /**< a tcomm bug: the sentence says where to report it */
} tcomm_status_t;

/** @brief Constant text of a status, e.g. "invalid argument". */
TCOMM_EXPORT const char *tcomm_status_string(tcomm_status_t status);
/** @brief This thread's sentence about its last failure ("" if none). */
TCOMM_EXPORT const char *tcomm_last_error(void);
/** @brief Library version; any pointer may be NULL. */
TCOMM_EXPORT void tcomm_get_version(int *major, int *minor, int *patch);

/** @brief Element types. f16 is IEEE binary16, bf16 is bfloat16. */
typedef enum {
    TCOMM_U8, TCOMM_I8, TCOMM_I32, TCOMM_U32, TCOMM_I64,
    TCOMM_F16, TCOMM_BF16, TCOMM_F32, TCOMM_F64
} tcomm_dtype_t;
/** @brief The number of dtypes (valid dtypes are 0 .. count - 1). */
#define TCOMM_DTYPE_COUNT 9
/** @brief Bytes per element; 0 for an invalid dtype. */
TCOMM_EXPORT size_t tcomm_dtype_size(tcomm_dtype_t dtype);
/** @brief Short name ("f32", "bf16", ...); "?" for an invalid dtype. */
TCOMM_EXPORT const char *tcomm_dtype_name(tcomm_dtype_t dtype);

/** @brief Reductions. MIN/MAX propagate NaN; AVG is for floating dtypes. */
typedef enum { TCOMM_SUM, TCOMM_PROD, TCOMM_MIN, TCOMM_MAX, TCOMM_AVG } tcomm_op_t;
/** @brief The number of ops (valid ops are 0 .. count - 1). */
#define TCOMM_OP_COUNT 5
/** @brief Lower-case name of an op ("sum", ...); "?" if invalid. */
TCOMM_EXPORT const char *tcomm_op_name(tcomm_op_t op);

/** @brief Kinds of device a graph can live on. */
typedef enum {
    TCOMM_DEVICE_HOST, /**< host memory */
    TCOMM_DEVICE_CUDA  /**< a CUDA device (builds with CUDA) */
} tcomm_device_kind_t;
/** @brief A device: its kind and, for CUDA, its index. */
typedef struct {
    tcomm_device_kind_t kind; /**< host or CUDA */
    int index;                /**< CUDA device index; 0 for the host */
} tcomm_device_t;

/** @brief The most dimensions a tensor may have. */
#define TCOMM_MAX_DIMS 8

/** @brief A graph: a device, its allocator and its registered buffers. */
typedef struct tcomm_graph tcomm_graph_t;
/** @brief A contiguous, row-major, reference-counted tensor of one graph. */
typedef struct tcomm_tensor tcomm_tensor_t;
/** @brief A communicator: one handle over a backend (identity, MPI, ...). */
typedef struct tcomm_comm tcomm_comm_t;

/** @brief Create a graph: a device, its allocator and registered buffers. */
TCOMM_EXPORT tcomm_status_t tcomm_graph_create(tcomm_device_t device,
                                               tcomm_graph_t **graph);
/** @brief Destroy a graph; fails while tensors of it are alive. */
TCOMM_EXPORT tcomm_status_t tcomm_graph_destroy(tcomm_graph_t *graph);
/** @brief Unique in the process, never 0. */
TCOMM_EXPORT uint64_t tcomm_graph_id(const tcomm_graph_t *graph);
/** @brief The device @p graph was created on. */
TCOMM_EXPORT tcomm_device_t tcomm_graph_device(const tcomm_graph_t *graph);

/** @brief A new tensor on @p graph holding a copy of host @p data. */
TCOMM_EXPORT tcomm_status_t tcomm_tensor_from_host(
    tcomm_graph_t *graph, tcomm_dtype_t dtype, const void *data, int ndim,
    const size_t *shape, tcomm_tensor_t **tensor);
/** @brief Like tcomm_tensor_from_host, on the graph of @p anchor. */
TCOMM_EXPORT tcomm_status_t tcomm_tensor_const_like(
    const tcomm_tensor_t *anchor, tcomm_dtype_t dtype, const void *data,
    int ndim, const size_t *shape, tcomm_tensor_t **tensor);
/** @brief A new zero-filled tensor on @p graph. */
TCOMM_EXPORT tcomm_status_t tcomm_tensor_empty(tcomm_graph_t *graph,
                                               tcomm_dtype_t dtype, int ndim,
                                               const size_t *shape,
                                               tcomm_tensor_t **tensor);
/** @brief Zero copy: a tensor over the caller's @p buffer, which must
 *  outlive it; the buffer is registered with the graph. */
TCOMM_EXPORT tcomm_status_t tcomm_tensor_wrap(tcomm_graph_t *graph,
                                              tcomm_dtype_t dtype, void *buffer,
                                              int ndim, const size_t *shape,
                                              tcomm_tensor_t **tensor);
/** @brief One more reference; returns @p tensor. */
TCOMM_EXPORT tcomm_tensor_t *tcomm_tensor_retain(tcomm_tensor_t *tensor);
/** @brief Drop a reference; NULL is fine. */
TCOMM_EXPORT void tcomm_tensor_release(tcomm_tensor_t *tensor);

/** @brief The graph @p tensor is bound to. */
TCOMM_EXPORT tcomm_graph_t *tcomm_tensor_graph(const tcomm_tensor_t *tensor);
/** @brief tcomm_graph_id() of the tensor's graph. */
TCOMM_EXPORT uint64_t tcomm_tensor_graph_id(const tcomm_tensor_t *tensor);
/** @brief The element type of @p tensor. */
TCOMM_EXPORT tcomm_dtype_t tcomm_tensor_dtype(const tcomm_tensor_t *tensor);
/** @brief The number of dimensions, 0 to ::TCOMM_MAX_DIMS. */
TCOMM_EXPORT int tcomm_tensor_ndim(const tcomm_tensor_t *tensor);
/** @brief Size along @p axis; 0 if @p axis is out of range. */
TCOMM_EXPORT size_t tcomm_tensor_dim(const tcomm_tensor_t *tensor, int axis);
/** @brief The number of elements (1 for a 0-d tensor). */
TCOMM_EXPORT size_t tcomm_tensor_numel(const tcomm_tensor_t *tensor);
/** @brief The element buffer (a device pointer on CUDA graphs). */
TCOMM_EXPORT void *tcomm_tensor_data(const tcomm_tensor_t *tensor);
/** @brief Copy the elements to host memory of at least numel*size bytes. */
TCOMM_EXPORT tcomm_status_t tcomm_tensor_to_host(const tcomm_tensor_t *tensor,
                                                 void *dst, size_t dst_bytes);
/** @brief Element-wise sum; TCOMM_ERR_GRAPH_MISMATCH across graphs. */
TCOMM_EXPORT tcomm_status_t tcomm_tensor_add(const tcomm_tensor_t *a,
                                             const tcomm_tensor_t *b,
                                             tcomm_tensor_t **sum);

/** @brief What tcomm_comm_info() reports about a communicator. */
typedef struct {
    int rank;            /**< this handle's rank, 0 .. world_size - 1 */
    int world_size;      /**< the number of ranks */
    const char *backend; /**< "identity", "mpi", ... */
    int cuda_aware;      /**< 1 if device buffers go to MPI directly */
} tcomm_comm_info_t;

/** @brief A communicator of world size 1 (every collective is a no-op). */
TCOMM_EXPORT tcomm_status_t tcomm_comm_create_identity(tcomm_comm_t **comm);
/** @brief world_size ranks as threads of one process: comms[r] is rank r. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_create_local(int world_size,
                                                    tcomm_comm_t **comms);
/** @brief Rank, world size, backend name and CUDA-awareness of @p comm. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_info(const tcomm_comm_t *comm,
                                            tcomm_comm_info_t *info);
/** @brief Free @p comm (and its duplicate MPI communicator); a failed
 *  communicator is destroyed without waiting for its peers. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_destroy(tcomm_comm_t *comm);

/** @brief Per-communicator settings; the defaults come from TCOMM_CHECK
 *  and TCOMM_DETERMINISTIC. Set them to the same value on every rank. */
typedef enum {
    TCOMM_ATTR_CHECK,        /**< 1: ranks agree before data moves */
    TCOMM_ATTR_DETERMINISTIC /**< 1: reductions fold in rank order */
} tcomm_comm_attr_t;
/** @brief Set an attribute to 0 or 1. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_set_attr(tcomm_comm_t *comm,
                                                tcomm_comm_attr_t attr,
                                                int value);
/** @brief Read an attribute (0 or 1) into @p value. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_get_attr(const tcomm_comm_t *comm,
                                                tcomm_comm_attr_t attr,
                                                int *value);

/** @brief Element-wise reduction, result on every rank. *out is a new
 *  reference on the input's graph. */
TCOMM_EXPORT tcomm_status_t tcomm_all_reduce(tcomm_comm_t *comm,
                                             const tcomm_tensor_t *in,
                                             tcomm_op_t op,
                                             tcomm_tensor_t **out);
/** @brief Concatenate every rank's tensor along @p dim, in rank order;
 *  sizes along @p dim may differ between ranks. */
TCOMM_EXPORT tcomm_status_t tcomm_all_gather(tcomm_comm_t *comm,
                                             const tcomm_tensor_t *in, int dim,
                                             tcomm_tensor_t **out);
/** @brief Reduce, then rank r keeps the r-th equal chunk along @p dim. */
TCOMM_EXPORT tcomm_status_t tcomm_reduce_scatter(tcomm_comm_t *comm,
                                                 const tcomm_tensor_t *in,
                                                 tcomm_op_t op, int dim,
                                                 tcomm_tensor_t **out);
/** @brief Root's tensor on every rank. */
TCOMM_EXPORT tcomm_status_t tcomm_broadcast(tcomm_comm_t *comm,
                                            const tcomm_tensor_t *in, int root,
                                            tcomm_tensor_t **out);
/** @brief Block until all ranks arrive. */
TCOMM_EXPORT tcomm_status_t tcomm_barrier(tcomm_comm_t *comm);

/** @brief The same into a caller-owned tensor of the same graph;
 *  out == in is allowed (in place). */
TCOMM_EXPORT tcomm_status_t tcomm_all_reduce_into(tcomm_comm_t *comm,
                                                  const tcomm_tensor_t *in,
                                                  tcomm_op_t op,
                                                  tcomm_tensor_t *out);
/** @brief tcomm_all_gather() into @p out, whose size along @p dim must be
 *  the sum of every rank's. */
TCOMM_EXPORT tcomm_status_t tcomm_all_gather_into(tcomm_comm_t *comm,
                                                  const tcomm_tensor_t *in,
                                                  int dim, tcomm_tensor_t *out);
/** @brief tcomm_reduce_scatter() into @p out, of this rank's chunk's
 *  shape. */
TCOMM_EXPORT tcomm_status_t tcomm_reduce_scatter_into(tcomm_comm_t *comm,
                                                      const tcomm_tensor_t *in,
                                                      tcomm_op_t op, int dim,
                                                      tcomm_tensor_t *out);
/** @brief out == in is allowed (in place). */
TCOMM_EXPORT tcomm_status_t tcomm_broadcast_into(tcomm_comm_t *comm,
                                                 const tcomm_tensor_t *in,
                                                 int root, tcomm_tensor_t *out);
/** @brief MPI_Reduce's semantics (contract 0.3): the reduction over the
 *  ranks of @p in with @p op lands in @p out on rank @p root only (the
 *  input's shape and dtype, on its graph; out == in: in place). On the
 *  other ranks @p out is not read nor written and may be NULL. */
TCOMM_EXPORT tcomm_status_t tcomm_reduce_into(tcomm_comm_t *comm,
                                              const tcomm_tensor_t *in,
                                              tcomm_op_t op, int root,
                                              tcomm_tensor_t *out);

/** @brief Split @p in along @p split_dim into world_size equal chunks;
 *  chunk j goes to rank j, and each rank concatenates the chunks it
 *  receives, in rank order, along @p concat_dim. The size along
 *  @p split_dim must divide by world_size (else TCOMM_ERR_SHAPE on every
 *  rank); every rank passes the same shape, of at least one dim. The
 *  output has the input's
 *  shape with [split_dim] / world_size and [concat_dim] * world_size
 *  (unchanged when split_dim == concat_dim). */
TCOMM_EXPORT tcomm_status_t tcomm_all_to_all(tcomm_comm_t *comm,
                                             const tcomm_tensor_t *in,
                                             int split_dim, int concat_dim,
                                             tcomm_tensor_t **out);
/** @brief tcomm_all_to_all() into @p out, of the result's shape; out == in
 *  is allowed (in place) where the shapes match (split_dim ==
 *  concat_dim). */
TCOMM_EXPORT tcomm_status_t tcomm_all_to_all_into(tcomm_comm_t *comm,
                                                  const tcomm_tensor_t *in,
                                                  int split_dim,
                                                  int concat_dim,
                                                  tcomm_tensor_t *out);
/** @brief Uneven all_to_all: @p send_sizes[j] (world_size entries adding
 *  up to in's size along @p split_dim) is the size along split_dim of the
 *  chunk sent to rank j; zero is allowed.
 *  - split_dim == concat_dim (token exchange): the ranks' send_sizes and
 *    their sizes along that dim may differ; rank j's output has there the
 *    sum over r of rank r's send_sizes[j].
 *  - split_dim != concat_dim (a pencil transpose): every rank passes the
 *    same send_sizes (else TCOMM_ERR_MISMATCH naming the ranks); sizes
 *    along concat_dim may differ; rank j's output has send_sizes[j] along
 *    split_dim and the sum of the ranks' sizes along concat_dim.
 *  All other dims agree across ranks. */
TCOMM_EXPORT tcomm_status_t tcomm_all_to_all_v(tcomm_comm_t *comm,
                                               const tcomm_tensor_t *in,
                                               int split_dim,
                                               const size_t *send_sizes,
                                               int concat_dim,
                                               tcomm_tensor_t **out);
/** @brief Uneven reduce_scatter: @p sizes[r] is rank r's chunk along
 *  @p dim; the same array on every rank, adding up to in's size along
 *  dim. */
TCOMM_EXPORT tcomm_status_t tcomm_reduce_scatter_v(tcomm_comm_t *comm,
                                                   const tcomm_tensor_t *in,
                                                   tcomm_op_t op, int dim,
                                                   const size_t *sizes,
                                                   tcomm_tensor_t **out);

/** @brief A nonblocking collective in flight (contract 0.2). */
typedef struct tcomm_request tcomm_request_t;
/** @brief Start an all_reduce into the caller-owned @p out (out == in:
 *  in place) and return at once; *req completes with tcomm_wait() or
 *  tcomm_test(). @p in must not be changed, nor @p out read, until then.
 *  The collective progresses while the caller computes. */
TCOMM_EXPORT tcomm_status_t tcomm_all_reduce_start(tcomm_comm_t *comm,
                                                   const tcomm_tensor_t *in,
                                                   tcomm_op_t op,
                                                   tcomm_tensor_t *out,
                                                   tcomm_request_t **req);
/** @brief Nonblocking tcomm_all_gather_into(). */
TCOMM_EXPORT tcomm_status_t tcomm_all_gather_start(tcomm_comm_t *comm,
                                                   const tcomm_tensor_t *in,
                                                   int dim,
                                                   tcomm_tensor_t *out,
                                                   tcomm_request_t **req);
/** @brief Nonblocking tcomm_reduce_scatter_into(). */
TCOMM_EXPORT tcomm_status_t tcomm_reduce_scatter_start(
    tcomm_comm_t *comm, const tcomm_tensor_t *in, tcomm_op_t op, int dim,
    tcomm_tensor_t *out, tcomm_request_t **req);
/** @brief Nonblocking tcomm_broadcast_into() (out == in: in place). */
TCOMM_EXPORT tcomm_status_t tcomm_broadcast_start(tcomm_comm_t *comm,
                                                  const tcomm_tensor_t *in,
                                                  int root,
                                                  tcomm_tensor_t *out,
                                                  tcomm_request_t **req);
/** @brief Nonblocking tcomm_reduce_into() (contract 0.3). */
TCOMM_EXPORT tcomm_status_t tcomm_reduce_start(tcomm_comm_t *comm,
                                               const tcomm_tensor_t *in,
                                               tcomm_op_t op, int root,
                                               tcomm_tensor_t *out,
                                               tcomm_request_t **req);
/** @brief Nonblocking tcomm_all_to_all_into(). */
TCOMM_EXPORT tcomm_status_t tcomm_all_to_all_start(tcomm_comm_t *comm,
                                                   const tcomm_tensor_t *in,
                                                   int split_dim,
                                                   int concat_dim,
                                                   tcomm_tensor_t *out,
                                                   tcomm_request_t **req);
/** @brief Nonblocking tcomm_barrier(). */
TCOMM_EXPORT tcomm_status_t tcomm_barrier_start(tcomm_comm_t *comm,
                                                tcomm_request_t **req);
/** @brief Complete *req and return the collective's status (its sentence
 *  in tcomm_last_error()); *req = NULL. */
TCOMM_EXPORT tcomm_status_t tcomm_wait(tcomm_request_t **req);
/** @brief *done = 1: completed, as tcomm_wait(); *done = 0: still running
 *  (returns TCOMM_SUCCESS and keeps *req). */
TCOMM_EXPORT tcomm_status_t tcomm_test(tcomm_request_t **req, int *done);
/** @brief Wait for all @p n requests (NULL entries are skipped); returns
 *  the status of the first failed one in array order, TCOMM_SUCCESS if
 *  none; every reqs[i] = NULL. */
TCOMM_EXPORT tcomm_status_t tcomm_wait_all(int n, tcomm_request_t **reqs);

#ifdef __cplusplus
}
#endif
#endif /* TCOMM_H */
