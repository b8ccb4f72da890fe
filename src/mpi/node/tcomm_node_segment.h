/* SPDX-License-Identifier: BSD-3-Clause */
/* The node's shared segment (src/mpi/node/node_segment.c), for a
 * communicator that lives on one node: the agreement's rounds (an
 * element-wise minimum of a few int64, the MPI backend's agreement round
 * without an MPI collective, with the small inputs it may carry), a line
 * per rank for the notes of the single-copy collectives, and the slots of
 * the mapped tensor arenas. */
#ifndef TCOMM_NODE_SEGMENT_H
#define TCOMM_NODE_SEGMENT_H

#include <mpi.h>
#include <stdint.h>

#define TCOMM_NODE_SEGMENT_MIN_MAX 16 /* values per round, at most */

typedef struct tcomm_node_segment tcomm_node_segment_t;

/* Collective over comm (kept, for progress while waiting): *out is NULL
 * on every rank when the ranks are not all on one node, comm has one
 * rank, or shared memory is not available; then use MPI. Returns an MPI
 * error code. */
int tcomm_node_segment_create(MPI_Comm comm, tcomm_node_segment_t **out);
/* Collective: values[0..count) becomes the minimum over the ranks;
 * count <= TCOMM_NODE_SEGMENT_MIN_MAX, the same on every rank. */
void tcomm_node_segment_min(tcomm_node_segment_t *s, int64_t *values,
                            int count);

/* Bytes per rank that a round can carry besides its values. */
#define TCOMM_SHM_CARRY_MAX 4096

/* tcomm_node_segment_min whose round also carries every rank's bytes: this rank
 * offers @p bytes at @p data (NULL, or more than TCOMM_SHM_CARRY_MAX:
 * none). Returns 1 on every rank when every rank offered its: then
 * blocks[r] points at rank r's lens[r] bytes in the segment (8-byte
 * aligned), which stay as they are until this rank's next round on s.
 * Returns 0 on every rank otherwise. */
int tcomm_node_segment_min_carry(tcomm_node_segment_t *s, int64_t *values,
                                 int count, const void *data, size_t bytes,
                                 const void **blocks, size_t *lens);
/* Local: never waits for a peer. */
void tcomm_node_segment_destroy(tcomm_node_segment_t *s);

/* A line per rank on the same segment, for the single-copy collectives
 * (src/mpi/node/node_call.c): what a rank says of its call. */
typedef struct {
    uint64_t addr;  /* its buffer (the input where there are two) */
    int64_t pid;    /* set by tcomm_node_segment_publish, with ns */
    uint64_t ns;    /* the PID namespace in which pid means it */
    uint64_t bytes; /* the buffer's length */
    int64_t root;
    uint64_t out;   /* its output buffer, where it has one of its own */
    uint64_t sig;   /* the call's kind, dtype, op, dim, shape: same call? */
} tcomm_node_note_t;

/* Publish: note (with this process's pid), then seq (a release store).
 * Peer: waits (with MPI progress, as the rounds do) until rank's line
 * shows seq, then copies its note. A line is rewritten only by its
 * rank's next publish: the caller's protocol must keep every reader of
 * seq done before then. */
void tcomm_node_segment_publish(tcomm_node_segment_t *s, uint64_t seq,
                                const tcomm_node_note_t *note);
void tcomm_node_segment_peer(tcomm_node_segment_t *s, int rank, uint64_t seq,
                             tcomm_node_note_t *note);

/* And a line per rank for its tensor arena (src/mpi/node/node_map.c),
 * written once, before the first call that needs it. */
typedef struct {
    int64_t pid; /* set by tcomm_node_segment_publish_arena, with ns */
    uint64_t ns;
    int64_t fd;        /* the arena's memfd, in pid */
    uint64_t base;     /* where pid maps it */
    uint64_t size;
    uint64_t dev, ino; /* the memfd's identity */
} tcomm_node_arena_line_t;

/* s's ranks, and an int per rank that node_map.c keeps for s (the
 * slot of the peer's mapped arena that s holds), zero at first. */
int tcomm_node_segment_size(const tcomm_node_segment_t *s);
int *tcomm_node_segment_map_slots(tcomm_node_segment_t *s);

/* Has this rank written its arena line on s? */
int tcomm_node_segment_arena_set(tcomm_node_segment_t *s);
/* Write this rank's line (pid and ns filled in), a release store. */
void tcomm_node_segment_publish_arena(tcomm_node_segment_t *s,
                                      const tcomm_node_arena_line_t *arena);
/* 1 and *arena once rank has written its line; 0 before. Never waits. */
int tcomm_node_segment_peer_arena(tcomm_node_segment_t *s, int rank,
                                  tcomm_node_arena_line_t *arena);

#endif /* TCOMM_NODE_SEGMENT_H */
