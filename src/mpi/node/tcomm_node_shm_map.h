/* SPDX-License-Identifier: BSD-3-Clause */
/* A zero-filled POSIX shared memory segment mapped by every rank of a
 * node communicator, unlinked once all have mapped it
 * (src/mpi/node/node_shm_map.c). */
#ifndef TCOMM_NODE_SHM_MAP_H
#define TCOMM_NODE_SHM_MAP_H

#include <mpi.h>
#include <stddef.h>

/* Collective over node (ranks sharing memory, e.g. from
 * MPI_Comm_split_type): *p is the mapping of len bytes, the same on every
 * rank, or NULL on every rank when some rank could not map it. Unmap with
 * munmap(*p, len), locally: nothing waits for a peer. Returns an MPI
 * error code. */
int tcomm_node_shm_map(MPI_Comm node, size_t len, void **p);

#endif /* TCOMM_NODE_SHM_MAP_H */
