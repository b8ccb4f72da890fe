/* SPDX-License-Identifier: BSD-3-Clause */
/* Candidate (e) of an equal all_to_all with strided blocks, on one node:
 * every rank reads its block from each peer's input straight into place
 * with Linux cross-memory attach (process_vm_readv, scatter lists on
 * both sides: the block's rows in the peer's input, its rows in out).
 *
 * Why: MPI moves a strided block either through a derived datatype or a
 * temporary (two copies of every byte: vader's copy-in/copy-out) or as
 * one message per row (a few us each); MPI_Alltoall of contiguous blocks
 * is one copy, because vader reads the peer's buffer with
 * process_vm_readv itself. This is that single copy with the strides
 * folded into the scatter lists (numbers at all_to_all's table,
 * src/mpi/all_to_all.c).
 *
 * Protocol: on one node with the segment (p->st, and
 * tcomm_node_copy_allowed: at any number of ranks per core, as the
 * gathers) the node protocol (src/mpi/node/node_call.c): a note per
 * rank (in, out, and a signature of the layout), the copies, one fence
 * that keeps every input unchanged and every output unread until all
 * copies are done. Elsewhere (a timeout, so no segment) the same copies
 * between an MPI_Allgather of (in, out, pid, PID namespace) and an
 * MPI_Allreduce(MIN) of a success flag. If a rank could not copy, every
 * rank learns it, the communicator's pull is off for good, and the
 * caller redoes the call through MPI (out is rewritten whole). Equal
 * calls only: a peer's layout is then ours. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tcomm_block_copy.h"
#include "tcomm_mpi_all_to_all.h"
#include "tcomm_node_call.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"

typedef struct { uint64_t in, out, pid, ns; } peer_t;

/* The block for rank `to` in a rank's input at base; from `from` in out. */
static tcomm_all_to_all_walk_t send_walk(const tcomm_all_to_all_plan_t *p,
                                         uint64_t base, int to)
{
    return tcomm_all_to_all_walk(base + p->soff[to] * p->es, p->souter,
                                 p->sw[to] * p->es, p->stotal * p->es);
}

static tcomm_all_to_all_walk_t recv_walk(const tcomm_all_to_all_plan_t *p,
                                         uint64_t out, int from)
{
    return tcomm_all_to_all_walk(out + p->roff[from] * p->es, p->router,
                                 p->rw[from] * p->es, p->rtotal * p->es);
}

/* The side with fewer rows is the remote one: the kernel pins the
 * remote pages one iovec at a time (~0.3 us each: 64 strided remote rows
 * cost 20 us), while local iovecs are plain copies. So read where the
 * sender's block has fewer rows (split 0), else write into the peer's
 * out (concat 0). Every rank has the same layout, hence the same
 * choice. */
static int pushes(const tcomm_all_to_all_plan_t *p)
{
    return p->souter > p->router;
}

void tcomm_all_to_all_copy_own(const tcomm_all_to_all_plan_t *p, const void *in,
                               void *out)
{
    if (p->sw[p->rank] && p->souter) {
        tcomm_all_to_all_walk_t s =
            send_walk(p, (uint64_t)(uintptr_t)in, p->rank);
        tcomm_all_to_all_walk_t d =
            recv_walk(p, (uint64_t)(uintptr_t)out, p->rank);
        tcomm_all_to_all_walk_copy(&s, &d);
    }
}

/* Our block with peer r (pid, its in and out). 1: moved. */
static int with_peer(const tcomm_all_to_all_plan_t *p, const void *in,
                     void *out, int r, pid_t pid, uint64_t rin, uint64_t rout)
{
    tcomm_all_to_all_walk_t rem, loc;
    if (!p->sw[p->rank] || !p->souter)
        return 1;
    if (pushes(p)) {
        rem = recv_walk(p, rout, p->rank);
        loc = send_walk(p, (uint64_t)(uintptr_t)in, r);
    } else {
        rem = send_walk(p, rin, p->rank);
        loc = recv_walk(p, (uint64_t)(uintptr_t)out, r);
    }
    return tcomm_all_to_all_walk_with_peer(pid, &rem, &loc, pushes(p));
}

