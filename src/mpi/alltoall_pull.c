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
 * folded into the scatter lists (numbers at the dispatch,
 * alltoall_strided.c).
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
#define _GNU_SOURCE /* process_vm_readv, IOV_MAX */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tcomm_mpi_alltoall.h"
#include "tcomm_node_call.h"
#include "tcomm_node_map.h"
#include "tcomm_pull.h"
#include "tcomm_test_hooks.h"

#define IOVS (IOV_MAX < 1024 ? IOV_MAX : 1024)

typedef struct { uint64_t in, out, pid, ns; } peer_t;

/* A block of rows rows of rb bytes, stride bytes apart from base, and a
 * position in it. */
typedef struct {
    uint64_t base;
    size_t rows, rb, stride, row, off;
} walk_t;

/* Append len bytes at w's position to iov (merging with the last entry
 * where contiguous); advance w. */
static void take(walk_t *w, size_t len, struct iovec *iov, unsigned long *n)
{
    uint64_t a = w->base + w->row * w->stride + w->off;
    if (*n && (uint64_t)(uintptr_t)iov[*n - 1].iov_base +
                      iov[*n - 1].iov_len == a)
        iov[*n - 1].iov_len += len;
    else {
        iov[*n].iov_base = (void *)(uintptr_t)a;
        iov[*n].iov_len = len;
        (*n)++;
    }
    if ((w->off += len) == w->rb) {
        w->off = 0;
        w->row++;
    }
}

/* Copy the remote block rem (in pid) onto the local block loc (read),
 * or loc onto rem (write): the same bytes in the same order. 1: done. */
static int move_block(pid_t pid, walk_t *rem, walk_t *loc, int push)
{
    struct iovec liov[IOVS], riov[IOVS];

    while (rem->row < rem->rows && loc->row < loc->rows) {
        unsigned long nl = 0, nr = 0;
        size_t bytes = 0;
        while (nl < IOVS - 1 && nr < IOVS - 1 && rem->row < rem->rows &&
               loc->row < loc->rows) {
            size_t a = rem->rb - rem->off, b = loc->rb - loc->off;
            size_t len = a < b ? a : b;
            take(rem, len, riov, &nr);
            take(loc, len, liov, &nl);
            bytes += len;
        }
        if ((push ? process_vm_writev(pid, liov, nl, riov, nr, 0)
                   : process_vm_readv(pid, liov, nl, riov, nr, 0)) !=
            (ssize_t)bytes)
            return 0;
    }
    return 1;
}

/* Our own block: the same walk, with memcpy. */
static void copy_block(walk_t *src, walk_t *dst)
{
    while (src->row < src->rows && dst->row < dst->rows) {
        size_t a = src->rb - src->off, b = dst->rb - dst->off;
        size_t len = a < b ? a : b;
        memcpy((char *)(uintptr_t)(dst->base + dst->row * dst->stride +
                                   dst->off),
               (const char *)(uintptr_t)(src->base + src->row * src->stride +
                                         src->off),
               len);
        src->off += len;
        dst->off += len;
        if (src->off == src->rb) {
            src->off = 0;
            src->row++;
        }
        if (dst->off == dst->rb) {
            dst->off = 0;
            dst->row++;
        }
    }
}

/* The block for rank `to` in a rank's input at base; from `from` in out. */
static walk_t send_walk(const tcomm_a2a_plan_t *p, uint64_t base, int to)
{
    walk_t w = {base + p->soff[to] * p->es, p->souter, p->sw[to] * p->es,
                p->stotal * p->es, 0, 0};
    return w;
}

static walk_t recv_walk(const tcomm_a2a_plan_t *p, uint64_t out, int from)
{
    walk_t w = {out + p->roff[from] * p->es, p->router,
                p->rw[from] * p->es, p->rtotal * p->es, 0, 0};
    return w;
}

/* The side with fewer rows is the remote one: the kernel pins the
 * remote pages one iovec at a time (~0.3 us each: 64 strided remote rows
 * cost 20 us), while local iovecs are plain copies. So read where the
 * sender's block has fewer rows (split 0), else write into the peer's
 * out (concat 0). Every rank has the same layout, hence the same
 * choice. */
