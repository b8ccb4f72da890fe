/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: the candidate algorithms behind tcomm_mpi_allgather_dim and
 * tcomm_mpi_reduce_scatter_dim, exposed for bench/reshape_candidates.c
 * and the tests. Arguments as in tcomm_mpi_kernels.h. */
#ifndef TCOMM_MPI_RESHAPE_H
#define TCOMM_MPI_RESHAPE_H

#include <stddef.h>

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

/* (e) on one node: each rank pulls the peers' rows into place
 * (process_vm_readv); elsewhere, or where the kernel refuses, (c'). */
int tcomm_mpi_allgather_dim_pull(const void *in, void *out,
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

/* Shared by the all_gather files: the per-call layout. */
#define TCOMM_STACK_RANKS 128
#define TCOMM_AG_TAG 0x7c61

/* Per-call layout: sizes, prefix offsets (off[nranks] = total). */
typedef struct {
    int nranks, rank;
    size_t es, total;
    size_t *off;   /* nranks + 1 */
    size_t *cnt;   /* nranks: outer * seg[r], for the tmp paths */
    size_t *dsp;   /* nranks: outer * off[r] */
    size_t stack[3 * TCOMM_STACK_RANKS + 1];
} tcomm_ag_plan_t;

int tcomm_ag_plan_init(tcomm_ag_plan_t *p, tcomm_dtype_t dtype,
                       size_t outer, const size_t *seg, MPI_Comm comm);
void tcomm_ag_plan_free(tcomm_ag_plan_t *p);
/* rows rows of rank r from a rank-major block into out */
void tcomm_ag_unpack_one(const tcomm_ag_plan_t *p, const char *blk,
                         char *out, size_t rows, int r, const size_t *seg);
/* own rows: in -> out at column off[rank] */
void tcomm_ag_copy_own(const tcomm_ag_plan_t *p, const void *in, void *out,
                       size_t outer, const size_t *seg);
/* committed vector type of seg-element rows in out (NULL type if empty) */
int tcomm_ag_rows_type(const tcomm_ag_plan_t *p, MPI_Datatype base,
                       size_t outer, size_t seg, MPI_Datatype *type);
/* do the derived-datatype paths' int arguments fit? */
int tcomm_ag_fits_int(const tcomm_ag_plan_t *p, size_t outer);

/* The pull (tcomm_mpi_pull.c). *done = 0 when it did not apply (off, not
 * one node, or some rank could not read): then out must be written by
 * another path. Collective; the same *done on every rank. */
int tcomm_ag_pull(const tcomm_ag_plan_t *p, const void *in, void *out,
                  size_t outer, const size_t *seg, MPI_Comm comm, int *done);
/* Tests: nonzero makes this rank's reads fail, as if the kernel refused. */
extern int tcomm_mpi_pull_fail_for_test;
/* What the pull knows of comm, kept as the value of an attribute. */
enum {
    PULL_UNKNOWN, /* not asked yet */
    PULL_TRY,     /* one node, no read tried yet */
    PULL_ON,      /* in use */
    PULL_OFF      /* not one node, a read failed, or TCOMM_SINGLE_COPY=0 */
};
int tcomm_mpi_pull_state(MPI_Comm comm);
/* This process's PID namespace (the inode of /proc/self/ns/pid): two
 * ranks' pids name the same processes only where it is equal. Unknown
 * (no /proc): a value no other process has. */
uint64_t tcomm_pid_namespace(void);
/* Tests: nonzero stands for this process's PID namespace. */
extern uint64_t tcomm_pid_namespace_for_test;
/* After a single copy that every rank tried (the outcome agreed): ON if
 * all_read, else OFF for good. Local. */
int tcomm_mpi_pull_mark(MPI_Comm comm, int all_read);

#endif /* TCOMM_MPI_RESHAPE_H */