/* The node protocol: notes, copies, one fence. */
static int node_pull(const tcomm_all_to_all_plan_t *p, const void *in,
                     void *out, int tier, int *done)
{
    size_t dims[4] = {p->souter, p->stotal, p->router, p->rtotal};
    tcomm_node_note_t mine = {.addr = (uint64_t)(uintptr_t)in,
                              .out = (uint64_t)(uintptr_t)out,
                              .bytes = p->souter * p->stotal * p->es,
                              .sig = tcomm_node_sig_layout(
                                  tcomm_node_sig(TCOMM_NODE_ALL_TO_ALL,
                                                 (int)p->dtype, 0, 0),
                                  dims, 4)},
                      peer;
    tcomm_node_call_t c;

    tcomm_node_call_begin(&c, p->st, &mine);
    if (tier == TCOMM_NODE_MAPPED)
        tcomm_node_call_map_only(&c, mine.bytes,
                                 pushes(p) ? p->router * p->rtotal * p->es
                                           : 0);
    tcomm_all_to_all_copy_own(p, in, out);
    for (int k = 1; k < p->nranks; k++) {
        int r = (p->rank + k) % p->nranks;
        if (tcomm_node_call_peer(&c, r, &peer))
            tcomm_node_call_copied(&c, with_peer(p, in, out, r,
                                                 (pid_t)peer.pid, peer.addr,
                                                 peer.out));
    }
    tcomm_node_call_fence(&c);
    return tcomm_node_call_end(&c, done);
}

/* The MPI-synchronised protocol, with peers[nranks] at hand. */
static int mpi_pull(const tcomm_all_to_all_plan_t *p, const void *in, void *out,
                    MPI_Comm comm, int state, peer_t *peers, int *done)
{
    peer_t me = {(uint64_t)(uintptr_t)in, (uint64_t)(uintptr_t)out,
                 (uint64_t)getpid(), tcomm_pid_namespace()};
    int rc, all = 0, ok = 1, fail = tcomm_test_hook(TCOMM_HOOK_PULL_FAIL);

    rc = MPI_Allgather(&me, 4, MPI_UINT64_T, peers, 4, MPI_UINT64_T, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_all_to_all_copy_own(p, in, out);
    /* start with the next rank, so that not everyone reads rank 0 first */
    for (int k = 1; k < p->nranks && ok; k++) {
        int r = (p->rank + k) % p->nranks;
        ok = !fail && peers[r].ns == me.ns &&
             with_peer(p, in, out, r, (pid_t)peers[r].pid, peers[r].in,
                       peers[r].out);
    }
    rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (state == PULL_TRY || !all)
        rc = tcomm_mpi_pull_mark(comm, all);
    *done = all;
    return rc;
}

int tcomm_all_to_all_pull_tier(const tcomm_all_to_all_plan_t *p,
                               size_t attach_min)
{
    size_t bytes = p->souter * p->stotal * p->es;
    if (p->st && tcomm_node_copy_allowed(p->st))
        return tcomm_node_tier(p->st, bytes, attach_min);
    return bytes >= attach_min ? TCOMM_NODE_ATTACH : TCOMM_NODE_MPI;
}

int tcomm_all_to_all_pull(const tcomm_all_to_all_plan_t *p, const void *in,
                          void *out, MPI_Comm comm, int tier, int *done)
{
    peer_t stack[TCOMM_STACK_RANKS], *peers = stack;
    int rc, state;

    *done = 0;
    if (p->st && tcomm_node_copy_allowed(p->st))
        return node_pull(p, in, out, tier, done);
    if ((rc = tcomm_mpi_pull_node_state(comm, &state)) != MPI_SUCCESS ||
        state == PULL_OFF)
        return rc;
    /* as in the all_gather pull: on the heap, a failure is an error */
    if (p->nranks > TCOMM_STACK_RANKS &&
        !(peers = malloc((size_t)p->nranks * sizeof *peers)))
        return MPI_ERR_NO_MEM;
    rc = mpi_pull(p, in, out, comm, state, peers, done);
    if (peers != stack)
        free(peers);
    return rc;
}