static int pushes(const tcomm_a2a_plan_t *p)
{
    return p->souter > p->router;
}

static void copy_own(const tcomm_a2a_plan_t *p, const void *in, void *out)
{
    if (p->sw[p->rank] && p->souter) {
        walk_t s = send_walk(p, (uint64_t)(uintptr_t)in, p->rank);
        walk_t d = recv_walk(p, (uint64_t)(uintptr_t)out, p->rank);
        copy_block(&s, &d);
    }
}

/* Our block with peer r (pid, its in and out). 1: moved. */
static int with_peer(const tcomm_a2a_plan_t *p, const void *in, void *out,
                     int r, pid_t pid, uint64_t rin, uint64_t rout)
{
    walk_t rem, loc;
    if (!p->sw[p->rank] || !p->souter)
        return 1;
    if (pushes(p)) {
        rem = recv_walk(p, rout, p->rank);
        loc = send_walk(p, (uint64_t)(uintptr_t)in, r);
    } else {
        rem = send_walk(p, rin, p->rank);
        loc = recv_walk(p, (uint64_t)(uintptr_t)out, r);
    }
    /* in the peer's mapped arena: the walk with memcpy, as our own */
    char *here = rem.rows ? tcomm_node_mapped(pid, rem.base,
                                              (rem.rows - 1) * rem.stride +
                                                  rem.rb)
                          : NULL;
    if (here) {
        rem.base = (uint64_t)(uintptr_t)here;
        if (pushes(p))
            copy_block(&loc, &rem);
        else
            copy_block(&rem, &loc);
        return 1;
    }
    return move_block(pid, &rem, &loc, pushes(p));
}

/* The node protocol: notes, copies, one fence. */
static int node_pull(const tcomm_a2a_plan_t *p, const void *in, void *out,
                     int tier, int *done)
{
    size_t dims[4] = {p->souter, p->stotal, p->router, p->rtotal};
    tcomm_shm_note_t mine = {
        .addr = (uint64_t)(uintptr_t)in, .out = (uint64_t)(uintptr_t)out,
        .bytes = p->souter * p->stotal * p->es,
        .sig = tcomm_node_sig_layout(
            tcomm_node_sig(TCOMM_NODE_ALL_TO_ALL, (int)p->dtype, 0, 0), dims,
            4)},
                     peer;
    tcomm_node_call_t c;

    tcomm_node_call_begin(&c, p->st, &mine);
    if (tier == TCOMM_NODE_MAPPED)
        tcomm_node_call_map_only(&c, mine.bytes,
                                 pushes(p) ? p->router * p->rtotal * p->es
                                           : 0);
    copy_own(p, in, out);
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
static int mpi_pull(const tcomm_a2a_plan_t *p, const void *in, void *out,
                    MPI_Comm comm, int state, peer_t *peers, int *done)
{
    peer_t me = {(uint64_t)(uintptr_t)in, (uint64_t)(uintptr_t)out,
                 (uint64_t)getpid(), tcomm_pid_namespace()};
    int rc, all = 0, ok = 1, fail = tcomm_test_hook(TCOMM_HOOK_PULL_FAIL);

    rc = MPI_Allgather(&me, 4, MPI_UINT64_T, peers, 4, MPI_UINT64_T, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    copy_own(p, in, out);
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

int tcomm_a2a_pull_tier(const tcomm_a2a_plan_t *p, size_t attach_min)
{
    size_t bytes = p->souter * p->stotal * p->es;
    if (p->st && tcomm_node_copy_allowed(p->st))
        return tcomm_node_tier(p->st, bytes, attach_min);
    return bytes >= attach_min ? TCOMM_NODE_ATTACH : TCOMM_NODE_MPI;
}

int tcomm_a2a_pull(const tcomm_a2a_plan_t *p, const void *in, void *out,
                   MPI_Comm comm, int tier, int *done)
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
