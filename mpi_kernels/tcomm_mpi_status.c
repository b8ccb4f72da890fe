/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI error codes as tcomm statuses, with MPI's own text. */
#include <stdio.h>

#include "tcomm_internal.h"
#include "tcomm_mpi_kernels.h"

tcomm_status_t tcomm_mpi_status(int mpi_rc, const char *call,
                                const char *file, int line)
{
    if (mpi_rc == MPI_SUCCESS)
        return TCOMM_SUCCESS;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", mpi_rc);
    return tcomm_error(TCOMM_ERR_MPI,
                       "tcomm: %s failed at %s:%d: %s (the communicator is "
                       "unusable: destroy it or end the job with "
                       "MPI_Abort)",
                       call, file, line, text);
}
