/* SPDX-License-Identifier: BSD-3-Clause */
/* The helpers of the single-copy suites (test/node_suite.h). */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <unistd.h>

#include "node_suite.h"
#include "tcomm_node_segment.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"

int agree_sum(int mine)
{
    int all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

int probe_cma(void)
{
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    uint32_t mine = 0, val = 0x7c0ffee0u + (uint32_t)rank, back = 0;
    uint64_t me[2] = {(uintptr_t)&mine, (uint64_t)getpid()}, all[8];
    MPI_Allgather(me, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, MPI_COMM_WORLD);
    int peer = (rank + 1) % np;
    pid_t pid = (pid_t)all[2 * peer + 1];
    int ok = tcomm_node_write(pid, &val, all[2 * peer], sizeof val) &&
             tcomm_node_read(pid, &back, all[2 * peer], sizeof back) &&
             back == val;
    MPI_Barrier(MPI_COMM_WORLD); /* mine stays alive until all are done */
    return agree_sum(!ok) == 0;
}

tcomm_mpi_state_t make_state(void)
{
    tcomm_mpi_state_t st = {0};
    MPI_Comm_dup(MPI_COMM_WORLD, &st.comm);
    MPI_Comm_set_errhandler(st.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(st.comm, &st.rank);
    MPI_Comm_size(st.comm, &st.size);
    ck_assert_int_eq(tcomm_node_segment_create(st.comm, &st.segment),
                     MPI_SUCCESS);
    return st;
}

void free_state(tcomm_mpi_state_t *st)
{
    tcomm_node_segment_destroy(st->segment);
    MPI_Comm_free(&st->comm);
}

void refuse_copies(int on)
{
    tcomm_test_set_hook(TCOMM_HOOK_PULL_FAIL, on);
}

void own_pid_namespace(int on)
{
    tcomm_test_set_hook(TCOMM_HOOK_PID_NAMESPACE, on ? 12345 : 0);
}
