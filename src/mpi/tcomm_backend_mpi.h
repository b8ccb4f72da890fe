/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI backend's state, shared with the device path and the
 * cross-rank safety layer. */
#ifndef TCOMM_BACKEND_MPI_H
#define TCOMM_BACKEND_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "tcomm_internal.h"
#include "tcomm_mpi_kernels.h"

typedef struct tcomm_mpi_state {
    MPI_Comm comm;      /* our duplicate, MPI_ERRORS_RETURN */
    int rank;
    int size;
    int cuda_aware;     /* device buffers go to MPI directly */
    tcomm_comm_t *owner; /* the handle (check, deterministic, seq) */
    struct tcomm_timeout *timeout; /* TCOMM_TIMEOUT > 0: src/mpi/timeout.c */
    struct tcomm_node_segment
        *segment;            /* one node, no timeout: node_segment.c */
    struct tcomm_hier *hier; /* several nodes: src/mpi/hier.c */
    /* the agreement's round without the node segment: src/mpi/carry_round.c */
    struct tcomm_carry_round *carry;
    int single_copy; /* TCOMM_SINGLE_COPY on every rank */
    uint64_t node_seq; /* single-copy calls so far (node_call.c) */
    unsigned map_skip, map_backoff; /* the mapped tier's (node_call.c) */
    struct tcomm_mpi_tune *tune; /* TCOMM_TUNE, NULL: unset (algo_select.c) */
    /* the running row named its path itself (tcomm_mpi_algo_note) */
    int row_noted;
    struct tcomm_mpi_state *next_live; /* src/mpi/finalize_hook.c */
} tcomm_mpi_state_t;

/* The call takes TCOMM_PATH_<path> for collective TCOMM_COLL_<coll>: its
 * TRACE word, and its INFO line once per communicator (tcomm_note_path;
 * the format starts with the collective's name). */
#define TCOMM_MPI_NOTE(st, coll, path, ...)                                 \
    tcomm_note_path((st)->owner, TCOMM_COLL_##coll, TCOMM_PATH_##path,      \
                    __VA_ARGS__)

/* The live MPI communicators, whose requests in flight MPI_Finalize
 * completes first (src/mpi/finalize_hook.c). */
void tcomm_mpi_finalize_hook_add(tcomm_mpi_state_t *st);
void tcomm_mpi_finalize_hook_remove(tcomm_mpi_state_t *st);

extern const tcomm_backend_ops_t tcomm_backend_mpi;

/* Every collective on host tensors, and the barrier, is a table of
 * named algorithms (tcomm_mpi_algo.h). */

/* TCOMM_ERR_INVALID_ARG naming fn unless MPI is initialized and not
 * finalized (the MPI-based communicator constructors). */
tcomm_status_t tcomm_mpi_check_ready(const char *fn);
/* 1, and a sentence naming both in buf, when this process was started by
 * a launcher whose job is larger than MPI's world of one rank (another
 * MPI's launcher: src/mpi/launcher.c); the first communicator warns of
 * it once per process (tcomm_mpi_warn_launcher). */
int tcomm_mpi_launcher_mismatch(char *buf, size_t len);
void tcomm_mpi_warn_launcher(void);
/* TCOMM_ERR_INVALID_ARG naming fn if mpi_comm is an intercommunicator. */
tcomm_status_t tcomm_mpi_check_intra(const char *fn, MPI_Comm mpi_comm);

/* Is MPI CUDA-aware? Layered probe, agreed over comm (the minimum), so
 * that every rank takes the same path (src/mpi/cuda_aware_probe.c). */
int tcomm_mpi_probe_cuda_aware(MPI_Comm comm);

/* Deterministic reductions (TCOMM_DETERMINISTIC): the left fold in rank
 * order, bitwise identical on every rank at every size (src/mpi/ordered.c).
 * AVG folds as SUM and is divided there. */
tcomm_status_t tcomm_mpi_all_reduce_ordered(tcomm_mpi_state_t *st,
                                            const tcomm_tensor_t *in,
                                            tcomm_op_t op,
                                            tcomm_tensor_t *out);
tcomm_status_t tcomm_mpi_reduce_scatter_ordered(tcomm_mpi_state_t *st,
                                                const tcomm_tensor_t *in,
                                                tcomm_op_t op, int dim,
                                                tcomm_tensor_t *out);
/* The same with rank r's chunk sizes[r] along dim (reduce_scatter_v). */
tcomm_status_t tcomm_mpi_reduce_scatter_v_ordered(tcomm_mpi_state_t *st,
                                                  const tcomm_tensor_t *in,
                                                  tcomm_op_t op, int dim,
                                                  const size_t *sizes,
                                                  tcomm_tensor_t *out);

/* Collectives on tensors whose graph is not host memory (cuda, sim):
 * src/mpi/device/device_path.c. Same contract as the backend ops. */
tcomm_status_t tcomm_device_all_reduce(tcomm_mpi_state_t *st,
                                       const tcomm_tensor_t *in,
                                       tcomm_op_t op, tcomm_tensor_t *out);
tcomm_status_t tcomm_device_all_gather(tcomm_mpi_state_t *st,
                                       const tcomm_tensor_t *in, int dim,
                                       const size_t *sizes,
                                       tcomm_tensor_t *out);
tcomm_status_t tcomm_device_reduce_scatter(tcomm_mpi_state_t *st,
                                           const tcomm_tensor_t *in,
                                           tcomm_op_t op, int dim,
                                           tcomm_tensor_t *out);
tcomm_status_t tcomm_device_broadcast(tcomm_mpi_state_t *st,
                                      const tcomm_tensor_t *in, int root,
                                      tcomm_tensor_t *out);
/* Contract 0.2 on device tensors: src/mpi/device/device_all_to_all.c. */
tcomm_status_t tcomm_device_all_to_all(tcomm_mpi_state_t *st,
                                       const tcomm_tensor_t *in,
                                       int split_dim, int concat_dim,
                                       tcomm_tensor_t *out);
tcomm_status_t tcomm_device_all_to_all_v(tcomm_mpi_state_t *st,
                                         const tcomm_tensor_t *in,
                                         int split_dim,
                                         const size_t *send_sizes,
                                         int concat_dim,
                                         const size_t *recv_sizes,
                                         tcomm_tensor_t *out);
tcomm_status_t tcomm_device_reduce_scatter_v(tcomm_mpi_state_t *st,
                                             const tcomm_tensor_t *in,
                                             tcomm_op_t op, int dim,
                                             const size_t *sizes,
                                             tcomm_tensor_t *out);
/* Every collective on device tensors, from the backend's collective slot
 * (src/mpi/device/device_path.c). */
tcomm_status_t tcomm_device_collective(tcomm_mpi_state_t *st,
                                       const tcomm_coll_args_t *args);
/* TCOMM_ERR_UNSUPPORTED for a collective this backend does not know (a
 * front end newer than it): src/mpi/backend_mpi.c. */
tcomm_status_t tcomm_mpi_no_collective(const tcomm_coll_args_t *args);

#endif /* TCOMM_BACKEND_MPI_H */
