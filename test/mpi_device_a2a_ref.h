/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks of all_to_all, all_to_all_v and reduce_scatter_v on a graph of
 * any space (the sim suite test/mpi_device_a2a.c, the CUDA one
 * test/gpu/gpu_all_to_all.c). Every rank's input is regenerated from
 * (rank, index) with test/mpi_reference.h; each expected element is
 * computed from the coordinates it came from (all_to_all) or the
 * reduction of every rank's input there (reduce_scatter_v). Failures are
 * counted and printed (the first ten), never asserted on the spot, so
 * that no rank leaves the others waiting in a collective. */
#ifndef MPI_DEVICE_A2A_REF_H
#define MPI_DEVICE_A2A_REF_H

#include "tcomm.h"

void a2a_reset(const char *config, int rank, int size);
long a2a_failures(void);

/* Equal chunks, every (split, concat) pair of a 3-d shape and a 1-d one;
 * allocating, _into, and in place where split == concat. */
void check_all_to_all(tcomm_comm_t *comm, tcomm_graph_t *graph, int dtype);
/* Uneven chunks with zero sizes: the token mode along each dim of a 3-d
 * shape, the transpose mode for every pair of distinct dims. */
void check_all_to_all_v(tcomm_comm_t *comm, tcomm_graph_t *graph,
                        int dtype);
/* reduce_scatter_v along each dim of a 3-d shape (uneven, equal, zero
 * chunks); NaN propagation for float MIN/MAX. */
void check_reduce_scatter_v(tcomm_comm_t *comm, tcomm_graph_t *graph,
                            int dtype, int op);

#endif /* MPI_DEVICE_A2A_REF_H */
