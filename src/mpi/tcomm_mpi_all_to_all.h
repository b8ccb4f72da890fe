/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: the MPI backend's all_to_all on host buffers, as blocks of
 * rows, and the candidate exchanges that the tables of all_to_all and
 * all_to_all_v choose among (src/mpi/all_to_all.c, all_to_all_v.c) and
 * bench/alltoall_candidates.c times (src/mpi/alltoall_*.c).
 *
 * A call's layout: in is viewed as [souter][stotal] elements, the block
 * for rank j being its columns [soff[j], soff[j] + sw[j]); out is viewed
 * as [router][rtotal], the block from rank r landing at its columns
 * [roff[r], roff[r] + rw[r]). This rank's block for j holds as many
 * elements (souter * sw[j]) as rank j's block from us (its router *
 * rw[us]), in the same row-major order. Every function is collective
 * and returns an MPI error code. */
#ifndef TCOMM_MPI_ALL_TO_ALL_H
#define TCOMM_MPI_ALL_TO_ALL_H

#include <mpi.h>
#include <stddef.h>

#include "tcomm_internal.h"

typedef struct {
    int nranks, rank;
    tcomm_dtype_t dtype;
    size_t es;
    int equal;   /* same block sizes everywhere (MPI_Alltoall applies) */
    int fits;    /* counts fit the count limit on every rank */
    size_t souter, stotal, router, rtotal;
    size_t *sw, *soff, *rw, *roff; /* nranks each, in elements */
    /* the backend's state where the caller has one (NULL from
     * tcomm_all_to_all_plan_alloc): the pull's node protocol needs its segment
     */
    struct tcomm_mpi_state *st;
    size_t stack[4 * TCOMM_STACK_RANKS];
} tcomm_all_to_all_plan_t;

/* The arrays for nranks (on the heap above TCOMM_STACK_RANKS). */
int tcomm_all_to_all_plan_alloc(tcomm_all_to_all_plan_t *p, tcomm_dtype_t dtype,
                                MPI_Comm comm);
/* in along split, out along concat: the rows of both sides (the sizes
 * along each dim as tcomm_all_to_all_plan_cols takes them). */
void tcomm_all_to_all_plan_sides(tcomm_all_to_all_plan_t *p,
                                 const tcomm_tensor_t *in, int split,
                                 const size_t *send_sizes, size_t each_s,
                                 const tcomm_tensor_t *out, int concat,
                                 const size_t *recv_sizes, size_t each_r);
void tcomm_all_to_all_plan_free(tcomm_all_to_all_plan_t *p);
/* sw/soff from sizes along the split dim (seg[j] = sizes[j] * inner),
 * rw/roff likewise; NULL sizes: each entry `each`. */
void tcomm_all_to_all_plan_cols(size_t *w, size_t *off, int n,
                                const size_t *sizes, size_t each, size_t inner);

/* Contiguous blocks on both sides: one MPI_Alltoall (equal) or
 * MPI_Alltoallv; if fits is 0, counts or displacements exceed
 * tcomm_mpi_count_limit() on some rank and the blocks go as pieces
 * between pairs (*path says which). fits must be the same on every
 * rank. Counts and displacements in elements. */
int tcomm_all_to_all_flat(const void *sbuf, const size_t *scnt,
                          const size_t *sdsp, void *rbuf, const size_t *rcnt,
                          const size_t *rdsp, int equal, int fits,
                          tcomm_dtype_t dtype, MPI_Comm comm,
                          tcomm_path_t *path);

/* The candidates for strided blocks (any souter, router). Every rank
 * must call the same one. */
/* (a) split_pack into a temporary where souter > 1, the flat exchange,
 * gather_unpack where router > 1. any_tmp: does some rank need a
 * temporary (then they agree that all have one before data moves). */
int tcomm_all_to_all_pack(const tcomm_all_to_all_plan_t *p, const void *in,
                          void *out, int any_tmp, MPI_Comm comm,
                          tcomm_path_t *path);
/* (a) as a row of t, the table of all_to_all or all_to_all_v
 * (src/mpi/all_to_all.c): the path it took noted (it can differ between
 * the ranks), p freed. */
struct tcomm_mpi_coll_table;
int tcomm_all_to_all_pack_noted(struct tcomm_mpi_state *st,
                                const struct tcomm_mpi_coll_table *t,
                                tcomm_all_to_all_plan_t *p, const void *in,
                                void *out, int any_tmp);
