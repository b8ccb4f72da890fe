/* SPDX-License-Identifier: BSD-3-Clause */
/* The extension module tcomm._tcomm: thin calls into the public C API.
 * The package's Python layer (tcomm/_comm.py) checks arguments and picks
 * the form; this layer wraps buffers, releases the GIL and raises. */
#ifndef TCOMM_PY_H
#define TCOMM_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <tcomm.h>

/* The collectives, as the Python layer numbers them (tcomm/_comm.py). */
enum {
    TPY_ALL_REDUCE,
    TPY_ALL_GATHER,
    TPY_REDUCE_SCATTER,
    TPY_BROADCAST,
    TPY_ALL_TO_ALL,
    TPY_ALL_TO_ALL_V,
    TPY_REDUCE_SCATTER_V,
    TPY_BARRIER,
    TPY_NKINDS
};

/* A held buffer and the tensor wrapped over it (zero copy). */
typedef struct {
    Py_buffer view;
    tcomm_tensor_t *tensor;
} tpy_wrapped_t;

extern PyObject *tpy_error;           /* tcomm.Error */
extern PyTypeObject tpy_comm_type;    /* _tcomm.Comm */
extern PyTypeObject tpy_request_type; /* _tcomm.Request */
extern PyTypeObject tpy_result_type;  /* _tcomm.Result */
extern tcomm_graph_t *tpy_graph;      /* the host graph of every array */

/* Module functions: local and identity communicators (comm.c), MPI's
 * init, finalize and communicators (mpi.c). */
extern PyMethodDef tpy_comm_functions[];
extern PyMethodDef tpy_mpi_functions[];
/* A Comm owning c. */
PyObject *tpy_comm_new(tcomm_comm_t *c);

/* Raise tcomm.Error for status with this thread's tcomm_last_error(). */
PyObject *tpy_raise(tcomm_status_t status);
/* The same with a sentence kept from another call (a request's). */
PyObject *tpy_raise_text(tcomm_status_t status, const char *text);
/* Wrap a C-contiguous buffer of obj as a tensor of dtype; writable for
 * outputs. Returns 0, or -1 with an exception set. */
int tpy_wrap(PyObject *obj, int dtype, int writable, tpy_wrapped_t *w);
void tpy_unwrap(tpy_wrapped_t *w);
/* A Result owning tensor (the reference passes to it). */
PyObject *tpy_result_new(tcomm_tensor_t *tensor);
/* A Request over req that keeps x and out (and their wraps) alive. */
PyObject *tpy_request_new(tcomm_request_t *req, PyObject *x,
                          tpy_wrapped_t *in, PyObject *out,
                          tpy_wrapped_t *outw);

#endif
