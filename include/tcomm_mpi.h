/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tcomm_mpi.h
 * @brief MPI entry points of tcomm.
 */
#ifndef TCOMM_MPI_H
#define TCOMM_MPI_H

#include <mpi.h>
#include "tcomm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A communicator over a duplicate of @p mpi_comm (errors return,
 *  never abort). MPI must be initialized. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_create_mpi(MPI_Comm mpi_comm,
                                                  tcomm_comm_t **comm);

#ifdef __cplusplus
}
#endif
#endif /* TCOMM_MPI_H */
