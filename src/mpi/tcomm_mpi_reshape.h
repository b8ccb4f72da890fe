/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: the algorithms behind tcomm_mpi_all_gather_dim and
 * tcomm_mpi_reduce_scatter_dim (src/mpi/), exposed for the candidates
 * that bench/reshape_candidates.c times and the tests. Arguments as in
 * tcomm_mpi_kernels.h. */
#ifndef TCOMM_MPI_RESHAPE_H
#define TCOMM_MPI_RESHAPE_H

#include <stddef.h>

#include "tcomm_internal.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_peer_copy.h"

/* all_gather along a dim > 0: in is [outer][seg[rank]], out is
 * [outer][sum(seg)], rank r's rows at column sum(seg[0..r)). */
int tcomm_mpi_all_gather_dim(const void *in, void *out, tcomm_dtype_t dtype,
                             size_t outer, const size_t *seg, MPI_Comm comm);
/* reduce_scatter along a dim > 0: in is [outer][nranks * chunk], out is
 * [outer][chunk], the reduction of columns [rank*chunk, (rank+1)*chunk). */
int tcomm_mpi_reduce_scatter_dim(const void *in, void *out,
                                 tcomm_dtype_t dtype, MPI_Op op,
                                 size_t outer, size_t chunk, MPI_Comm comm);

/* reduce_scatter_v along a dim > 0: in is [outer][sum(seg)], out is
 * [outer][seg[rank]], the reduction of rank's columns; in pipelined
 * groups (reduce_scatter_v_pipe.c). *done = 0 (nothing sent) where fewer
 * than two groups make no pipeline: the same on every rank. */
int tcomm_mpi_reduce_scatter_v_pipe(const void *in, void *out,
                                    tcomm_dtype_t dtype, MPI_Op op,
                                    size_t outer, const size_t *seg,
                                    MPI_Comm comm, int *done);

/* (a) MPI_Allgatherv into a rank-major temporary, then gather_unpack. */
int tcomm_mpi_all_gather_dim_tmp(const void *in, void *out, tcomm_dtype_t dtype,
                                 size_t outer, const size_t *seg,
                                 MPI_Comm comm);
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

/* The temporaries of the reduce_scatter algorithms (reduce_scatter_dim.c,
 * reduce_scatter_v.c): up to TCOMM_RS_STACK bytes on the caller's stack
 * buffer, up to two pipeline groups in a per-thread cache, else malloc;
 * beyond the stack the ranks agree that everybody got one (MPI_ERR_NO_MEM
 * on every rank otherwise). bytes must be the same on every rank. */
#define TCOMM_RS_STACK ((size_t)16 << 10)
/* Bytes of in per pipeline group. */
#ifndef TCOMM_RS_PIPE_BYTES
#define TCOMM_RS_PIPE_BYTES ((size_t)256 << 10)
#endif
int tcomm_rs_alloc(size_t bytes, char *stack, char **buf, MPI_Comm comm);
void tcomm_rs_free(char *buf, char *stack);

/* Shared by the all_gather files: the per-call layout. */
#define TCOMM_ALL_GATHER_TAG 0x7c61

/* Per-call layout: sizes, prefix offsets (off[nranks] = total). */
typedef struct {
    int nranks, rank;
    size_t es, total;
    size_t *off;   /* nranks + 1 */
    size_t *cnt;   /* nranks: outer * seg[r], for the tmp paths */
    size_t *dsp;   /* nranks: outer * off[r] */
    size_t stack[3 * TCOMM_STACK_RANKS + 1];
} tcomm_all_gather_plan_t;

int tcomm_all_gather_plan_init(tcomm_all_gather_plan_t *p, tcomm_dtype_t dtype,
                               size_t outer, const size_t *seg, MPI_Comm comm);
void tcomm_all_gather_plan_free(tcomm_all_gather_plan_t *p);
/* rows rows of rank r from a rank-major block into out
 * (src/mpi/node/all_gather_attach.c, with the pull that shares it) */
void tcomm_all_gather_unpack_one(const tcomm_all_gather_plan_t *p,
                                 const char *blk, char *out, size_t rows, int r,
                                 const size_t *seg);
/* own rows: in -> out at column off[rank] */
void tcomm_all_gather_copy_own(const tcomm_all_gather_plan_t *p, const void *in,
                               void *out, size_t outer, const size_t *seg);
/* committed vector type of seg-element rows in out (NULL type if empty) */
int tcomm_all_gather_rows_type(const tcomm_all_gather_plan_t *p,
                               MPI_Datatype base, size_t outer, size_t seg,
                               MPI_Datatype *type);
/* do the derived-datatype paths' int arguments fit? */
int tcomm_all_gather_fits_int(const tcomm_all_gather_plan_t *p, size_t outer);

/* The pull (src/mpi/node/all_gather_attach.c). *done = 0 when it did
 * not apply (off, not one node, or some rank could not read): then out
 * must be written by another path. Collective; the same *done on every rank. */
int tcomm_all_gather_pull(const tcomm_all_gather_plan_t *p, const void *in,
                          void *out, size_t outer, const size_t *seg,
                          MPI_Comm comm, int *done);
#endif /* TCOMM_MPI_RESHAPE_H */
