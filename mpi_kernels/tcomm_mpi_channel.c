/* SPDX-License-Identifier: BSD-3-Clause */
/* What every MPI-based backend needs of MPI besides its data: its own
 * duplicate of the user's communicator, errors returned as codes, and
 * the agreement channel (allgather of bytes, a minimum of int64s, a
 * barrier). The MPI backend and the NCCL backend share these. */
#include "tcomm_internal.h"
#include "tcomm_mpi_kernels.h"

tcomm_status_t tcomm_mpi_dup(const char *fn, MPI_Comm user, MPI_Comm *dup,
                             int *rank, int *size)
{
    int rc = MPI_Comm_dup(user, dup);
    if (rc != MPI_SUCCESS) {
        *dup = MPI_COMM_NULL;
        return tcomm_mpi_status(rc, "MPI_Comm_dup", __FILE__, __LINE__);
    }
    /* Errors come back to us as codes: tcomm never aborts the job. */
    rc = MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(*dup, rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(*dup, size);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(dup);
        return tcomm_mpi_status(rc, fn, __FILE__, __LINE__);
    }
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_mpi_allgather_bytes(MPI_Comm comm, const void *mine,
                                         void *all, size_t bytes)
{
    TCOMM_MPI_CHECK(MPI_Allgather(mine, (int)bytes, MPI_BYTE, all,
                                  (int)bytes, MPI_BYTE, comm));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_mpi_min_i64(MPI_Comm comm, int64_t *values, int count)
{
    TCOMM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_INT64_T,
                                  MPI_MIN, comm));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_mpi_barrier(MPI_Comm comm)
{
    TCOMM_MPI_CHECK(MPI_Barrier(comm));
    return TCOMM_SUCCESS;
}

int tcomm_mpi_thread_multiple(void)
{
    int level = MPI_THREAD_SINGLE;
    return MPI_Query_thread(&level) == MPI_SUCCESS &&
           level == MPI_THREAD_MULTIPLE;
}
