/* SPDX-License-Identifier: BSD-3-Clause */
/* The peers' tensor arenas mapped into this process (src/mpi/node/
 * node_map.c): where a peer's buffer lies in its arena
 * (src/core/tcomm_host_arena.h), the single copies of peer_copy.c are a
 * memcpy, not a cross-memory attach. */
#ifndef TCOMM_NODE_MAP_H
#define TCOMM_NODE_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tcomm_node_segment.h"

/* Write this rank's arena line on s once the arena exists. Local. */
void tcomm_node_map_publish(tcomm_node_segment_t *s);
/* Map rank's arena (pid, in this PID namespace: the caller has checked)
 * if it has published one and s holds none of rank's yet. A peer whose
 * arena cannot be mapped is not tried again on s: its copies stay
 * cross-memory attach. Local, never waits. */
void tcomm_node_map_peer(tcomm_node_segment_t *s, int rank, pid_t pid);
/* Before s is destroyed: drop what it holds (the last holder unmaps). */
void tcomm_node_map_release(tcomm_node_segment_t *s);
/* The table under those two (tests call them directly): a reference to
 * the mapping of arena a, keyed by pid and the memfd's identity, mapped
 * now if new; an older arena of the same pid is retired (unmapped once
 * nobody holds it). The slot, or -1 when the table is full. */
int tcomm_node_map_take(const tcomm_node_arena_line_t *a);
void tcomm_node_map_drop(int slot);
/* [remote, remote + len) of pid's memory as an address here, or NULL
 * where it is not in a mapped arena. A non-NULL answer is a copy through
 * the mapping: test/node_map_count.c counts them by wrapping this. */
char *tcomm_node_mapped(pid_t pid, uint64_t remote, size_t len);
/* Is it (the same test, not counted as a copy)? */
int tcomm_node_is_mapped(pid_t pid, uint64_t remote, size_t len);

#endif /* TCOMM_NODE_MAP_H */
