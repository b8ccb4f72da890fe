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

/* Bytes of the input from which the single copies are used (below, the
 * protocol's few microseconds of hand-offs cost more than MPI's eager
 * messages); measured on 2 ranks, figures in doc/performance.md
 * ("Single-copy reductions on one node"). */
#define TCOMM_NODE_ALL_REDUCE_MIN ((size_t)16384)
#define TCOMM_NODE_REDUCE_SCATTER_MIN ((size_t)8192)
/* along dim > 0 (strided chunks): MPI's path is as fast up to 128 KiB */
#define TCOMM_NODE_REDUCE_SCATTER_DIM_MIN ((size_t)262144)

/* Does a reduction (kind TCOMM_NODE_ALL_REDUCE or _REDUCE_SCATTER; rows:
 * the reduce_scatter's rows, 1 along dim 0) with an input of bytes on st
 * take the node path? The same answer on every rank for the same call. */
int tcomm_node_reduce_applies(const tcomm_mpi_state_t *st, int kind,
                              size_t rows, size_t bytes);

/* Collective: out = in_0 op in_1 op ... op in_{n-1} over numel elements,
 * AVG divided by the ranks. out may be in. *done = 0 on every rank when a
 * copy failed (the communicator is then off the single copies) or the
 * calls differ (nothing copied): the caller redoes it with MPI. Returns
 * an MPI error code. */
int tcomm_node_all_reduce(tcomm_mpi_state_t *st, const void *in, void *out,
                          size_t numel, tcomm_dtype_t dtype, tcomm_op_t op,
                          int *done);

/* Collective: in is [outer][size * chunk] elements (outer = 1 along
 * dim 0); out, [outer][chunk], gets the fold of every rank's columns
 * [rank * chunk, (rank + 1) * chunk), AVG divided. dim goes into the
 * call's signature. *done and the return as above. */
int tcomm_node_reduce_scatter(tcomm_mpi_state_t *st, const void *in, void *out,
                              size_t outer, size_t chunk, int dim,
                              tcomm_dtype_t dtype, tcomm_op_t op, int *done);

#endif /* TCOMM_NODE_REDUCE_H */
