/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast on one node by single copies, the copy shared between
 * the root and the receivers (src/mpi/node/node_broadcast.c). */
#ifndef TCOMM_NODE_BROADCAST_H
#define TCOMM_NODE_BROADCAST_H

#include <stddef.h>

#include "tcomm_backend_mpi.h"

/* Bytes per receiver from which the shared copy is used. On 2 ranks here
 * it takes 0.84x MPI_Bcast's time at 16 KiB and 0.47-0.76x from 64 KiB;
 * a few KiB are too short to pay for the system calls and hand-offs
 * (0.95x at 4 KiB in a prototype of the protocol). */
#define TCOMM_NODE_BROADCAST_MIN ((size_t)16384)

/* The tier (tcomm_node_tier) of a broadcast of bytes on st:
 * TCOMM_NODE_MPI, or the tier to pass to tcomm_node_broadcast. The same
 * answer on every rank for the same bytes. */
int tcomm_node_broadcast_applies(tcomm_mpi_state_t *st, size_t bytes);

/* Collective: buf (the root's data, the receivers' output) of bytes.
 * *done = 0 on every rank when some rank could not copy (the
 * communicator stays off the single copy from then on) or when the ranks
 * disagree on bytes or root (possible with TCOMM_CHECK=0; nothing is
 * copied between ranks whose calls differ): then nothing is promised of
 * the receivers' buffers, and the caller broadcasts by MPI. Returns an
 * MPI error code. */
int tcomm_node_broadcast(tcomm_mpi_state_t *st, void *buf, size_t bytes,
                         int root, int tier, int *done);

#endif /* TCOMM_NODE_BROADCAST_H */
