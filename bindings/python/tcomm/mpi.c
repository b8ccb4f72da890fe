/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI for the package: initialise it if nobody has (and say so, so that
 * only then the package finalises it), and communicators over
 * MPI_COMM_WORLD or an mpi4py communicator's handle. */
#include "_tcomm.h"

#include <stdint.h>
#include <tcomm_mpi.h>

/* init() -> True if this call initialised MPI (thread level multiple:
 * threads may run collectives on their own communicators). */
static PyObject *mpi_init(PyObject *self, PyObject *args)
{
    int init = 0, fin = 0, provided = 0;
    (void)self;
    (void)args;
    MPI_Finalized(&fin);
    if (fin) {
        PyErr_SetString(PyExc_RuntimeError,
                        "tcomm: MPI is already finalized (make the "
                        "Communicator before MPI_Finalize)");
        return NULL;
    }
    MPI_Initialized(&init);
    if (init)
        Py_RETURN_FALSE;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS) {
        PyErr_SetString(PyExc_RuntimeError, "tcomm: MPI_Init_thread failed");
        return NULL;
    }
    Py_RETURN_TRUE;
}

/* finalize(): MPI_Finalize unless it is already finalized. */
static PyObject *mpi_finalize(PyObject *self, PyObject *args)
{
    int fin = 0;
    (void)self;
    (void)args;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
    Py_RETURN_NONE;
}

static PyObject *comm_over(MPI_Comm mc)
{
    tcomm_comm_t *c = NULL;
    tcomm_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = tcomm_comm_create_mpi(mc, &c); /* collective: MPI_Comm_dup */
    Py_END_ALLOW_THREADS
    if (st != TCOMM_SUCCESS)
        return tpy_raise(st);
    return tpy_comm_new(c);
}

static PyObject *mpi_world(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return comm_over(MPI_COMM_WORLD);
}

/* from_handle(h): h is MPI._handleof(comm), an MPI_Comm as an integer
 * (a pointer in Open MPI, an int in MPICH); the cast suits either. */
static PyObject *mpi_from_handle(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t h = PyLong_AsSsize_t(arg);
    if (h == -1 && PyErr_Occurred())
        return NULL;
    MPI_Comm mc = (MPI_Comm)(intptr_t)h;
    if (mc == MPI_COMM_NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "tcomm: the mpi4py communicator is MPI.COMM_NULL");
        return NULL;
    }
    return comm_over(mc);
}

/* MPI_Get_library_version of the MPI this module runs on, to tell an
 * mpi4py over another MPI (their handles would mean nothing here). */
static PyObject *mpi_library(PyObject *self, PyObject *args)
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    (void)self;
    (void)args;
    MPI_Get_library_version(text, &len);
    return PyUnicode_DecodeLatin1(text, len, NULL);
}

PyMethodDef tpy_mpi_functions[] = {
    {"mpi_init", mpi_init, METH_NOARGS,
     "Initialise MPI if nobody has; True if this call did."},
    {"mpi_finalize", mpi_finalize, METH_NOARGS,
     "MPI_Finalize unless already finalized."},
    {"mpi_world", mpi_world, METH_NOARGS,
     "A Comm over MPI_COMM_WORLD (collective)."},
    {"mpi_from_handle", mpi_from_handle, METH_O,
     "A Comm over the MPI_Comm handle MPI._handleof(comm) (collective)."},
    {"mpi_library", mpi_library, METH_NOARGS,
     "MPI_Get_library_version() of the MPI this module runs on."},
    {NULL, NULL, 0, NULL},
};
