/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives, and every path the front end and the mpi backend can
 * take for one, numbered in this one list: a path's word is the path=
 * field of the call's TRACE line, and (collective, path) is the bit of
 * the communicator's INFO line, printed once (tcomm_note_path). Paths
 * never share a bit, so a second path's line is never lost to a first's.
 * doc/doc-check.sh reads the words off the X(...) lines below: each must
 * be in doc/reference.md. */
#ifndef TCOMM_PATHS_H
#define TCOMM_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "tcomm_backend.h"

/* The collectives: the public enum of tcomm_backend.h. */
typedef tcomm_coll_t tcomm_coll_kind_t;
#define TCOMM_COLL_KINDS (TCOMM_COLL_REDUCE + 1)

/* The all-to-all exchanges come with pack+ (this rank's input packed)
 * and +unpack (its output unpacked) as base + pack + 2 * unpack; the
 * device paths as staged + 8 * direct + 4 * pack + 2 * unpack + fold
 * (tcomm_path_device). paths.c asserts both layouts. */
#define TCOMM_PATHS(X)                                                      \
    X(SINGLE_RANK, "single_rank")                                           \
    X(SINGLE_RANK_ZERO_COPY, "single_rank_zero_copy")                       \
    X(SINGLE_RANK_IN_PLACE, "single_rank_in_place")                         \
    X(SINGLE_RANK_COPY, "single_rank_copy")                                 \
    X(AGREEMENT, "agreement")                                               \
    X(EAGER, "eager")                                                       \
    X(V_TABLE_ROUND, "v_table_round")                                       \
    X(MPI_ALLREDUCE, "mpi_allreduce")                                       \
    X(MPI_ORDERED_FOLD, "mpi_ordered_fold")                                 \
    X(NODE_ALL_REDUCE, "node_all_reduce")                                   \
    X(MPI_ALLGATHERV, "mpi_allgatherv")                                     \
    X(MPI_ALLGATHER_RESHAPE, "mpi_allgather_reshape")                       \
    X(NODE_ALL_GATHER, "node_all_gather")                                   \
    X(MPI_REDUCE_SCATTER, "mpi_reduce_scatter")                             \
    X(MPI_REDUCE_SCATTER_BLOCK, "mpi_reduce_scatter_block")                 \
    X(MPI_REDUCE_SCATTER_RESHAPE, "mpi_reduce_scatter_reshape")             \
    X(MPI_REDUCE_SCATTER_PIPE, "mpi_reduce_scatter_pipe")                   \
    X(MPI_REDUCE_SCATTER_PACK, "mpi_reduce_scatter_pack")                   \
    X(NODE_REDUCE_SCATTER, "node_reduce_scatter")                           \
    X(MPI_BCAST, "mpi_bcast")                                               \
    X(NODE_BROADCAST, "node_broadcast")                                     \
    X(MPI_BARRIER, "mpi_barrier")                                           \
    X(TIMEOUT_BARRIER, "timeout_barrier")                                   \
    X(MPI_REDUCE, "mpi_reduce")                                             \
    X(MPI_ALLTOALL, "mpi_alltoall")                                         \
    X(PACK_MPI_ALLTOALL, "pack+mpi_alltoall")                               \
    X(MPI_ALLTOALL_UNPACK, "mpi_alltoall+unpack")                           \
    X(PACK_MPI_ALLTOALL_UNPACK, "pack+mpi_alltoall+unpack")                 \
    X(MPI_ALLTOALLV, "mpi_alltoallv")                                       \
    X(PACK_MPI_ALLTOALLV, "pack+mpi_alltoallv")                             \
    X(MPI_ALLTOALLV_UNPACK, "mpi_alltoallv+unpack")                         \
    X(PACK_MPI_ALLTOALLV_UNPACK, "pack+mpi_alltoallv+unpack")               \
    X(MPI_ALLTOALL_PIECES, "mpi_alltoall_pieces")                           \
    X(PACK_MPI_ALLTOALL_PIECES, "pack+mpi_alltoall_pieces")                 \
    X(MPI_ALLTOALL_PIECES_UNPACK, "mpi_alltoall_pieces+unpack")             \
    X(PACK_MPI_ALLTOALL_PIECES_UNPACK, "pack+mpi_alltoall_pieces+unpack")   \
    X(NODE_ALL_TO_ALL, "node_all_to_all")                                   \
    X(NODE_ALL_TO_ALL_V, "node_all_to_all_v")                               \
    X(MPI_ALLTOALL_VECTOR, "mpi_alltoall_vector")                           \
    X(ALL_TO_ALL_ROWS, "all_to_all_rows")                                   \
    X(MPI_ALLTOALLW, "mpi_alltoallw")                                       \
    X(HIER_ALL_REDUCE, "hier_all_reduce")                                   \
    X(HIER_ALL_REDUCE_LEADERS, "hier_all_reduce_leaders")                   \
    X(HIER_REDUCE_SCATTER, "hier_reduce_scatter")                           \
    X(HIER_ALL_GATHER, "hier_all_gather")                                   \
    X(HIER_BROADCAST, "hier_broadcast")                                     \
    X(HIER_REDUCE, "hier_reduce")                                           \
    X(HIER_BARRIER, "hier_barrier")                                         \
    X(DEVICE_STAGED, "device_staged")                                       \
    X(DEVICE_STAGED_FOLD, "device_staged+fold")                             \
    X(DEVICE_STAGED_UNPACK, "device_staged+unpack")                         \
    X(DEVICE_STAGED_UNPACK_FOLD, "device_staged+unpack+fold")               \
    X(DEVICE_STAGED_PACK, "device_staged+pack")                             \
    X(DEVICE_STAGED_PACK_FOLD, "device_staged+pack+fold")                   \
    X(DEVICE_STAGED_PACK_UNPACK, "device_staged+pack+unpack")               \
    X(DEVICE_STAGED_PACK_UNPACK_FOLD, "device_staged+pack+unpack+fold")     \
    X(DEVICE_DIRECT, "device_direct")                                       \
    X(DEVICE_DIRECT_FOLD, "device_direct+fold")                             \
    X(DEVICE_DIRECT_UNPACK, "device_direct+unpack")                         \
    X(DEVICE_DIRECT_UNPACK_FOLD, "device_direct+unpack+fold")               \
    X(DEVICE_DIRECT_PACK, "device_direct+pack")                             \
    X(DEVICE_DIRECT_PACK_FOLD, "device_direct+pack+fold")                   \
    X(DEVICE_DIRECT_PACK_UNPACK, "device_direct+pack+unpack")               \
    X(DEVICE_DIRECT_PACK_UNPACK_FOLD, "device_direct+pack+unpack+fold")

