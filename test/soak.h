/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal to test/soak: the state and helpers its files share
 * (soak.c: the driver, the warm-up; soak_invalid.c: the invalid
 * calls; soak_valid.c: the valid ones; soak_mem.c: resident memory and
 * its verdict). */
#ifndef TCOMM_TEST_SOAK_H
#define TCOMM_TEST_SOAK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tcomm_mpi.h"

extern int rank, nranks;
extern tcomm_comm_t *comm;
extern tcomm_graph_t *graph, *graph2; /* graph2: a wrong graph */
extern long opno, n_ok, n_expected_err, n_mismatch, n_unexpected;
extern long n_bytes_max; /* multi-MiB shapes: 1 MiB to 1 MiB + this */

/* The shared random stream: every rank draws the same sequence. */
uint64_t rnd(void);
size_t below(size_t n);

/* A tensor of rank's reference values for (d, op) / an empty one. */
tcomm_tensor_t *make(tcomm_dtype_t d, int op, int nd, const size_t *s);
tcomm_tensor_t *make_empty(tcomm_dtype_t d, int nd, const size_t *s);

/* End the rank (status 3) on a timeout or an MPI failure. */
void fatal_check(tcomm_status_t st);

#define FAIL(...)                                                         \
    do {                                                                  \
        if (n_mismatch++ < 20) {                                          \
            fprintf(stderr, "soak rank %d op %ld: ", rank, opno);         \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
        }                                                                 \
    } while (0)

size_t numel(int nd, const size_t *s);

/* soak_valid.c: a valid collective, drawn (valid_call) or given (the
 * warm-up) to run_valid. */
enum { K_AR, K_AG, K_RS, K_BC, K_BAR, K_COUNT };
enum { F_ALLOC, F_INTO, F_INPLACE };
typedef struct {
    int kind, form, op, nd, dim, root;
    tcomm_dtype_t d;
    size_t s[TCOMM_MAX_DIMS];
    size_t sizes[64]; /* all_gather: every rank's size along dim */
} call_t;
void run_valid(call_t *c);
void valid_call(void);

/* soak_invalid.c: invalid call number what (0..SOAK_INVALID_KINDS-1). */
#define SOAK_INVALID_KINDS 13
void invalid_call(int what);

/* soak_mem.c */
enum { MEM_START, MEM_MIDDLE, MEM_END, MEM_POINTS };
typedef struct {
    long anon; /* KiB of private resident memory (RssAnon) */
    long shm;  /* KiB of shared pages touched (RssShmem) */
} soak_mem_t;
soak_mem_t soak_mem_read(void);
/* SOAK_MEM_TRACE=N: print this rank's memory every N calls. */
void soak_mem_trace(long op);
/* Gather every rank's figures, print them and the verdict on rank 0;
 * returns 1 (on rank 0) if the growth fails the check. */
int soak_mem_verdict(const soak_mem_t m[MEM_POINTS], long ops, int check);

#endif /* TCOMM_TEST_SOAK_H */
