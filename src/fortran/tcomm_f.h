/* SPDX-License-Identifier: BSD-3-Clause */
/* The C side of the Fortran module `tcomm` (src/fortran/tcomm.F90): a
 * communicator handle with its host graph, Fortran arrays seen through
 * their ISO_Fortran_binding.h descriptors as tcomm tensors, and the
 * error text the module prints or hands back. Public API only. The
 * functions are hidden: only the module procedures are the ABI. */
#ifndef TCOMM_F_H
#define TCOMM_F_H

#include <stddef.h>

#include <ISO_Fortran_binding.h>

#include "tcomm.h"

/* What `type(tcomm_comm_t)` points to. */
typedef struct tcomm_f_comm {
    tcomm_comm_t *comm;
    tcomm_graph_t *graph; /* host graph of the wrapped Fortran arrays */
    int world_size;
} tcomm_f_comm_t;

/* A Fortran array as a tensor: zero copy when the array is contiguous,
 * otherwise over a contiguous temporary that is copied in and out. A
 * Fortran array of extents (e1, ..., er) is the C tensor [er, ..., e1]. */
typedef struct {
    const CFI_cdesc_t *desc;
    tcomm_tensor_t *tensor;
    void *tmp;                  /* NULL when zero copy */
    int rank;                   /* Fortran rank, 0 for a scalar */
    size_t ext[TCOMM_MAX_DIMS]; /* Fortran extents */
    tcomm_dtype_t dtype;
} tcomm_f_view_t;

/* Open a view of @p desc (argument @p arg of the Fortran call @p fn);
 * copy_in: fill the temporary from the array. On failure records the
 * Fortran text and returns the status; nothing to close then. */
int tcomm_f_view_open(tcomm_f_comm_t *fc, const char *fn, const char *arg,
                      const CFI_cdesc_t *desc, int copy_in,
                      tcomm_f_view_t *v);
/* Release the tensor; copy_out: copy the temporary back to the array. */
void tcomm_f_view_close(tcomm_f_view_t *v, int copy_out);

/* "real(4)", "integer(8)", ... of a dtype. */
const char *tcomm_f_type_name(tcomm_dtype_t dtype);
/* "(2, 3)" of Fortran extents; "scalar" for rank 0. */
void tcomm_f_shape_text(int rank, const size_t *ext, char *buf, size_t len);

/* This thread's Fortran-facing error text. */
void tcomm_f_clear(void);
int tcomm_f_fail(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Take tcomm_last_error() as the text, naming @p fn instead of the C
 * call; @p c_order adds a note that shapes and dims are in C order. */
int tcomm_f_from_c(int status, const char *fn, int c_order);
/* The text of the last failure ("" if none). */
const char *tcomm_f_text(void);

#endif /* TCOMM_F_H */
