/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: a block of an all_to_all as rows in memory, and the copies of
 * one block onto another with the same bytes in the same order, however
 * each is cut into rows (src/mpi/node/block_copy.c). The equal and the
 * uneven pulls (all_to_all_copies.c, all_to_all_v_copies.c) move their
 * blocks with them. */
#ifndef TCOMM_BLOCK_COPY_H
#define TCOMM_BLOCK_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* rows rows of rb bytes, stride bytes apart from base, and a position in
 * them (row, off). */
typedef struct {
    uint64_t base;
    size_t rows, rb, stride, row, off;
} tcomm_all_to_all_walk_t;

/* A walk at its start. */
tcomm_all_to_all_walk_t tcomm_all_to_all_walk(uint64_t base, size_t rows,
                                              size_t rb, size_t stride);
/* Both walks' memory in this process: src onto dst with memcpy. */
void tcomm_all_to_all_walk_copy(tcomm_all_to_all_walk_t *src,
                                tcomm_all_to_all_walk_t *dst);
/* rem in process pid, loc here: read rem onto loc, or write loc onto rem
 * (push) with cross-memory attach. 1: all moved. */
int tcomm_all_to_all_walk_move(pid_t pid, tcomm_all_to_all_walk_t *rem,
                               tcomm_all_to_all_walk_t *loc, int push);
/* The same, but with memcpy where rem lies in pid's mapped tensor arena
 * (src/mpi/node/node_map.c). 1: all moved. */
int tcomm_all_to_all_walk_with_peer(pid_t pid, tcomm_all_to_all_walk_t *rem,
                                    tcomm_all_to_all_walk_t *loc, int push);

#endif /* TCOMM_BLOCK_COPY_H */
