/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_TIMEOUT: the MPI backend's arrival exchanges (the agreement
 * round, checked or not, and the barrier) run as
 * nonblocking MPI calls polled until a deadline. Every rank stores the
 * sequence number of the collective it last entered in memory shared
 * by the ranks of its node, so that a rank that gives up can name the
 * ranks that have not arrived, and a late rank can see that its peers
 * gave up. See src/mpi/timeout.c. */
#ifndef TCOMM_TIMEOUT_H
#define TCOMM_TIMEOUT_H

#include <mpi.h>
#include <stdint.h>

#include "tcomm_internal.h"

typedef struct tcomm_timeout tcomm_timeout_t;

/* Collective over comm: the node's shared record and scratch buffers. */
tcomm_status_t tcomm_timeout_create(MPI_Comm comm, double seconds,
                                    tcomm_timeout_t **out);
/* Local: never waits for a peer. A buffer that an abandoned request may
 * still write into is left allocated. */
void tcomm_timeout_destroy(tcomm_timeout_t *t, int failed);
/* The handle whose nonblocking collectives t bounds: while its progress
 * thread runs one that nobody waits for, the deadline keeps moving, so
 * that TCOMM_TIMEOUT counts from the start of tcomm_wait. */
void tcomm_timeout_set_owner(tcomm_timeout_t *t, const tcomm_comm_t *owner);

/* Nonblocking forms of the backend's exchanges, polled until the deadline
 * of collective seq (set when a rank first enters seq). They return
 * TCOMM_ERR_TIMEOUT naming the ranks that have not arrived, or
 * TCOMM_ERR_COMM_FAILED when a peer has given up on this communicator. */
tcomm_status_t tcomm_timeout_allreduce_min_i64(tcomm_timeout_t *t,
                                               MPI_Comm comm, uint64_t seq,
                                               int64_t *values, int count);
tcomm_status_t tcomm_timeout_allgather_bytes(tcomm_timeout_t *t,
                                             MPI_Comm comm, uint64_t seq,
                                             const void *mine, void *all,
                                             size_t bytes);
tcomm_status_t tcomm_timeout_barrier(tcomm_timeout_t *t, MPI_Comm comm,
                                     uint64_t seq);

/* The two-level collectives' step across nodes (src/mpi/hier_cross.c):
 * scratch: bytes of t's buffer, which a request given up on may still
 * write into (kept until the process ends); wait: req polled until the
 * deadline of collective seq, as the exchanges above; node_failed: a
 * rank of this node (its node rank 0 across nodes) failed in call, so
 * this one fails too: TCOMM_ERR_COMM_FAILED, the communicator marked
 * unusable. */
tcomm_status_t tcomm_timeout_scratch(tcomm_timeout_t *t, size_t bytes,
                                     void **scratch);
tcomm_status_t tcomm_timeout_wait(tcomm_timeout_t *t, uint64_t seq,
                                  MPI_Request *req, const char *call);
tcomm_status_t tcomm_timeout_node_failed(tcomm_timeout_t *t, uint64_t seq,
                                         const char *call);

/* Every rank's host name, gathered over comm (src/mpi/timeout_hosts.c);
 * *names is freed by the caller. Returns an MPI error code. */
int tcomm_timeout_hosts_gather(MPI_Comm comm, char **names);
/* "2, 5 and 7" of the n ranks r[] (at most 16 named, then "and N
 * more"), into buf. */
void tcomm_timeout_rank_list(const int *r, int n, char *buf, size_t len);
/* "ranks 2 and 3 on node7; rank 5 on node9" of the size ranks that are not
 * node_ranks[0 .. nnode), by host. */
void tcomm_timeout_hosts_away(const char *names, int size,
                              const int *node_ranks, int nnode, char *buf,
                              size_t len);

#endif /* TCOMM_TIMEOUT_H */
