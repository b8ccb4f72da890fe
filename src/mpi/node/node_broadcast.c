/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast of host buffers on one node by cross-memory attach, the copy
 * shared between the root and the receivers.
 *
 * Why: MPI_Bcast between ranks of one node is one copy per receiver,
 * done by the receiver (Open MPI's shared-memory transport reads the
 * root's buffer with process_vm_readv) while the root waits for it to
 * finish. Here the root, idle otherwise, writes the first 1/n of every
 * receiver's buffer (process_vm_writev) while each receiver reads the
 * rest: every rank copies (n - 1)/n of the message and no one waits for
 * a copy it could share. On 2 ranks that halves the copy: 64 KiB-16 MiB
 * in 0.45-0.65x the time of MPI_Bcast (numbers in doc/performance.md).
 * Below TCOMM_NODE_BROADCAST_MIN bytes per receiver MPI's eager messages win
 * (two system calls cost more than the copy).
 *
 * Protocol (node_call.c): every rank publishes its buffer's address,
 * length and root; the root writes into each receiver as its note
 * appears, the receivers read from the root's; then one fence. Calls
 * that differ (TCOMM_CHECK=0 lets them through) go to MPI_Bcast, which
 * answers them as it would have. If any rank failed (a kernel or
 * container that refuses cross-memory attach), every rank learns it at
 * the fence, the communicator is off the single copies for good
 * (TCOMM_SINGLE_COPY's state) and the caller redoes the broadcast with
 * MPI_Bcast, which rewrites the receivers' buffers whole. */
#include <stdint.h>

#include "tcomm_node_broadcast.h"
#include "tcomm_node_call.h"

/* No more ranks than cores (mpirun --oversubscribe): the receivers spin
 * on the root's line, and a rank that spins while the peer it waits for
 * has no core slows both down (3 ranks on 2 cores: 1.3-2x MPI_Bcast at
 * 32-256 KiB). */
int tcomm_node_broadcast_applies(tcomm_mpi_state_t *st, size_t bytes)
{
    long cores = tcomm_node_cores();
    if (!tcomm_node_copy_allowed(st) || (cores > 0 && st->size > cores))
        return TCOMM_NODE_MPI;
    return tcomm_node_tier(st, bytes,
                           TCOMM_NODE_BROADCAST_MIN * (size_t)(st->size - 1));
}

int tcomm_node_broadcast(tcomm_mpi_state_t *st, void *buf, size_t bytes,
                         int root, int tier, int *done)
{
    tcomm_node_note_t mine = {.addr = (uint64_t)(uintptr_t)buf,
                              .bytes = bytes,
                              .root = root,
                              .sig = tcomm_node_sig(TCOMM_NODE_BCAST, 0, 0, 0)},
                      peer;
    tcomm_node_call_t c;
    /* the root's share, a multiple of a cache line */
    size_t head = bytes / (size_t)st->size & ~(size_t)(TCOMM_CACHE_LINE - 1);

    tcomm_node_call_begin(&c, st, &mine);
    if (tier == TCOMM_NODE_MAPPED) /* the root writes, the others read */
        tcomm_node_call_map_only(&c, bytes, 0);
    if (st->rank == root) {
        /* in turn from the next rank, as their notes appear */
        for (int k = 1; k < st->size; k++)
            if (tcomm_node_call_peer(&c, (root + k) % st->size, &peer) && head)
                tcomm_node_call_copied(
                    &c,
                    tcomm_node_write((pid_t)peer.pid, buf, peer.addr, head));
    } else if (tcomm_node_call_peer(&c, root, &peer)) {
        tcomm_node_call_copied(
            &c, tcomm_node_read((pid_t)peer.pid, (char *)buf + head,
                                peer.addr + head, bytes - head));
    }
    tcomm_node_call_fence(&c); /* every copy is over after it */
    return tcomm_node_call_end(&c, done);
}
