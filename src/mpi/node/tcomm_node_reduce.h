/* SPDX-License-Identifier: BSD-3-Clause */
/* all_reduce and reduce_scatter of host buffers on one node by single
 * copies (src/mpi/node/node_reduce.c): each rank reads its peers' part of
 * its chunk once and folds it in rank order, the fold of the
 * deterministic path, so the result is bitwise the same in both modes. */
#ifndef TCOMM_NODE_REDUCE_H
#define TCOMM_NODE_REDUCE_H

#include <stddef.h>

#include "tcomm.h"
#include "tcomm_backend_mpi.h"
#include "tcomm_node_call.h"

/* Bytes of the input from which the single copies are used by any way
 * (below, cross-memory attach's hand-offs cost more than MPI's eager
 * messages; the mapped tier goes lower: tcomm_node_call.h); measured on
 * 2 ranks, figures in doc/performance.md ("Single-copy reductions on
 * one node"). */
#define TCOMM_NODE_ALL_REDUCE_MIN ((size_t)16384)
#define TCOMM_NODE_REDUCE_SCATTER_MIN ((size_t)8192)
/* along dim > 0 (strided chunks): MPI's path is as fast up to 128 KiB */
#define TCOMM_NODE_REDUCE_SCATTER_DIM_MIN ((size_t)262144)

/* The tier (tcomm_node_tier) of a reduction (kind TCOMM_NODE_ALL_REDUCE
 * or _REDUCE_SCATTER; rows: the reduce_scatter's rows, 1 along dim 0)
 * with an input of bytes on st: TCOMM_NODE_MPI, or the tier to pass to
 * the call. The same answer on every rank for the same call. */
int tcomm_node_reduce_applies(tcomm_mpi_state_t *st, int kind, size_t rows,
                              size_t bytes);

/* Collective: out = in_0 op in_1 op ... op in_{n-1} over numel elements,
 * AVG divided by the ranks. out may be in. *done = 0 on every rank when a
 * copy failed (the communicator is then off the single copies) or the
 * calls differ (nothing copied): the caller redoes it with MPI. Returns
 * an MPI error code. tier: tcomm_node_reduce_applies's answer. */
int tcomm_node_all_reduce(tcomm_mpi_state_t *st, const void *in, void *out,
                          size_t numel, tcomm_dtype_t dtype, tcomm_op_t op,
                          int tier, int *done);

/* Collective: in is [outer][size * chunk] elements (outer = 1 along
 * dim 0); out, [outer][chunk], gets the fold of every rank's columns
 * [rank * chunk, (rank + 1) * chunk), AVG divided. dim goes into the
 * call's signature. *done and the return as above. */
int tcomm_node_reduce_scatter(tcomm_mpi_state_t *st, const void *in, void *out,
                              size_t outer, size_t chunk, int dim,
                              tcomm_dtype_t dtype, tcomm_op_t op, int tier,
                              int *done);

#endif /* TCOMM_NODE_REDUCE_H */
