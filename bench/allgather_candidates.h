/* SPDX-License-Identifier: BSD-3-Clause */
/* The candidates of all_gather along a dim > 0 that the library does not
 * take (bench/allgather_candidates.c), kept for bench/reshape_candidates
 * and test/mpi_kernels, which time and check them against the ones it
 * takes (src/mpi/all_gather_dim.c). Arguments as in tcomm_mpi_kernels.h. */
#ifndef TCOMM_ALLGATHER_CANDIDATES_H
#define TCOMM_ALLGATHER_CANDIDATES_H

#include "tcomm_mpi_reshape.h"

/* (b) MPI_Alltoallw, a vector receive type per peer, landing in place. */
int tcomm_mpi_all_gather_dim_alltoallw(const void *in, void *out,
                                       tcomm_dtype_t dtype, size_t outer,
                                       const size_t *seg, MPI_Comm comm);
/* (c) one Isend/Irecv per row and peer, landing in place. */
int tcomm_mpi_all_gather_dim_rows(const void *in, void *out,
                                  tcomm_dtype_t dtype, size_t outer,
                                  const size_t *seg, MPI_Comm comm);
/* (c') one Isend/Irecv per peer, a vector receive type, in place. */
int tcomm_mpi_all_gather_dim_vec(const void *in, void *out, tcomm_dtype_t dtype,
                                 size_t outer, const size_t *seg,
                                 MPI_Comm comm);
/* (d) (a) in pipelined groups of rows: unpack of group k overlaps the
 * transfer of group k + 1 (MPI_Iallgatherv). */
int tcomm_mpi_all_gather_dim_pipe(const void *in, void *out,
                                  tcomm_dtype_t dtype, size_t outer,
                                  const size_t *seg, MPI_Comm comm);

/* (e) on one node: each rank pulls the peers' rows into place
 * (process_vm_readv); elsewhere, or where the kernel refuses, (c'). */
int tcomm_mpi_all_gather_dim_pull(const void *in, void *out,
                                  tcomm_dtype_t dtype, size_t outer,
                                  const size_t *seg, MPI_Comm comm);

#endif /* TCOMM_ALLGATHER_CANDIDATES_H */
