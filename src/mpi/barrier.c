/* SPDX-License-Identifier: BSD-3-Clause */
/* The backend's barrier (the front end's unchecked one; a checked
 * barrier is the agreement's round): its named algorithms, in the order
 * they are tried (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one
 * first). A barrier has no data: every call measures 0 bytes. Under
 * TCOMM_TIMEOUT only the timed one applies, so that a missing rank is
 * reported, not waited for. */
#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_timeout.h"

static int timed(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    (void)a;
    return st->timeout != NULL;
}

static int untimed(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return !timed(st, a);
}

/* MPI_Ibarrier, waited on until TCOMM_TIMEOUT's deadline (timeout.c). */
static tcomm_status_t timed_run(tcomm_mpi_state_t *st,
                                const tcomm_coll_args_t *a)
{
    (void)a;
    return tcomm_timeout_barrier(st->timeout, st->comm, st->owner->seq);
}

static int two_levels(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return untimed(st, a) && st->hier != NULL;
}

/* Across nodes: the node's ranks meet in shared memory, their first
 * ranks across the network, then the node's ranks again (each node's
 * first rank leaves the second only after every node has arrived). */
static tcomm_status_t hier_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    (void)a;
    const tcomm_mpi_state_t *node = st->hier->node->state;
    TCOMM_MPI_CHECK(MPI_Barrier(node->comm));
    if (st->hier->node_rank == 0)
        TCOMM_MPI_CHECK(MPI_Barrier(st->hier->cross));
    TCOMM_MPI_CHECK(MPI_Barrier(node->comm));
    return TCOMM_SUCCESS;
}

static tcomm_status_t mpi_run(tcomm_mpi_state_t *st,
                              const tcomm_coll_args_t *a)
{
    (void)a;
    return tcomm_mpi_barrier(st->comm);
}

static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_TIMEOUT_BARRIER, "MPI_Ibarrier under TCOMM_TIMEOUT", 0,
     TCOMM_MPI_ANY_SIZE, timed, timed_run},
    {TCOMM_PATH_HIER_BARRIER, "two levels: node, first ranks, node", 0,
     TCOMM_MPI_ANY_SIZE, two_levels, hier_run},
    {TCOMM_PATH_MPI_BARRIER, "MPI_Barrier", 0, TCOMM_MPI_ANY_SIZE, untimed,
     mpi_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_barrier_table, TCOMM_COLL_BARRIER, "barrier",
                "0 bytes, a barrier has no data", tcomm_mpi_no_bytes);
