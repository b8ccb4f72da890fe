/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather along a dim > 0 on one node, where the node protocol
 * (src/mpi/node/node_gather.c) does not run (a timeout set, so no node
 * segment): every rank pulls the peers' rows
 * straight into place with Linux cross-memory attach (process_vm_readv,
 * one system call per peer and up to IOV_MAX rows), synchronised by two
 * small MPI calls.
 *
 * Why: each row of a rank's input lands at a stride in out. Through MPI
 * that is either two copies of every byte (a derived receive type or a
 * temporary) or one message per row (~2-5 us each); MPI_Allgather of
 * contiguous blocks is one copy, because Open MPI's shared-memory
 * transport itself reads the sender's buffer with process_vm_readv. The
 * pull does the same single copy, with a scatter list on our side, so
 * that the strided layout costs nothing extra (numbers in
 * all_gather_dim.c).
 *
 * Protocol: MPI_Allgather of (address, pid, PID namespace); every rank
 * reads its peers' inputs (a pid names the same process only within
 * one namespace: ranks in containers of their own count as failed
 * reads); MPI_Allreduce(MIN) of a success flag, which also keeps every
 * input alive and unchanged until all readers are done. If any rank
 * could not read (not the same node after all, a container without
 * ptrace rights, a seccomp filter), every rank learns it from that flag,
 * marks the communicator and redoes the call through MPI messages: out
 * is rewritten whole. The state and the reads: src/mpi/node/peer_copy.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_mpi_reshape.h"
#include "tcomm_test_hooks.h"

/* The rows of out hold total elements; tcomm_all_gather_unpack_one writes rank
 * r's rows from a rank-major block (here: the copies into place that
 * all_gather_dim.c's forms share with the pull). */
void tcomm_all_gather_unpack_one(const tcomm_all_gather_plan_t *p,
                                 const char *blk, char *out, size_t rows, int r,
                                 const size_t *seg)
{
    size_t es = p->es, rb = seg[r] * es, stride = p->total * es;
    if (rb == 0) /* nothing from rank r; out may be NULL (empty) */
        return;
    char *d = out + p->off[r] * es;
    for (size_t o = 0; o < rows; o++)
        memcpy(d + o * stride, blk + o * rb, rb);
}

/* Own rows: in -> out at column off[rank]. */
void tcomm_all_gather_copy_own(const tcomm_all_gather_plan_t *p, const void *in,
                               void *out, size_t outer, const size_t *seg)
{
    tcomm_all_gather_unpack_one(p, in, out, outer, p->rank, seg);
}

typedef struct { uint64_t addr, pid, ns; } peer_t;

/* The pull with peers[nranks] at hand (after the node check). */
static int pull(const tcomm_all_gather_plan_t *p, const void *in, void *out,
                size_t outer, const size_t *seg, MPI_Comm comm, int state,
                peer_t *peers, int *done)
{
    peer_t me = {(uint64_t)(uintptr_t)in, (uint64_t)getpid(),
                 tcomm_pid_namespace()};
    int rc, all = 0, ok = 1, fail = tcomm_test_hook(TCOMM_HOOK_PULL_FAIL) != 0;
    size_t es = p->es, stride = p->total * es;

    rc = MPI_Allgather(&me, 3, MPI_UINT64_T, peers, 3, MPI_UINT64_T, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_all_gather_copy_own(p, in, out, outer, seg);
    /* start with the next rank, so that not everyone reads rank 0 first */
    for (int k = 1; k < p->nranks && ok; k++) {
        int r = (p->rank + k) % p->nranks;
        if (seg[r] != 0)
            ok = !fail && peers[r].ns == me.ns &&
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

int tcomm_all_gather_pull(const tcomm_all_gather_plan_t *p, const void *in,
                          void *out, size_t outer, const size_t *seg,
                          MPI_Comm comm, int *done)
{
    peer_t stack[TCOMM_STACK_RANKS], *peers = stack;
    int rc, state;

    *done = 0;
    if ((rc = tcomm_mpi_pull_node_state(comm, &state)) != MPI_SUCCESS ||
        state == PULL_OFF)
        return rc;
    /* above the stack's size on the heap: a failure is an error, as for
     * every per-rank array (the ranks cannot agree to skip the pull
     * without the very exchange that needs the memory) */
    if (p->nranks > TCOMM_STACK_RANKS &&
        !(peers = malloc((size_t)p->nranks * sizeof *peers)))
        return MPI_ERR_NO_MEM;
    rc = pull(p, in, out, outer, seg, comm, state, peers, done);
    if (peers != stack)
        free(peers);
    return rc;
}
