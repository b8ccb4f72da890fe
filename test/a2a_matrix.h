/* SPDX-License-Identifier: BSD-3-Clause */
/* The correctness matrix of contract 0.2's all_to_all, all_to_all_v and
 * reduce_scatter_v, shared by the backends' suites as backend_matrix.h
 * is: every dtype; all_to_all over every (split, concat) pair of a 3-d
 * shape, allocating, _into and in place; all_to_all_v in the token and
 * the transpose mode with zero-size pieces and empty inputs;
 * reduce_scatter_v along every dim with a zero-size chunk, every op.
 * Each rank regenerates every rank's input from (rank, index) and checks
 * its result element by element against test/mpi_reference.h; failures
 * are recorded (the first one sticks) and every rank makes the same
 * calls whatever fails. */
#ifndef TCOMM_TEST_A2A_MATRIX_H
#define TCOMM_TEST_A2A_MATRIX_H

#include "backend_matrix.h"

/* Run the whole matrix on c->comm (world size c->nranks). */
void a2a_matrix(matrix_ctx_t *c);

/* The parts, for suites that run only some. */
void a2a_matrix_all_to_all(matrix_ctx_t *c);
void a2a_matrix_all_to_all_v(matrix_ctx_t *c);
void a2a_matrix_reduce_scatter_v(matrix_ctx_t *c);
/* Deterministic mode only: f32/f64 SUM and PROD of reduce_scatter_v on
 * order-sensitive values are bit for bit the left fold in rank order. */
void a2a_matrix_ordered_fold(matrix_ctx_t *c);

/* The token mode's send sizes: what rank r sends rank j along the dim
 * (zero for some pairs at every world size above 1). */
size_t a2a_token_size(int r, int j);
/* reduce_scatter_v's chunk of rank r (zero for rank 1). */
size_t a2a_chunk_size(int r);

#endif /* TCOMM_TEST_A2A_MATRIX_H */
