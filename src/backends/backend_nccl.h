/* SPDX-License-Identifier: BSD-3-Clause */
/* The NCCL backend's state and the helpers its two files share
 * (backend_nccl.c: the seed's collectives and bootstrap;
 * backend_nccl_all_to_all.c: the all_to_all pair and reduce_scatter_v). */
#ifndef TCOMM_BACKEND_NCCL_H
#define TCOMM_BACKEND_NCCL_H

#include <mpi.h>
#include <nccl.h>

#include "tcomm_cuda_check.h"
#include "tcomm_internal.h"

typedef struct {
    ncclComm_t nccl;
    MPI_Comm mpi; /* dup of the user's, MPI_ERRORS_RETURN */
    int rank, size, device;
    tcomm_comm_t *owner;
} nccl_state_t;

/* An NCCL result as TCOMM_ERR_COMM_FAILED naming the call. */
tcomm_status_t tcomm_nccl_status(ncclResult_t rc, const char *call,
                                 const char *file, int line);
/* TCOMM_CHECK_GOTO for an NCCL call. */
#define NCCL_CHECK_GOTO(call, st, label)                                    \
    TCOMM_CHECK_GOTO(tcomm_nccl_status((call), #call, __FILE__, __LINE__),  \
                     st, label)

static inline ncclDataType_t nccl_type(tcomm_dtype_t d)
{
    switch (d) {
    case TCOMM_U8: return ncclUint8;
    case TCOMM_I8: return ncclInt8;
    case TCOMM_I32: return ncclInt32;
    case TCOMM_U32: return ncclUint32;
    case TCOMM_I64: return ncclInt64;
    case TCOMM_F16: return ncclFloat16;
    case TCOMM_BF16: return ncclBfloat16;
    case TCOMM_F32: return ncclFloat32;
    case TCOMM_F64: return ncclFloat64;
    }
    return ncclUint8;
}

static inline ncclRedOp_t nccl_op(tcomm_op_t op)
{
    switch (op) {
    case TCOMM_PROD: return ncclProd;
    case TCOMM_MIN: return ncclMin;
    case TCOMM_MAX: return ncclMax;
    default: return ncclSum; /* SUM, and AVG before its division */
    }
}

/* 1: gather the inputs and fold them in rank order with our kernels. */
static inline int gather_fold(const nccl_state_t *st, tcomm_dtype_t d,
                              tcomm_op_t op)
{
    return st->owner->deterministic ||
           (tcomm_dtype_is_float(d) && (op == TCOMM_MIN || op == TCOMM_MAX));
}

/* The cuda space context of a tensor on this communicator's device. */
tcomm_status_t tcomm_nccl_device_ctx(const nccl_state_t *st,
                                     const tcomm_tensor_t *in, const char *fn,
                                     tcomm_cuda_ctx_t **ctx);
/* Queued on the graph's stream, with the cuda space's own ops: dst =
 * block 0 op block 1 op ... (count elements at `at` of each block of
 * stride elements in all). */
tcomm_status_t tcomm_nccl_fold_blocks(const nccl_state_t *st,
                                      const tcomm_tensor_t *in,
                                      tcomm_op_t op, void *dst,
                                      const char *all, size_t stride,
                                      size_t at, size_t count);
/* AVG's finish on the n elements of out, queued on its stream. */
tcomm_status_t tcomm_nccl_finish_avg(const nccl_state_t *s,
                                     const tcomm_tensor_t *in, tcomm_op_t op,
                                     tcomm_tensor_t *out, size_t n);
/* Wait for the stream, then give back the temporary (may be NULL). */
tcomm_status_t tcomm_nccl_finish(tcomm_status_t st, tcomm_cuda_ctx_t *ctx,
                                 void *tmp);

/* The vtable's contract 0.2 slots (backend_nccl_all_to_all.c). */
tcomm_status_t tcomm_nccl_all_to_all(void *state, const tcomm_tensor_t *in,
                                     int split_dim, int concat_dim,
                                     tcomm_tensor_t *out);
tcomm_status_t tcomm_nccl_all_to_all_v(void *state, const tcomm_tensor_t *in,
                                       int split_dim,
                                       const size_t *send_sizes,
                                       int concat_dim,
                                       const size_t *recv_sizes,
                                       tcomm_tensor_t *out);
tcomm_status_t tcomm_nccl_reduce_scatter_v(void *state,
                                           const tcomm_tensor_t *in,
                                           tcomm_op_t op, int dim,
                                           const size_t *sizes,
                                           tcomm_tensor_t *out);

#endif /* TCOMM_BACKEND_NCCL_H */
