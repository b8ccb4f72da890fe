/* SPDX-License-Identifier: BSD-3-Clause */
/* The reference of all_to_all and all_to_all_v for the MPI suites: the
 * output a rank must get, computed from every rank's shape and send sizes
 * and the values of test/mpi_reference.h (payloads, op -1), never from
 * the code under test. */
#ifndef TCOMM_TEST_MPI_A2A_REF_H
#define TCOMM_TEST_MPI_A2A_REF_H

#include <stddef.h>

#include "tcomm.h"

#define A2A_MAX_DIMS 4
#define A2A_MAX_RANKS 8

/* What rank r passes: its input's shape and its send_sizes along split. */
typedef struct {
    size_t shape[A2A_MAX_DIMS];
    size_t send[A2A_MAX_RANKS];
} a2a_rank_t;

/* The layout of an equal call of shape on every rank. */
void a2a_equal_ranks(a2a_rank_t *rk, int nranks, int nd, const size_t *shape,
                     int split);

/* Token mode: split == concat, each rank's send_sizes its own, (r + 2j +
 * seed) % 4 units (zeros included), so its size along the dim is its own
 * too; the other dims as base. */
void a2a_token_ranks(a2a_rank_t *rk, int nranks, int nd, const size_t *base,
                     int split, int seed, size_t unit);
/* Transpose mode: the same send_sizes everywhere, (2j + 1 + seed) % 3
 * units (zeros included), the ranks' sizes along concat their own,
 * (r + seed) % 3 units (a rank with 0 included). */
void a2a_transpose_ranks(a2a_rank_t *rk, int nranks, int nd,
                         const size_t *base, int split, int concat, int seed,
                         size_t unit);

/* Rank me's expected output for (split, concat): its shape into oshape
 * and its values (in double, oshape's row-major order) into a new array
 * *want; returns the number of elements, or (size_t)-1 if the pieces do
 * not cover the output exactly once (a broken test). */
size_t a2a_expect(tcomm_dtype_t d, int nd, int split, int concat,
                  int nranks, const a2a_rank_t *rk, int me, size_t *oshape,
                  double **want);

#endif /* TCOMM_TEST_MPI_A2A_REF_H */
