/* SPDX-License-Identifier: BSD-3-Clause */
/* Interposed calls that always go to MPI, counted for the report:
 * MPI_Alltoallv (measured slower in tcomm: doc/performance.md, no
 * single-copy path for all_to_all_v) and MPI_Barrier (MPI's is as
 * fast). */
#include "tcomm_pmpi.h"

TCOMM_PMPI_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[],
                                    const int sdispls[], MPI_Datatype stype,
                                    void *rbuf, const int rcounts[],
                                    const int rdispls[], MPI_Datatype rtype,
                                    MPI_Comm comm)
{
    tcomm_pmpi_passed(PMPI_FN_ALLTOALLV);
    return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
                          rdispls, rtype, comm);
}

TCOMM_PMPI_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    tcomm_pmpi_passed(PMPI_FN_BARRIER);
    return PMPI_Barrier(comm);
}
