/* SPDX-License-Identifier: BSD-3-Clause */
/* _tcomm.Comm: one tcomm communicator and its collectives. Arguments come
 * checked from the Python layer; each call wraps the arrays (zero copy),
 * runs the C call with the GIL released and raises tcomm.Error. */
#include "_tcomm.h"

typedef struct {
    PyObject_HEAD
    tcomm_comm_t *comm;
} tpy_comm_t;

PyObject *tpy_comm_new(tcomm_comm_t *c)
{
    tpy_comm_t *self = PyObject_New(tpy_comm_t, &tpy_comm_type);
    if (!self) {
        tcomm_comm_destroy(c);
        return NULL;
    }
    self->comm = c;
    return (PyObject *)self;
}

static void comm_dealloc(tpy_comm_t *self)
{
    tcomm_comm_destroy(self->comm);
    PyObject_Free(self);
}

static tcomm_comm_t *live(tpy_comm_t *self)
{
    if (!self->comm)
        PyErr_SetString(PyExc_ValueError, "tcomm: the communicator is closed");
    return self->comm;
}

static PyObject *comm_close(tpy_comm_t *self, PyObject *args)
{
    (void)args;
    tcomm_comm_t *c = self->comm;
    self->comm = NULL;
    tcomm_status_t st = c ? tcomm_comm_destroy(c) : TCOMM_SUCCESS;
    if (st != TCOMM_SUCCESS)
        return tpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *comm_info(tpy_comm_t *self, PyObject *args)
{
    (void)args;
    tcomm_comm_info_t info;
    if (!live(self))
        return NULL;
    tcomm_status_t st = tcomm_comm_info(self->comm, &info);
    if (st != TCOMM_SUCCESS)
        return tpy_raise(st);
    return Py_BuildValue("(iis)", info.rank, info.world_size, info.backend);
}

/* The _into and _start forms: a, b are (op), (dim), (op, dim), (root),
 * (split_dim, concat_dim) by kind. */
static tcomm_status_t run_into(tcomm_comm_t *c, int kind, tcomm_tensor_t *in,
                               tcomm_tensor_t *out, int a, int b,
                               tcomm_request_t **req)
{
    switch (kind) {
    case TPY_ALL_REDUCE:
        return req ? tcomm_all_reduce_start(c, in, a, out, req)
                   : tcomm_all_reduce_into(c, in, a, out);
    case TPY_ALL_GATHER:
        return req ? tcomm_all_gather_start(c, in, a, out, req)
                   : tcomm_all_gather_into(c, in, a, out);
    case TPY_REDUCE_SCATTER:
        return req ? tcomm_reduce_scatter_start(c, in, a, b, out, req)
                   : tcomm_reduce_scatter_into(c, in, a, b, out);
    case TPY_BROADCAST:
        return req ? tcomm_broadcast_start(c, in, a, out, req)
                   : tcomm_broadcast_into(c, in, a, out);
    case TPY_ALL_TO_ALL:
        return req ? tcomm_all_to_all_start(c, in, a, b, out, req)
                   : tcomm_all_to_all_into(c, in, a, b, out);
    }
    return TCOMM_ERR_INVALID_ARG;
}

/* into(kind, x, out, dtype, a, b, async_op): out is x for in place.
 * Returns None, or a Request when async_op. */
static PyObject *comm_into(tpy_comm_t *self, PyObject *args)
{
    int kind, dtype, a, b, async_op;
    PyObject *x, *out;
    if (!PyArg_ParseTuple(args, "iOOiiip", &kind, &x, &out, &dtype, &a, &b,
                          &async_op) ||
        !live(self))
        return NULL;
    if (kind < 0 || kind > TPY_ALL_TO_ALL) {
        PyErr_SetString(PyExc_ValueError, "tcomm: bad collective number");
        return NULL;
    }
    int in_place = out == x;
    tpy_wrapped_t in, outw = {.tensor = NULL};
    if (tpy_wrap(x, dtype, in_place, &in) < 0)
        return NULL;
    if (!in_place && tpy_wrap(out, dtype, 1, &outw) < 0) {
        tpy_unwrap(&in);
        return NULL;
    }
    tcomm_tensor_t *ot = in_place ? in.tensor : outw.tensor;
    tcomm_request_t *req = NULL;
    tcomm_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = run_into(self->comm, kind, in.tensor, ot, a, b,
                  async_op ? &req : NULL);
    Py_END_ALLOW_THREADS
    if (st == TCOMM_SUCCESS && async_op)
        return tpy_request_new(req, x, &in, out, &outw);
    tpy_unwrap(&outw);
    tpy_unwrap(&in);
    if (st != TCOMM_SUCCESS)
        return tpy_raise(st);
    Py_RETURN_NONE;
}

/* sizes: a sequence of non-negative ints, n of them, into buf. */
static int parse_sizes(PyObject *seq, size_t *buf, Py_ssize_t n)
{
    PyObject *fast = PySequence_Fast(seq, "tcomm: sizes must be a sequence");
    if (!fast)
        return -1;
    int rc = 0;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "tcomm: %zd sizes, one per rank (%zd)",
                     PySequence_Fast_GET_SIZE(fast), n);
        rc = -1;
    }
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        buf[i] = PyLong_AsSize_t(PySequence_Fast_GET_ITEM(fast, i));
        if (buf[i] == (size_t)-1 && PyErr_Occurred())
            rc = -1;
    }
    Py_DECREF(fast);
    return rc;
}

