/* SPDX-License-Identifier: BSD-3-Clause */
/* The interposed MPI_Barrier: tcomm's barrier on every intracommunicator
 * it serves when the table's entry is 0 (the same on every rank: there
 * is no size to gate on). tcomm's barrier is MPI_Barrier on tcomm's own
 * communicator behind its front end, measured slower than MPI's
 * (doc/performance.md), so by default MPI keeps it and only
 * TCOMM_PMPI_MIN_BYTES=0 takes it. It also waits behind the nonblocking
 * calls tcomm has in flight on comm, which MPI's barrier would not; a
 * barrier orders nothing about them, so that only costs their
 * completion, which the program waits for anyway. */
#include "tcomm_pmpi.h"

TCOMM_PMPI_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_BARRIER;
    tcomm_comm_t *tc = NULL;
    int n, me;
    if (tcomm_pmpi_on && !tcomm_pmpi_inside &&
        tcomm_pmpi_min_bytes(fn) == 0)
        tc = tcomm_pmpi_comm(comm, &n, &me);
    if (!tc) {
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Barrier(comm);
    }
    double t0 = tcomm_pmpi_now();
    tcomm_pmpi_inside++;
    tcomm_status_t st = tcomm_barrier(tc);
    tcomm_pmpi_inside--;
    return tcomm_pmpi_done(fn, comm, st, 0, t0, NULL, NULL);
}