typedef enum {
#define TCOMM_PATH_ENUM(id, word) TCOMM_PATH_##id,
    TCOMM_PATHS(TCOMM_PATH_ENUM)
#undef TCOMM_PATH_ENUM
    TCOMM_PATH_COUNT
} tcomm_path_t;

/* One bit per (collective, path): the INFO lines printed so far. */
#define TCOMM_PATH_WORDS                                                    \
    (((size_t)TCOMM_COLL_KINDS * TCOMM_PATH_COUNT + 63) / 64)
typedef struct {
    uint64_t bits[TCOMM_PATH_WORDS];
} tcomm_paths_logged_t;

/* The path's word, as its TRACE line and doc/reference.md spell it. */
const char *tcomm_path_word(tcomm_path_t path);

/* The path an earlier release's word (len bytes) named, TCOMM_PATH_COUNT
 * if none: node_allreduce, shm_bcast, mpi_alltoall_pull and the others
 * that now spell the collective as the contract does. */
tcomm_path_t tcomm_path_renamed(const char *word, size_t len);

/* The all-to-all exchange base (MPI_ALLTOALL, MPI_ALLTOALLV,
 * MPI_ALLTOALL_PIECES) with pack+ and +unpack where they apply. */
static inline tcomm_path_t tcomm_path_packed(tcomm_path_t base, int pack,
                                             int unpack)
{
    return (tcomm_path_t)(base + (pack != 0) + 2 * (unpack != 0));
}

/* The exchange of a path of tcomm_path_packed: pack+ and +unpack gone;
 * any other path as it is. */
static inline tcomm_path_t tcomm_path_exchange(tcomm_path_t path)
{
    if (path < TCOMM_PATH_MPI_ALLTOALL ||
        path > TCOMM_PATH_PACK_MPI_ALLTOALL_PIECES_UNPACK)
        return path;
    return (tcomm_path_t)(path - (path - TCOMM_PATH_MPI_ALLTOALL) % 4);
}

/* The device path, staged or direct, with +pack, +unpack, +fold. */
static inline tcomm_path_t tcomm_path_device(int direct, int pack,
                                             int unpack, int fold)
{
    return (tcomm_path_t)(TCOMM_PATH_DEVICE_STAGED + 8 * (direct != 0) +
                          4 * (pack != 0) + 2 * (unpack != 0) +
                          (fold != 0));
}

/* The call of kind coll on comm takes path: names it for the call's
 * TRACE line and, at INFO, the first time comm takes it for coll, logs
 * "<what> [path=<word>]" (what: fmt, which starts with the collective's
 * name). comm NULL: the TRACE name only. */
void tcomm_note_path(tcomm_comm_t *comm, tcomm_coll_kind_t coll,
                     tcomm_path_t path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A step on the way, not the call's path (the agreement's extra round):
 * the same INFO line once per communicator, no TRACE name. */
void tcomm_note_step(tcomm_comm_t *comm, tcomm_coll_kind_t coll,
                     tcomm_path_t path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* TCOMM_PATHS_H */
