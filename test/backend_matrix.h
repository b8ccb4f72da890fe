/* SPDX-License-Identifier: BSD-3-Clause */
/* The correctness matrix shared by the backends' suites: every collective
 * x dtype x op x dim x form (allocating, _into, in place), uneven
 * all_gather, empty and 0-d tensors, checked element by element against
 * the MPI-free reference of test/mpi_reference.h. It records its first
 * failure instead of asserting, and every rank makes the same calls
 * whatever fails, so that it runs on threads (the local backend) as well
 * as on processes (Gloo, NCCL) without leaving a peer waiting. */
#ifndef TCOMM_TEST_BACKEND_MATRIX_H
#define TCOMM_TEST_BACKEND_MATRIX_H

#include "tcomm.h"

typedef struct {
    tcomm_comm_t *comm;
    tcomm_graph_t *graph; /* inputs and outputs live here */
    int rank, nranks;
    char fail[512]; /* the first failure, "" if none */
} matrix_ctx_t;

/* Record a failure (the first one sticks); returns ok. */
int matrix_expect(matrix_ctx_t *c, int ok, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define EXPECT(c, ok, ...) matrix_expect((c), (ok), __LINE__, __VA_ARGS__)

/* Run the whole matrix on c->comm; the world size is c->nranks. */
void backend_matrix(matrix_ctx_t *c);

#endif /* TCOMM_TEST_BACKEND_MATRIX_H */
