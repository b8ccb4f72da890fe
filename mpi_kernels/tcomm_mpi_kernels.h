/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI side of the host path: datatypes, reduction ops, large-count
 * collectives and the algorithms built from MPI calls. Every function
 * returns an MPI error code (MPI_SUCCESS on success); the backend maps it
 * to a tcomm status with MPI's error string. Counts are in elements. */
#ifndef TCOMM_MPI_KERNELS_H
#define TCOMM_MPI_KERNELS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "tcomm.h"

/* The MPI datatype carrying a dtype (f16/bf16 travel as MPI_UINT16_T). */
MPI_Datatype tcomm_mpi_datatype(tcomm_dtype_t dtype);

/* The user function of an MPI_Op (MPI_Op_create_c's where MPI-4). */
#if MPI_VERSION >= 4
typedef MPI_User_function_c tcomm_mpi_user_fn_t;
#else
typedef MPI_User_function tcomm_mpi_user_fn_t;
#endif

/* The user function that reduces (dtype, op) where MPI's built-in op is
 * not exact (f16/bf16; NaN-propagating float MIN/MAX), else NULL. op is
 * SUM..MAX. The MPI_Op handles made of them: tcomm_mpi_op
 * (src/mpi/tcomm_user_ops.h). */
tcomm_mpi_user_fn_t *tcomm_mpi_user_fn(tcomm_dtype_t dtype, tcomm_op_t op);

/* Largest count passed to one MPI call, 1..INT_MAX: INT_MAX unless a
 * test lowers it (TCOMM_HOOK_COUNT_LIMIT) so that the splitting paths
 * run on small tensors. Every reader takes it from here, once per call. */
size_t tcomm_mpi_count_limit(void);

/* Large-count safe wrappers: the MPI-4 _c calls where MPI_VERSION >= 4
 * and the count fits, else pieces of at most tcomm_mpi_count_limit(). */
int tcomm_mpi_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                        tcomm_dtype_t dtype, MPI_Op op, MPI_Comm comm);
int tcomm_mpi_bcast(void *buf, size_t count, tcomm_dtype_t dtype, int root,
                    MPI_Comm comm);
/* recvbuf: the root's only (NULL elsewhere); sendbuf never MPI_IN_PLACE. */
int tcomm_mpi_reduce(const void *sendbuf, void *recvbuf, size_t count,
                     tcomm_dtype_t dtype, MPI_Op op, int root, MPI_Comm comm);
/* counts[r] elements from rank r land at recvbuf + displs[r] elements. */
int tcomm_mpi_allgatherv(const void *sendbuf, size_t sendcount,
                         void *recvbuf, const size_t *counts,
                         const size_t *displs, tcomm_dtype_t dtype,
                         MPI_Comm comm);
/* Every rank receives count reduced elements of its block. */
int tcomm_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                   size_t count, tcomm_dtype_t dtype,
                                   MPI_Op op, MPI_Comm comm);

/* Uneven blocks (MPI_Reduce_scatter): sendbuf holds nranks blocks back to
 * back, block r of counts[r] elements; rank r receives block r reduced. */
int tcomm_mpi_reduce_scatter_counts(const void *sendbuf, void *recvbuf,
                                    const size_t *counts,
                                    tcomm_dtype_t dtype, MPI_Op op,
                                    MPI_Comm comm);

/* The element size of @p dtype (MPI_ERR_TYPE for none) and @p comm's size
 * and rank, as a per-call plan starts. */
int tcomm_mpi_layout(tcomm_dtype_t dtype, MPI_Comm comm, size_t *es, int *size,
                     int *rank);

/* MPI_Waitall of n requests; on failure the failed request's own error
 * code. */
int tcomm_mpi_waitall(size_t n, MPI_Request *req);

/* Map an MPI error code to TCOMM_ERR_MPI with MPI's error string and the
 * call text; returns TCOMM_SUCCESS for MPI_SUCCESS. The CHECK macros keep
 * that first sentence and, through TCOMM_TRY / TCOMM_CHECK_GOTO, record
 * the hop (src/core/tcomm_error.h) like any other failed status. */
tcomm_status_t tcomm_mpi_status(int mpi_rc, const char *call,
                                const char *file, int line);
#define TCOMM_MPI_CHECK(call)                                               \
    TCOMM_TRY(tcomm_mpi_status((call), #call, __FILE__, __LINE__))
/* The same as TCOMM_CHECK_GOTO: st and label at the call site. */
#define TCOMM_MPI_CHECK_GOTO(call, st, label)                               \
    TCOMM_CHECK_GOTO(tcomm_mpi_status((call), #call, __FILE__, __LINE__),   \
                     st, label)


/* A backend's own duplicate of user (MPI_ERRORS_RETURN), with its rank and
 * size; errors name fn. */
tcomm_status_t tcomm_mpi_dup(const char *fn, MPI_Comm user, MPI_Comm *dup,
                             int *rank, int *size);
/* The agreement channel over comm (tcomm_backend_ops_t's allgather_bytes,
 * allreduce_min_i64 and barrier, without a timeout). */
tcomm_status_t tcomm_mpi_allgather_bytes(MPI_Comm comm, const void *mine,
                                         void *all, size_t bytes);
tcomm_status_t tcomm_mpi_min_i64(MPI_Comm comm, int64_t *values, int count);
tcomm_status_t tcomm_mpi_barrier(MPI_Comm comm);
/* 1 if MPI runs with MPI_THREAD_MULTIPLE: tcomm's progress thread may
 * then call MPI while the caller's threads do too. */
int tcomm_mpi_thread_multiple(void);

#endif /* TCOMM_MPI_KERNELS_H */
