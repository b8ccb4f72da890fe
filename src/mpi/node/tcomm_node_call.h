/* SPDX-License-Identifier: BSD-3-Clause */
/* One single-copy collective on one node, the protocol every such call
 * follows (src/mpi/node/node_call.c): each rank publishes a note (its
 * buffers and a signature of its call) on its line of the agreement's
 * shared segment, reads its peers' notes, copies between its memory and
 * theirs with cross-memory attach, and meets them in fences (rounds of
 * tcomm_node_segment_min) that no rank leaves before every copy of the phase is
 * over. The broadcast (node_broadcast.c), the reductions (node_reduce.c) and
 * the gathers are written on it. */
#ifndef TCOMM_NODE_CALL_H
#define TCOMM_NODE_CALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_node_segment.h"
#include "tcomm_peer_copy.h"

/* The call kinds, the low byte of a signature. */
enum {
    TCOMM_NODE_BCAST = 1,
    TCOMM_NODE_ALL_REDUCE,
    TCOMM_NODE_REDUCE_SCATTER,
    TCOMM_NODE_ALL_GATHER,
    TCOMM_NODE_ALL_TO_ALL,
    TCOMM_NODE_ALL_TO_ALL_V
};

/* A signature from a kind and up to seven more 8-bit fields (dtype, op,
 * dim...). Two calls with equal notes (bytes, root, sig) are the same. */
uint64_t tcomm_node_sig(int kind, int a, int b, int c);
/* sig with a hash of a layout (n sizes: rows, row bytes...) folded into
 * its bits above the first three fields, for calls whose shape is more
 * than a few fields. */
uint64_t tcomm_node_sig_layout(uint64_t sig, const size_t *v, int n);

/* Is a single copy allowed on st at all: a node segment, more than one
 * rank, and the communicator not off the single copies. The same answer
 * on every rank; the caller adds its size gate. Any number of ranks per
 * core: the reductions and gathers read their peers on their own and
 * meet them once, in the fence, where MPI's algorithms meet them at
 * every step, each waiting for a rank without a core (3-4 ranks on 2
 * cores: doc/performance.md). */
int tcomm_node_copy_allowed(const tcomm_mpi_state_t *st);
/* The node's count of cores (not this rank's affinity: every rank
 * answers the same); <= 0 when unknown. */
long tcomm_node_cores(void);

/* The tiers of a call by size. From a path's own gate (its attach_min)
 * the single copies take whatever way each peer's buffers allow:
 * memcpy where they lie in its mapped tensor arena (node_map.c), else
 * cross-memory attach, which costs a system call and a page pin per
 * piece. Below it, from TCOMM_NODE_MAPPED_MIN, only where every buffer
 * is mapped (memcpy: 4x attach's rate, no call): else every rank
 * learns it at the fence and goes to MPI, the communicator unchanged. */
enum { TCOMM_NODE_MPI, TCOMM_NODE_ATTACH, TCOMM_NODE_MAPPED };
#define TCOMM_NODE_MAPPED_MIN ((size_t)4096)

/* The tier of a call of bytes on st, where single copies are allowed.
 * A mapped try that fell back to MPI skips the mapped tier for the next
 * 1, 2, 4 ... 1024 calls that would take it (wrapped private buffers
 * would pay the fence each time); every rank counts the same, the
 * outcome being agreed. */
int tcomm_node_tier(tcomm_mpi_state_t *st, size_t bytes, size_t attach_min);

typedef struct {
    tcomm_mpi_state_t *st;
    uint64_t seq;
    tcomm_node_note_t mine;
    int state;    /* the pull state when the call began */
    int64_t ok[2]; /* [every copy worked, every rank made the same call] */
    int map_only;  /* TCOMM_NODE_MAPPED: peers' buffers must be mapped */
    size_t map_in, map_out; /* the bytes at their addr and out to check */
} tcomm_node_call_t;

/* Begin: publish mine (addr, bytes, root, out, sig; pid and namespace
 * are filled in). Local, never waits. */
void tcomm_node_call_begin(tcomm_node_call_t *c, tcomm_mpi_state_t *st,
                           const tcomm_node_note_t *mine);
/* After begin, for a call of the mapped tier: copy only if every peer's
 * [addr, addr + in_bytes) and [out, out + out_bytes) (0: not touched)
 * are mapped here. */
void tcomm_node_call_map_only(tcomm_node_call_t *c, size_t in_bytes,
                              size_t out_bytes);
/* Wait for rank's note of this call into *peer. 1: the same call, in
 * this PID namespace, and no copy has failed yet: copy. 0: the outcome
 * is recorded for the next fence; copy nothing. */
int tcomm_node_call_peer(tcomm_node_call_t *c, int rank,
                         tcomm_node_note_t *peer);
/* A copy's outcome (1 worked); the test hook TCOMM_HOOK_PULL_FAIL makes
 * every copy fail. */
void tcomm_node_call_copied(tcomm_node_call_t *c, int worked);
/* Fence: every rank's outcome so far, agreed; every copy before it, on
 * every rank, is over when it returns. 1: all copied, all the same. */
int tcomm_node_call_fence(tcomm_node_call_t *c);
/* After the last fence: *done = 1 when every copy worked and the calls
 * were the same. A failed copy turns the communicator off the single
 * copies for good; calls that differ leave it as it was (the caller's
 * MPI fallback reports them as raw MPI would). Returns an MPI code. */
int tcomm_node_call_end(tcomm_node_call_t *c, int *done);

#endif /* TCOMM_NODE_CALL_H */
