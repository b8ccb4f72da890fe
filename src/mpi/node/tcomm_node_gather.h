/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather of host buffers on one node by single copies: every rank
 * reads each peer's input straight into place in its output
 * (src/mpi/node/node_gather.c). */
#ifndef TCOMM_NODE_GATHER_H
#define TCOMM_NODE_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "tcomm_backend_mpi.h"

/* Output bytes per rank from which the single copy is used, along every
 * dim: below, MPI's eager messages (vader copies up to 4 KiB through its
 * shared fragments) beat a system call and a fence; from there MPI's
 * rendezvous costs what our protocol does. The figures are in
 * doc/performance.md ("Single-copy gathers on one node"). */
#define TCOMM_NODE_GATHER_MIN ((size_t)4 << 10)

/* Does an all_gather of out_bytes on st go through
 * tcomm_node_all_gather? The same answer on every rank of the same
 * call. */
int tcomm_node_gather_applies(const tcomm_mpi_state_t *st, size_t out_bytes);

/* Collective: in is [outer][rb[rank]] bytes, out [outer][sum(rb)], rank
 * r's rows at byte column sum(rb[0..r)); dtype only tells calls apart.
 * Along dim 0 (outer 1) in may lie at its place in out. *done = 0 on
 * every rank when some rank could not copy (the communicator is off the
 * single copies from then on) or the calls differ (TCOMM_CHECK=0;
 * nothing is copied between ranks whose calls differ): then the caller
 * gathers by MPI, which rewrites out whole. Returns an MPI error code. */
int tcomm_node_all_gather(tcomm_mpi_state_t *st, const void *in, void *out,
                          size_t outer, const size_t *rb, int dtype,
                          int *done);

#endif /* TCOMM_NODE_GATHER_H */
