/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI_Op handles of the reduction ops (src/mpi/user_ops.c). */
#ifndef TCOMM_USER_OPS_H
#define TCOMM_USER_OPS_H

#include <mpi.h>

#include "tcomm.h"

/* The MPI_Op that reduces (dtype, op): MPI's built-in where it is exact,
 * a user op otherwise (f16/bf16; NaN-propagating float MIN/MAX: the user
 * functions of mpi_kernels/tcomm_mpi_ops.c). AVG maps to SUM: the caller
 * divides. User ops are created on first use and freed at MPI_Finalize.
 * Returns an MPI error code. */
int tcomm_mpi_op(tcomm_dtype_t dtype, tcomm_op_t op, MPI_Op *mpi_op);

#endif /* TCOMM_USER_OPS_H */