/* alloc(kind, x, dtype, a, b, sizes): the allocating forms (uneven
 * results); returns (Result, shape). The result never shares x's memory:
 * where the C call returns the input itself (world size 1), a copy. */
static PyObject *comm_alloc(tpy_comm_t *self, PyObject *args)
{
    int kind, dtype, a, b;
    PyObject *x, *sizes_obj;
    if (!PyArg_ParseTuple(args, "iOiiiO", &kind, &x, &dtype, &a, &b,
                          &sizes_obj) ||
        !live(self))
        return NULL;
    tcomm_comm_info_t info;
    tcomm_comm_info(self->comm, &info);
    size_t *sizes = NULL;
    if (sizes_obj != Py_None) {
        sizes = PyMem_Malloc(sizeof(size_t) * (size_t)info.world_size);
        if (!sizes)
            return PyErr_NoMemory();
        if (parse_sizes(sizes_obj, sizes, info.world_size) < 0) {
            PyMem_Free(sizes);
            return NULL;
        }
    }
    tpy_wrapped_t in;
    if (tpy_wrap(x, dtype, 0, &in) < 0) {
        PyMem_Free(sizes);
        return NULL;
    }
    tcomm_tensor_t *out = NULL;
    tcomm_comm_t *c = self->comm;
    tcomm_status_t st;
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case TPY_ALL_GATHER:
        st = tcomm_all_gather(c, in.tensor, a, &out);
        break;
    case TPY_REDUCE_SCATTER:
        st = tcomm_reduce_scatter(c, in.tensor, a, b, &out);
        break;
    case TPY_ALL_TO_ALL:
        st = tcomm_all_to_all(c, in.tensor, a, b, &out);
        break;
    case TPY_ALL_TO_ALL_V:
        st = tcomm_all_to_all_v(c, in.tensor, a, sizes, b, &out);
        break;
    case TPY_REDUCE_SCATTER_V:
        st = tcomm_reduce_scatter_v(c, in.tensor, a, b, sizes, &out);
        break;
    default:
        st = TCOMM_ERR_INVALID_ARG;
    }
    if (st == TCOMM_SUCCESS && out == in.tensor) {
        size_t shape[TCOMM_MAX_DIMS];
        for (int i = 0; i < in.view.ndim; i++)
            shape[i] = (size_t)in.view.shape[i];
        tcomm_tensor_release(out);
        out = NULL;
        st = tcomm_tensor_from_host(tpy_graph, dtype, in.view.buf,
                                    in.view.ndim, shape, &out);
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(sizes);
    tpy_unwrap(&in);
    if (st != TCOMM_SUCCESS)
        return tpy_raise(st);
    int nd = tcomm_tensor_ndim(out);
    PyObject *shape = PyTuple_New(nd);
    for (int i = 0; shape && i < nd; i++)
        PyTuple_SET_ITEM(shape, i,
                         PyLong_FromSize_t(tcomm_tensor_dim(out, i)));
    PyObject *res = tpy_result_new(out);
    if (!shape || !res) {
        Py_XDECREF(shape);
        Py_XDECREF(res);
        return NULL;
    }
    return Py_BuildValue("(NN)", res, shape);
}

static PyObject *comm_barrier(tpy_comm_t *self, PyObject *args)
{
    int async_op;
    if (!PyArg_ParseTuple(args, "p", &async_op) || !live(self))
        return NULL;
    tcomm_request_t *req = NULL;
    tcomm_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = async_op ? tcomm_barrier_start(self->comm, &req)
                  : tcomm_barrier(self->comm);
    Py_END_ALLOW_THREADS
    if (st != TCOMM_SUCCESS)
        return tpy_raise(st);
    if (async_op)
        return tpy_request_new(req, NULL, NULL, NULL, NULL);
    Py_RETURN_NONE;
}

