/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tcomm_nccl.h
 * @brief The NCCL backend: a communicator for tensors on CUDA graphs,
 * bootstrapped over MPI, in builds configured with CUDA and NCCL.
 *
 * The collectives run on the stream of the input's graph and are
 * synchronous like every tcomm collective. Host tensors give
 * TCOMM_ERR_UNSUPPORTED (use tcomm_comm_create_mpi for those).
 */
#ifndef TCOMM_NCCL_H
#define TCOMM_NCCL_H

#include <mpi.h>

#include "tcomm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A communicator over NCCL on the ranks of @p mpi_comm (dup'd):
 *  rank 0 makes the NCCL unique id and broadcasts it over MPI. Each rank
 *  uses its calling thread's current CUDA device (cudaSetDevice before),
 *  one device per rank. Collective over @p mpi_comm; every rank gets the
 *  same status. TCOMM_ERR_UNSUPPORTED in a build without NCCL or on a
 *  rank without a device. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_create_nccl(MPI_Comm mpi_comm,
                                                   tcomm_comm_t **comm);

#ifdef __cplusplus
}
#endif
#endif /* TCOMM_NCCL_H */
