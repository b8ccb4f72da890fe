/* SPDX-License-Identifier: BSD-3-Clause */
/* The interposed MPI_Barrier: tcomm's barrier on every intracommunicator
 * it serves (the same on every rank: there is no size to gate on). It
 * also waits behind the nonblocking calls tcomm has in flight on comm,
 * which MPI's barrier would not; a barrier orders nothing about them,
 * so that only costs their completion, which the program waits for
 * anyway. TCOMM_PMPI_MIN_BYTES does not apply: the table's entry alone
 * (SIZE_MAX: always MPI) decides. */
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
