/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared tensor arena (src/core/host_arena.c): host tensors
 * of ARENA_MIN bytes and more live in one memfd mapping per process, so
 * that the other ranks of a node can map it too (pidfd_getfd + mmap,
 * src/mpi/node/node_map.c) and copy with memcpy, four times faster than
 * cross-memory attach (doc/performance.md). Private memory serves what
 * the arena cannot: where TCOMM_SINGLE_COPY=0, no memfd, a full arena,
 * and in a child after fork(), which sees the parent's tensors shared
 * but must never allocate or free in its arena. */
#ifndef TCOMM_HOST_ARENA_H
#define TCOMM_HOST_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define TCOMM_ARENA_MIN ((size_t)4096) /* smaller blocks stay private */

/* What a peer needs to map this process's arena. */
typedef struct {
    int fd;        /* the memfd, in this process */
    uint64_t base; /* where it is mapped here */
    uint64_t size;
    uint64_t dev, ino; /* the memfd's identity, checked by the peer */
} tcomm_arena_info_t;

/* bytes from the arena, aligned to align (a power of two, <= 4096);
 * NULL when the arena cannot serve them (use private memory). */
void *tcomm_arena_alloc(size_t bytes, size_t align);
/* Frees ptr if it is the arena's (1), else 0 (not ours: free it
 * elsewhere). bytes: the length asked for at its tcomm_arena_alloc. */
int tcomm_arena_free(void *ptr, size_t bytes);
/* Is [ptr, ptr + bytes) in this process's arena? */
int tcomm_arena_owns(const void *ptr, size_t bytes);
/* Is ptr an arena block inherited through fork() (this process must not
 * reuse it)? */
int tcomm_arena_foreign(const void *ptr);
/* 1 and *info once the arena exists in this process, else 0. */
int tcomm_arena_info(tcomm_arena_info_t *info);

#endif /* TCOMM_HOST_ARENA_H */
