/* SPDX-License-Identifier: BSD-3-Clause */
/* Independent reference for the MPI suites: every rank regenerates every
 * rank's input from (rank, index) and computes the expected result in
 * double precision, with its own f16/bf16 conversions. */
#ifndef TCOMM_TEST_MPI_REFERENCE_H
#define TCOMM_TEST_MPI_REFERENCE_H

#include <stddef.h>

#include "tcomm.h"

/* The value rank r holds at flat index i for a test of (dtype, op);
 * op < 0: a gather/broadcast payload. Chosen so that every partial sum,
 * product, min and max is exact in every dtype at up to 4 ranks. */
double ref_value(tcomm_dtype_t dtype, int op, int rank, size_t i);
/* Encode v into element i of buf / decode element i. */
void ref_store(tcomm_dtype_t dtype, void *buf, size_t i, double v);
double ref_load(tcomm_dtype_t dtype, const void *buf, size_t i);
/* Fill n elements of buf with rank's values. */
void ref_fill(tcomm_dtype_t dtype, int op, int rank, void *buf, size_t n);
/* NaN in this dtype (float dtypes only). */
void ref_store_nan(tcomm_dtype_t dtype, void *buf, size_t i);
int ref_is_float(tcomm_dtype_t dtype);
/* The reduction of element i over nranks ranks, in double. */
double ref_reduce(tcomm_dtype_t dtype, int op, int nranks, size_t i);
/* 1 if got matches want for (dtype, op): exact, except AVG which allows
 * the rounding of its division. NaN matches NaN. */
int ref_match(tcomm_dtype_t dtype, int op, double got, double want);

#endif /* TCOMM_TEST_MPI_REFERENCE_H */