/* reject(kind): take part in the collective with an argument tcomm
 * refuses, so that after a Python-level mistake on this rank the other
 * ranks fail too (TCOMM_ERR_MISMATCH) instead of waiting for it. */
static PyObject *comm_reject(tpy_comm_t *self, PyObject *args)
{
    int kind;
    if (!PyArg_ParseTuple(args, "i", &kind) || !live(self))
        return NULL;
    tcomm_comm_t *c = self->comm;
    tcomm_tensor_t *t = NULL, *out = NULL;
    size_t one = 1;
    float v = 0;
    if (tcomm_tensor_from_host(tpy_graph, TCOMM_F32, &v, 1, &one, &t))
        return tpy_raise(TCOMM_ERR_NO_MEMORY);
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case TPY_ALL_REDUCE:
        tcomm_all_reduce(c, t, (tcomm_op_t)-1, &out);
        break;
    case TPY_ALL_GATHER:
        tcomm_all_gather(c, t, -1, &out);
        break;
    case TPY_REDUCE_SCATTER:
        tcomm_reduce_scatter(c, t, (tcomm_op_t)-1, 0, &out);
        break;
    case TPY_BROADCAST:
        tcomm_broadcast(c, t, -1, &out);
        break;
    case TPY_ALL_TO_ALL:
        tcomm_all_to_all(c, t, -1, 0, &out);
        break;
    case TPY_ALL_TO_ALL_V:
        tcomm_all_to_all_v(c, t, 0, NULL, 0, &out);
        break;
    case TPY_REDUCE_SCATTER_V:
        tcomm_reduce_scatter_v(c, t, TCOMM_SUM, 0, NULL, &out);
        break;
    }
    Py_END_ALLOW_THREADS
    tcomm_tensor_release(out);
    tcomm_tensor_release(t);
    Py_RETURN_NONE;
}

static PyMethodDef comm_methods[] = {
    {"info", (PyCFunction)comm_info, METH_NOARGS,
     "(rank, world_size, backend)."},
    {"into", (PyCFunction)comm_into, METH_VARARGS,
     "into(kind, x, out, dtype, a, b, async_op): an _into/_start form."},
    {"alloc", (PyCFunction)comm_alloc, METH_VARARGS,
     "alloc(kind, x, dtype, a, b, sizes) -> (Result, shape)."},
    {"barrier_", (PyCFunction)comm_barrier, METH_VARARGS,
     "barrier_(async_op): tcomm_barrier or tcomm_barrier_start."},
    {"reject", (PyCFunction)comm_reject, METH_VARARGS,
     "reject(kind): fail the collective on every rank."},
    {"close", (PyCFunction)comm_close, METH_NOARGS,
     "Destroy the communicator now (also done when it is collected)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject tpy_comm_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tcomm._tcomm.Comm",
    .tp_basicsize = sizeof(tpy_comm_t),
    .tp_dealloc = (destructor)comm_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = comm_methods,
    .tp_doc = "A tcomm communicator (the C handle).",
};

static PyObject *local_group(PyObject *self, PyObject *arg)
{
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 1 || n > 4096) {
        PyErr_Format(PyExc_ValueError, "tcomm: local(%ld): use 1..4096 ranks",
                     n);
        return NULL;
    }
    tcomm_comm_t **comms = PyMem_Calloc((size_t)n, sizeof *comms);
    if (!comms)
        return PyErr_NoMemory();
    tcomm_status_t st = tcomm_comm_create_local((int)n, comms);
    if (st != TCOMM_SUCCESS) {
        PyMem_Free(comms);
        return tpy_raise(st);
    }
    PyObject *list = PyList_New(n);
    for (long i = 0; i < n; i++) {
        /* after a failure the rest are destroyed, the list with them */
        PyObject *c = list ? tpy_comm_new(comms[i]) : NULL;
        if (c)
            PyList_SET_ITEM(list, i, c);
        else if (list)
            Py_CLEAR(list);
        else
            tcomm_comm_destroy(comms[i]);
    }
    PyMem_Free(comms);
    return list;
}

static PyObject *identity(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    tcomm_comm_t *c = NULL;
    tcomm_status_t st = tcomm_comm_create_identity(&c);
    return st == TCOMM_SUCCESS ? tpy_comm_new(c) : tpy_raise(st);
}

PyMethodDef tpy_comm_functions[] = {
    {"local", local_group, METH_O, "n Comms of the local backend."},
    {"identity", identity, METH_NOARGS, "A Comm of world size 1."},
    {NULL, NULL, 0, NULL},
};