/* (b) MPI_Alltoallw with a vector datatype per peer on each side. */
int tcomm_all_to_all_alltoallw(const tcomm_all_to_all_plan_t *p, const void *in,
                               void *out, MPI_Comm comm);
/* (c) one Isend/Irecv per peer, through the same vector datatypes. */
int tcomm_all_to_all_vector(const tcomm_all_to_all_plan_t *p, const void *in,
                            void *out, MPI_Comm comm);
/* (d) one message per contiguous run common to both sides (equal
 * layouts only), landing in place. */
int tcomm_all_to_all_rows(const tcomm_all_to_all_plan_t *p, const void *in,
                          void *out, MPI_Comm comm);
/* (e) on one node: each rank reads its blocks from the peers' inputs
 * into place (memcpy from a peer's mapped arena, else process_vm_readv;
 * src/mpi/node/all_to_all_copies.c), tier as tcomm_all_to_all_pull_tier says,
 * synchronised through the node segment where p->st has one and single
 * copies are allowed there (tcomm_node_copy_allowed), else by MPI.
 * *done = 0 when it did not apply (off, not one node, a rank could not
 * read, calls that differ): then out must be written by another path. The same
 * *done on every rank. */
int tcomm_all_to_all_pull(const tcomm_all_to_all_plan_t *p, const void *in,
                          void *out, MPI_Comm comm, int tier, int *done);
/* This rank's own block of p from in into out (the pulls' local copy). */
void tcomm_all_to_all_copy_own(const tcomm_all_to_all_plan_t *p, const void *in,
                               void *out);
/* The tier (tcomm_node_tier) of the pull for an equal call of p from
 * attach_min bytes of input (SIZE_MAX: the mapped tier only). */
int tcomm_all_to_all_pull_tier(const tcomm_all_to_all_plan_t *p,
                               size_t attach_min);
/* The pull's gate by cross-memory attach (the size of a rank's input)
 * where one side's blocks are strided (two = 0) or both: below it, MPI's
 * candidates win (all_to_all_strided.c); above, the pull. */
#define TCOMM_ALL_TO_ALL_PULL_MIN(two)                                         \
    ((two) ? (size_t)1 << 20 : (size_t)64 << 10)
/* (f) all_to_all_v on one node, the node protocol of (e) with each
 * peer's blocks found in the table of every rank's sizes (table: a row
 * of nranks + 1 per rank, its size along concat, then its send sizes, as
 * the front end's exchange gives it, the same on every rank), where
 * p->st has the segment and single copies are allowed: by memcpy where
 * every peer's buffer is mapped (from TCOMM_NODE_MAPPED_MIN bytes per
 * rank on average), by cross-memory attach from TCOMM_ALL_TO_ALL_PULL_MIN for
 * strided blocks. *done = 0 (every rank alike) where it did not apply:
 * then out must be written by another path. p: this rank's plan of the
 * call. src/mpi/node/all_to_all_v_copies.c. */
int tcomm_all_to_all_v_pull(const tcomm_all_to_all_plan_t *p,
                            const tcomm_tensor_t *in, int split, int concat,
                            const int64_t *table, tcomm_tensor_t *out,
                            int *done);
/* The mean bytes of the ranks' inputs of that call (its tier's measure,
 * and all_to_all_v's table's: the same on every rank). */
size_t tcomm_all_to_all_v_mean_bytes(const tcomm_tensor_t *in, int split,
                                     int concat, const int64_t *table, int n);
/* Do the counts and strides fit the int arguments of (b), (c), (d), and
 * their per-rank arrays the stack (at most TCOMM_STACK_RANKS ranks)?
 * The same answer on every rank of an equal call. Reads the first
 * blocks only (sw[0], rw[0]) of the arrays. */
int tcomm_all_to_all_fits_int(const tcomm_all_to_all_plan_t *p);
/* The run of (d): the elements contiguous on both sides of an equal
 * call; (d) applies from TCOMM_ALL_TO_ALL_RUN_MIN bytes (all_to_all_strided.c).
 */
size_t tcomm_all_to_all_common_run(const tcomm_all_to_all_plan_t *p);
#define TCOMM_ALL_TO_ALL_RUN_MIN ((size_t)32 << 10)

#endif /* TCOMM_MPI_ALL_TO_ALL_H */
