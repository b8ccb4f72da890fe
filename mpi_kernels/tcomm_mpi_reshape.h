/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: the candidate algorithms behind tcomm_mpi_allgather_dim and
 * tcomm_mpi_reduce_scatter_dim, exposed for bench/reshape_candidates.c
 * and the tests. Arguments as in tcomm_mpi_kernels.h. */
#ifndef TCOMM_MPI_RESHAPE_H
#define TCOMM_MPI_RESHAPE_H

#include "tcomm_mpi_kernels.h"

/* (a) MPI_Allgatherv into a rank-major temporary, then gather_unpack. */
int tcomm_mpi_allgather_dim_tmp(const void *in, void *out,
                                tcomm_dtype_t dtype, size_t outer,
                                const size_t *seg, MPI_Comm comm);
/* (b) MPI_Alltoallw, a vector receive type per peer, landing in place. */
int tcomm_mpi_allgather_dim_alltoallw(const void *in, void *out,
                                      tcomm_dtype_t dtype, size_t outer,
                                      const size_t *seg, MPI_Comm comm);
/* (c) one Isend/Irecv per row and peer, landing in place. */
int tcomm_mpi_allgather_dim_rows(const void *in, void *out,
                                 tcomm_dtype_t dtype, size_t outer,
                                 const size_t *seg, MPI_Comm comm);
/* (c') one Isend/Irecv per peer, a vector receive type, in place. */
int tcomm_mpi_allgather_dim_vec(const void *in, void *out,
                                tcomm_dtype_t dtype, size_t outer,
                                const size_t *seg, MPI_Comm comm);
/* (d) (a) in pipelined groups of rows: unpack of group k overlaps the
 * transfer of group k + 1 (MPI_Iallgatherv). */
int tcomm_mpi_allgather_dim_pipe(const void *in, void *out,
                                 tcomm_dtype_t dtype, size_t outer,
                                 const size_t *seg, MPI_Comm comm);

/* scatter_pack into a rank-major temporary + MPI_Reduce_scatter_block. */
int tcomm_mpi_reduce_scatter_dim_pack(const void *in, void *out,
                                      tcomm_dtype_t dtype, MPI_Op op,
                                      size_t outer, size_t chunk,
                                      MPI_Comm comm);
/* The same in pipelined groups of rows (MPI_Ireduce_scatter_block). */
int tcomm_mpi_reduce_scatter_dim_pipe(const void *in, void *out,
                                      tcomm_dtype_t dtype, MPI_Op op,
                                      size_t outer, size_t chunk,
                                      MPI_Comm comm);

#endif /* TCOMM_MPI_RESHAPE_H */
