/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tcomm_backend.h
 * @brief The backend vtable, for backends written outside tcomm.
 *
 * The front end validates arguments, agrees across ranks (when the backend
 * provides allgather_bytes), allocates outputs on the input's graph and
 * handles world size 1; a backend only moves data. Backend functions
 * report failures with tcomm_backend_error() and return its status.
 *
 * Growing the table: new slots are only ever added at the end. Set
 * `.size = sizeof(tcomm_backend_ops_t)`: tcomm then knows which slots
 * your table has, and a slot past its end, like a NULL one, is absent.
 * A table with size 0 has the slots of contract 0.1 (name to destroy).
 * Only name and query are required: a collective whose slot is absent
 * returns TCOMM_ERR_UNSUPPORTED on every rank, with a sentence naming the
 * backend and the slot, before any data moves (at world size 1 the front
 * end answers every collective itself and never needs a slot). A table
 * compiled against tcomm 0.1's header, which had no size field, must be
 * recompiled.
 */
#ifndef TCOMM_BACKEND_H
#define TCOMM_BACKEND_H

#include "tcomm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The collectives, as tcomm_coll_args_t::coll names them. */
typedef enum tcomm_coll {
    TCOMM_COLL_ALL_REDUCE = 1,
    TCOMM_COLL_ALL_GATHER,
    TCOMM_COLL_REDUCE_SCATTER,
    TCOMM_COLL_BROADCAST,
    TCOMM_COLL_BARRIER,
    TCOMM_COLL_ALL_TO_ALL, /* contract 0.2 */
    TCOMM_COLL_ALL_TO_ALL_V,
    TCOMM_COLL_REDUCE_SCATTER_V,
    TCOMM_COLL_REDUCE /* tcomm 0.3: only through the collective slot */
} tcomm_coll_t;

/** @brief One collective call, as the front end hands it to a backend's
 *  `collective` slot after validating it, agreeing on it across ranks and
 *  allocating its output: every argument of every collective, and what
 *  the front end exchanged between the ranks. Fields a collective does
 *  not take are 0 or NULL. New fields are only ever added at the end;
 *  `size` says which ones this call has. */
typedef struct tcomm_coll_args {
    /** sizeof(tcomm_coll_args_t) of the tcomm that filled it. */
    size_t size;
    /** Which collective. */
    tcomm_coll_t coll;
    /** The input (NULL: barrier). */
    const tcomm_tensor_t *in;
    /** The output, of the input's graph (out == in: in place; reduce:
     *  NULL on ranks other than root). */
    tcomm_tensor_t *out;
    /** The reduction op (all_reduce, reduce, reduce_scatter(_v)). */
    tcomm_op_t op;
    /** The dim (all_gather, reduce_scatter(_v)); all_to_all(_v): the
     *  split_dim. */
    int dim;
    /** all_to_all(_v): the concat_dim. */
    int concat_dim;
    /** broadcast, reduce: the root. */
    int root;
    /** all_to_all_v's send_sizes, reduce_scatter_v's sizes (world size
     *  entries). */
    const size_t *send_sizes;
    /** What the front end exchanged (world size entries): all_gather's
     *  sizes[r] (rank r's size along dim), all_to_all_v's recv_sizes[r]
     *  (along concat_dim, what rank r sends here). */
    const size_t *recv_sizes;
    /** all_to_all_v: the table every rank saw, a row of world size + 1
     *  per rank (its size along concat_dim, then its send_sizes), so
     *  that a rank can find each peer's pieces without asking; NULL where
     *  the front end did not exchange it. */
    const int64_t *size_table;
    /** all_to_all_v: the largest size along the dims any rank's input or
     *  output has (the same on every rank: a path chosen from it is). */
    size_t extent_max;
} tcomm_coll_args_t;

/** @brief A backend: the operations the front end calls, each given the
 *  @p state passed to tcomm_comm_create_custom(). Make it a `const` object
 *  with designated initializers; every op returns a ::tcomm_status_t. */
