/* SPDX-License-Identifier: BSD-3-Clause */
/* Two-level collectives for a communicator that spans several nodes
 * (src/mpi/hier.c, hier_colls.c): the node level through a child
 * communicator over the node's ranks (tcomm's own single copies), the
 * level across nodes through MPI among one rank per node. */
#ifndef TCOMM_HIER_H
#define TCOMM_HIER_H

#include <mpi.h>
#include <stddef.h>

#include "tcomm_backend_mpi.h"

typedef struct tcomm_hier {
    int nodes;           /* nodes the communicator spans (>= 2) */
    int node_index;      /* this rank's node, numbered by its lowest rank */
    int node_rank;       /* this rank in its node */
    int node_size;       /* ranks on this node */
    int equal;           /* every node has node_size ranks */
    int by_slot;         /* every node's ranks are consecutive */
    int *node_of;        /* [size]: each rank's node */
    int *local_of;       /* [size]: each rank's node rank */
    int *node_first;     /* [nodes + 1]: node n's lowest rank; n = size */
    tcomm_comm_t *node;  /* the node's ranks, in rank order */
    /* The level across nodes, ordered by node: the ranks of this node
     * rank (equal: every rank is in one; else node rank 0 only, and
     * MPI_COMM_NULL on the others). */
    MPI_Comm cross;
} tcomm_hier_t;

/* At communicator creation (collective over st->comm): st->hier, or NULL
 * where the communicator is on one node, has one rank per node, or
 * TCOMM_HIER is 0. */
tcomm_status_t tcomm_hier_create(tcomm_mpi_state_t *st);
void tcomm_hier_destroy(tcomm_hier_t *h, int failed);
/* Rank rank's node and its rank there. */
void tcomm_hier_locate(const tcomm_hier_t *h, int rank, int *node,
                       int *node_rank);

/* Does the two-level form apply? The same answer on every rank: from
 * the layout and arguments the ranks agree on. Reductions also need the
 * deterministic mode off (which the ranks agree on in checked mode);
 * the movements (all_gather, broadcast) take it either way. */
int tcomm_hier_applies(const tcomm_mpi_state_t *st);
int tcomm_hier_reduces(const tcomm_mpi_state_t *st);

/* The rows of the collectives' tables (src/mpi/hier_colls.c): whether
 * the two-level form applies to a call, and its run. */
int tcomm_hier_all_reduce_slices_applies(const tcomm_mpi_state_t *st,
                                         const tcomm_coll_args_t *a);
tcomm_status_t tcomm_hier_all_reduce_slices_run(tcomm_mpi_state_t *st,
                                                const tcomm_coll_args_t *a);
int tcomm_hier_all_reduce_leaders_applies(const tcomm_mpi_state_t *st,
                                          const tcomm_coll_args_t *a);
tcomm_status_t tcomm_hier_all_reduce_leaders_run(tcomm_mpi_state_t *st,
                                                 const tcomm_coll_args_t *a);
int tcomm_hier_reduce_scatter_applies(const tcomm_mpi_state_t *st,
                                      const tcomm_coll_args_t *a);
tcomm_status_t tcomm_hier_reduce_scatter_run(tcomm_mpi_state_t *st,
                                             const tcomm_coll_args_t *a);
int tcomm_hier_all_gather_applies(const tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a);
tcomm_status_t tcomm_hier_all_gather_run(tcomm_mpi_state_t *st,
                                         const tcomm_coll_args_t *a);
int tcomm_hier_broadcast_applies(const tcomm_mpi_state_t *st,
                                 const tcomm_coll_args_t *a);
tcomm_status_t tcomm_hier_broadcast_run(tcomm_mpi_state_t *st,
                                        const tcomm_coll_args_t *a);
/* One collective on the node's child communicator, chosen by its table t
 * like any call of the MPI backend (the node's single copies). */
struct tcomm_mpi_coll_table;
tcomm_status_t tcomm_hier_on_node(const tcomm_mpi_state_t *st,
                                  const struct tcomm_mpi_coll_table *t,
                                  const tcomm_tensor_t *in, tcomm_tensor_t *out,
                                  tcomm_op_t op, int dim, int root,
                                  const size_t *sizes);
/* The step across nodes (src/mpi/hier_cross.c) on st->hier->cross, as
 * MPI's large-count calls; with TCOMM_TIMEOUT, their nonblocking forms
 * bounded by the call's deadline. fn names the call in MPI's errors.
 * In place: allreduce and allgatherv (cnt, displs: per node, in
 * elements); reduce_scatter: count elements per node. */
tcomm_status_t tcomm_hier_cross_allreduce(const tcomm_mpi_state_t *st,
                                          void *buf, size_t count,
                                          tcomm_dtype_t dtype, MPI_Op op,
                                          const char *fn);
tcomm_status_t tcomm_hier_cross_bcast(const tcomm_mpi_state_t *st, void *buf,
                                      size_t count, tcomm_dtype_t dtype,
                                      int root, const char *fn);
tcomm_status_t tcomm_hier_cross_reduce(const tcomm_mpi_state_t *st,
                                       const void *send, void *recv,
                                       size_t count, tcomm_dtype_t dtype,
                                       MPI_Op op, int root, const char *fn);
tcomm_status_t tcomm_hier_cross_reduce_scatter(const tcomm_mpi_state_t *st,
                                               const void *send, void *recv,
                                               size_t count,
                                               tcomm_dtype_t dtype, MPI_Op op,
                                               const char *fn);
tcomm_status_t tcomm_hier_cross_allgatherv(const tcomm_mpi_state_t *st,
                                           void *buf, const size_t *cnt,
                                           const size_t *displs,
                                           tcomm_dtype_t dtype, const char *fn);
/* Every rank of every node, once per call, where the step across nodes
 * ends (s: this rank's status so far): with TCOMM_TIMEOUT, a rank whose
 * node had a rank fail the step fails too, so that no rank waits for a
 * node step that will not come; without, s. */
tcomm_status_t tcomm_hier_settle(const tcomm_mpi_state_t *st, tcomm_status_t s);

/* src/mpi/hier_reduce.c */
int tcomm_hier_reduce_applies(const tcomm_mpi_state_t *st,
                              const tcomm_coll_args_t *a);
tcomm_status_t tcomm_hier_reduce_run(tcomm_mpi_state_t *st,
                                     const tcomm_coll_args_t *a);

#endif /* TCOMM_HIER_H */
