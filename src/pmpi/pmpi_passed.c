/* SPDX-License-Identifier: BSD-3-Clause */
/* Interposed calls that always go to MPI, counted for the report:
 * MPI_Alltoallv (measured slower in tcomm: doc/performance.md, no
 * single-copy path for all_to_all_v), MPI_Barrier (MPI's is as fast),
 * and the nonblocking collectives (MPI's own requests; see
 * doc/user-guide.md, "Accelerating an existing MPI program"). */
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

TCOMM_PMPI_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count,
                                     MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm, MPI_Request *req)
{
    tcomm_pmpi_passed(PMPI_FN_IALLREDUCE);
    return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
}

TCOMM_PMPI_EXPORT int MPI_Iallgather(const void *sbuf, int scount,
                                     MPI_Datatype stype, void *rbuf,
                                     int rcount, MPI_Datatype rtype,
                                     MPI_Comm comm, MPI_Request *req)
{
    tcomm_pmpi_passed(PMPI_FN_IALLGATHER);
    return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm,
                           req);
}

TCOMM_PMPI_EXPORT int MPI_Ireduce_scatter_block(const void *sbuf,
                                                void *rbuf, int count,
                                                MPI_Datatype type, MPI_Op op,
                                                MPI_Comm comm,
                                                MPI_Request *req)
{
    tcomm_pmpi_passed(PMPI_FN_IREDUCE_SCATTER_BLOCK);
    return PMPI_Ireduce_scatter_block(sbuf, rbuf, count, type, op, comm, req);
}

TCOMM_PMPI_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type,
                                 int root, MPI_Comm comm, MPI_Request *req)
{
    tcomm_pmpi_passed(PMPI_FN_IBCAST);
    return PMPI_Ibcast(buf, count, type, root, comm, req);
}

TCOMM_PMPI_EXPORT int MPI_Ialltoall(const void *sbuf, int scount,
                                    MPI_Datatype stype, void *rbuf,
                                    int rcount, MPI_Datatype rtype,
                                    MPI_Comm comm, MPI_Request *req)
{
    tcomm_pmpi_passed(PMPI_FN_IALLTOALL);
    return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm,
                          req);
}
