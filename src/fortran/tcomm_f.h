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
    int rank;
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
/* Copy a view's temporary @p packed back to the array @p d (a
 * nonblocking call's recvbuf, at its wait). */
void tcomm_f_view_unpack(const CFI_cdesc_t *d, const void *packed);

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

/* The local rules of a call (tcomm_f_check.c): the first one broken. */
typedef struct {
    int status; /* 0 if none */
    char text[512];
} tcomm_f_pre_t;
void tcomm_f_pre_fail(tcomm_f_pre_t *p, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tcomm_f_no_comm(const char *fn);
/* The C dim of Fortran dim @p dim of a rank-@p rank array; -1, which
 * tcomm rejects, if out of range. A scalar acts as an array of extent
 * (1). */
int tcomm_f_c_dim(int rank, int dim);
void tcomm_f_check_op(tcomm_f_pre_t *p, const char *fn, const char *arg,
                      const tcomm_f_view_t *v, int op);
/* @p dim (an argument called @p name) against sendbuf's rank. */
void tcomm_f_check_dim(tcomm_f_pre_t *p, const char *fn, const char *name,
                       const tcomm_f_view_t *s, int dim);
/* recvbuf's type against sendbuf's and its shape against the Fortran
 * extents @p want of rank @p rank; Fortran dim @p star (0: none) is only
 * known after the exchange: printed as '*' followed by @p star_note, and
 * not compared. */
void tcomm_f_check_recv(tcomm_f_pre_t *p, const char *fn,
                        const tcomm_f_view_t *s, const tcomm_f_view_t *r,
                        int rank, const size_t *want, int star,
                        const char *star_note);
/* all_gather's rules: @p dim, then recvbuf's shape with its extent
 * along dim left to tcomm (the ranks' sum); @p n ranks. */
void tcomm_f_check_gather(tcomm_f_pre_t *p, const char *fn,
                          const tcomm_f_view_t *s, const tcomm_f_view_t *r,
                          int dim, int n);
/* reduce_scatter's rules: @p op, @p dim, sendbuf's extent along dim a
 * multiple of @p n, recvbuf's shape that of one rank's part. */
void tcomm_f_check_scatter(tcomm_f_pre_t *p, const char *fn,
                           const tcomm_f_view_t *s, const tcomm_f_view_t *r,
                           int op, int dim, int n);
/* The status of the C call, with the rank's own text in Fortran terms
 * where the local checks predicted the failure. */
int tcomm_f_finish(int st, const tcomm_f_pre_t *p, const char *fn);

#endif /* TCOMM_F_H */