typedef struct tcomm_backend_ops {
    /** sizeof(tcomm_backend_ops_t) of the header the table was built
     *  with (0: the slots of contract 0.1); see the file's description. */
    size_t size;
    /** Short name, reported as tcomm_comm_info_t::backend. */
    const char *name;
    /** rank and world size of this handle; cuda_aware as in info. */
    tcomm_status_t (*query)(void *state, int *rank, int *world_size,
                            int *cuda_aware);
    /** Every rank contributes @p bytes; all[r * bytes] receives rank r's.
     *  Optional: without it there is no cross-rank agreement. */
    tcomm_status_t (*allgather_bytes)(void *state, const void *mine,
                                      void *all, size_t bytes);
    /** Element-wise minimum over ranks of @p values, in place. Optional:
     *  the front end falls back to allgather_bytes. */
    tcomm_status_t (*allreduce_min_i64)(void *state, int64_t *values,
                                        int count);
    /** @p out has the input's shape; out == in means in place. The
     *  collectives are optional: absent, they answer
     *  TCOMM_ERR_UNSUPPORTED. */
    tcomm_status_t (*all_reduce)(void *state, const tcomm_tensor_t *in,
                                 tcomm_op_t op, tcomm_tensor_t *out);
    /** @p sizes[r] is rank r's size along @p dim (ndim >= 1). */
    tcomm_status_t (*all_gather)(void *state, const tcomm_tensor_t *in,
                                 int dim, const size_t *sizes,
                                 tcomm_tensor_t *out);
    /** @p out is this rank's chunk along @p dim. */
    tcomm_status_t (*reduce_scatter)(void *state, const tcomm_tensor_t *in,
                                     tcomm_op_t op, int dim,
                                     tcomm_tensor_t *out);
    /** out == in means in place. */
    tcomm_status_t (*broadcast)(void *state, const tcomm_tensor_t *in,
                                int root, tcomm_tensor_t *out);
    /** Returns once every rank has entered. */
    tcomm_status_t (*barrier)(void *state);
    /** Called once by tcomm_comm_destroy; may be NULL. */
    void (*destroy)(void *state);
    /* Contract 0.2. */
    /** Equal chunks: the piece of @p in along @p split_dim for rank j
     *  (size [split_dim] / world size) lands in @p out at rank j's place
     *  along @p concat_dim, from every rank. */
    tcomm_status_t (*all_to_all)(void *state, const tcomm_tensor_t *in,
                                 int split_dim, int concat_dim,
                                 tcomm_tensor_t *out);
    /** Uneven: this rank sends the slice of @p send_sizes[j] along
     *  @p split_dim to rank j; the slice from rank r has @p recv_sizes[r]
     *  along @p concat_dim and lands in @p out at offset sum(recv_sizes[<r])
     *  there (both the token exchange, split == concat, and the transpose,
     *  where the slices from every rank have send_sizes[rank] along
     *  split_dim). The front end has checked and exchanged the sizes. */
    tcomm_status_t (*all_to_all_v)(void *state, const tcomm_tensor_t *in,
                                   int split_dim, const size_t *send_sizes,
                                   int concat_dim, const size_t *recv_sizes,
                                   tcomm_tensor_t *out);
    /** Uneven reduce_scatter: @p out is this rank's chunk of
     *  @p sizes[rank] along @p dim, of the reduction over ranks. */
    tcomm_status_t (*reduce_scatter_v)(void *state, const tcomm_tensor_t *in,
                                       tcomm_op_t op, int dim,
                                       const size_t *sizes,
                                       tcomm_tensor_t *out);
    /** Optional: allreduce_min_i64 whose exchange also carries every
     *  rank's bytes, so that a small call needs no other (the front end
     *  then completes the collective from them). This rank offers
     *  @p bytes at @p mine, or nothing where @p mine is NULL. Set
     *  *carried to 1 on every rank when every rank's bytes came:
     *  blocks[r] then points at rank r's lens[r] bytes (8-byte aligned),
     *  which stay valid until the next op called on @p state; else to 0
     *  on every rank, as where the backend carries no bytes or not as
     *  many. @p blocks and @p lens have world size entries. */
    tcomm_status_t (*allreduce_min_i64_carry)(void *state, int64_t *values,
                                              int count, const void *mine,
                                              size_t bytes,
                                              const void **blocks,
                                              size_t *lens, int *carried);
    /* tcomm 0.3 (libtool 2:0:1). */
    /** Optional: every collective through one entry, with all its
     *  arguments and what the front end exchanged. Where set, the front
     *  end calls it instead of the per-collective slots above. A
     *  collective the backend does not have answers
     *  TCOMM_ERR_UNSUPPORTED with tcomm_backend_error() on every rank
     *  alike, before any data moves. Collectives added after 0.2
     *  (reduce) have no slot of their own: without this one the front
     *  end runs them through the older slots (reduce: all_reduce into a
     *  scratch output on the ranks other than root). */
    tcomm_status_t (*collective)(void *state, const tcomm_coll_args_t *args);
} tcomm_backend_ops_t;

/** @brief A communicator over a user backend; @p state is passed to every
 *  op and handed to ops->destroy at tcomm_comm_destroy. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_create_custom(
    const tcomm_backend_ops_t *ops, void *state, tcomm_comm_t **comm);

/** @brief Record @p status and a printf-style sentence as this thread's
 *  last error; returns @p status. */
TCOMM_EXPORT tcomm_status_t tcomm_backend_error(tcomm_status_t status,
                                                const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* TCOMM_BACKEND_H */
