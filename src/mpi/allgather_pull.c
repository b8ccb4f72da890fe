/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather along a dim > 0 on one node: every rank pulls the peers'
 * rows straight into place with Linux cross-memory attach
 * (process_vm_readv, one system call per peer and up to IOV_MAX rows).
 *
 * Why: each row of a rank's input lands at a stride in out. Through MPI
 * that is either two copies of every byte (a derived receive type or a
 * temporary) or one message per row (~2-5 us each); MPI_Allgather of
 * contiguous blocks is one copy, because Open MPI's shared-memory
 * transport itself reads the sender's buffer with process_vm_readv. The
 * pull does the same single copy, with a scatter list on our side, so
 * that the strided layout costs nothing extra (numbers in
 * allgather_dim.c).
 *
 * Protocol: MPI_Allgather of (address, pid, PID namespace); every rank
 * reads its peers' inputs (a pid names the same process only within
 * one namespace: ranks in containers of their own count as failed
 * reads); MPI_Allreduce(MIN) of a success flag, which also keeps every
 * input alive and unchanged until all readers are done. If any rank
 * could not read (not the same node after all, a container without
 * ptrace rights, a seccomp filter), every rank learns it from that flag,
 * marks the communicator and redoes the call through MPI messages: out
 * is rewritten whole. The state and the reads: src/mpi/node/pull.c. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_mpi_reshape.h"

int tcomm_ag_pull(const tcomm_ag_plan_t *p, const void *in, void *out,
                  size_t outer, const size_t *seg, MPI_Comm comm, int *done)
{
    struct { uint64_t addr, pid, ns; } me, peers[TCOMM_STACK_RANKS];
    int rc, state, ok = 1, all = 0;
    size_t es = p->es, stride = p->total * es;

    *done = 0;
    if (p->nranks > TCOMM_STACK_RANKS)
        return MPI_SUCCESS;
    if ((rc = tcomm_mpi_pull_node_state(comm, &state)) != MPI_SUCCESS || state == PULL_OFF)
        return rc;
    me.addr = (uint64_t)(uintptr_t)in;
    me.pid = (uint64_t)getpid();
    me.ns = tcomm_pid_namespace();
    rc = MPI_Allgather(&me, 3, MPI_UINT64_T, peers, 3, MPI_UINT64_T, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_ag_copy_own(p, in, out, outer, seg);
    /* start with the next rank, so that not everyone reads rank 0 first */
    for (int k = 1; k < p->nranks && ok; k++) {
        int r = (p->rank + k) % p->nranks;
        if (seg[r] != 0)
            ok = !tcomm_mpi_pull_fail_for_test && peers[r].ns == me.ns &&
                 tcomm_node_read_rows((pid_t)peers[r].pid, peers[r].addr, out,
                           p->off[r] * es, stride, outer, seg[r] * es);
    }
    rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (state == PULL_TRY || !all)
        rc = tcomm_mpi_pull_mark(comm, all);
    *done = all;
    return rc;
}
