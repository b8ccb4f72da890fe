/* SPDX-License-Identifier: BSD-3-Clause */
/* Module init, tcomm.Error, buffer wrapping and Result, the buffer that
 * hands a tensor tcomm allocated to numpy without a copy. */
#include "_tcomm.h"

PyObject *tpy_error;
tcomm_graph_t *tpy_graph;


static const char *const status_names[] = {
    "TCOMM_SUCCESS",          "TCOMM_ERR_INVALID_ARG",
    "TCOMM_ERR_SHAPE",        "TCOMM_ERR_DTYPE",
    "TCOMM_ERR_GRAPH_MISMATCH", "TCOMM_ERR_MISMATCH",
    "TCOMM_ERR_TIMEOUT",      "TCOMM_ERR_UNSUPPORTED",
    "TCOMM_ERR_NO_MEMORY",    "TCOMM_ERR_MPI",
    "TCOMM_ERR_CUDA",         "TCOMM_ERR_COMM_FAILED",
    "TCOMM_ERR_INTERNAL",
};

PyObject *tpy_raise(tcomm_status_t status)
{
    return tpy_raise_text(status, tcomm_last_error());
}

PyObject *tpy_raise_text(tcomm_status_t status, const char *text)
{
    int i = -(int)status;
    const char *name = i >= 0 && i < (int)(sizeof status_names /
                                           sizeof *status_names)
                           ? status_names[i]
                           : "TCOMM_ERR_INTERNAL";
    if (!text || !*text)
        text = tcomm_status_string(status);
    PyObject *e = PyObject_CallFunction(tpy_error, "s", text);
    if (!e)
        return NULL;
    PyObject *s = PyUnicode_FromString(name);
    if (s && PyObject_SetAttrString(e, "status", s) == 0)
        PyErr_SetObject(tpy_error, e);
    Py_XDECREF(s);
    Py_DECREF(e);
    return NULL;
}

int tpy_wrap(PyObject *obj, int dtype, int writable, tpy_wrapped_t *w)
{
    w->tensor = NULL;
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &w->view, flags) < 0)
        return -1;
    size_t shape[TCOMM_MAX_DIMS];
    int nd = w->view.ndim;
    if (nd > TCOMM_MAX_DIMS) {
        PyBuffer_Release(&w->view);
        PyErr_Format(PyExc_ValueError, "tcomm: %d dimensions, at most %d",
                     nd, TCOMM_MAX_DIMS);
        return -1;
    }
    for (int i = 0; i < nd; i++)
        shape[i] = (size_t)w->view.shape[i];
    tcomm_status_t st = tcomm_tensor_wrap(tpy_graph, (tcomm_dtype_t)dtype,
                                          w->view.buf, nd, shape, &w->tensor);
    if (st != TCOMM_SUCCESS) {
        PyBuffer_Release(&w->view);
        tpy_raise(st);
        return -1;
    }
    return 0;
}

void tpy_unwrap(tpy_wrapped_t *w)
{
    if (!w->tensor)
        return;
    tcomm_tensor_release(w->tensor);
    w->tensor = NULL;
    PyBuffer_Release(&w->view);
}

/* Result: a writable byte buffer over a tensor tcomm allocated; numpy's
 * frombuffer keeps it (and so the tensor) alive as the array's base. */
typedef struct {
    PyObject_HEAD
    tcomm_tensor_t *tensor;
    Py_ssize_t nbytes;
} tpy_result_t;

PyObject *tpy_result_new(tcomm_tensor_t *tensor)
{
    tpy_result_t *r = PyObject_New(tpy_result_t, &tpy_result_type);
    if (!r) {
        tcomm_tensor_release(tensor);
        return NULL;
    }
    r->tensor = tensor;
    r->nbytes = (Py_ssize_t)(tcomm_tensor_numel(tensor) *
                             tcomm_dtype_size(tcomm_tensor_dtype(tensor)));
    return (PyObject *)r;
}

static void result_dealloc(tpy_result_t *r)
{
    tcomm_tensor_release(r->tensor);
    PyObject_Free(r);
}

static int result_getbuffer(tpy_result_t *r, Py_buffer *view, int flags)
{
    return PyBuffer_FillInfo(view, (PyObject *)r,
                             tcomm_tensor_data(r->tensor), r->nbytes, 0,
                             flags);
}

static PyBufferProcs result_as_buffer = {
    .bf_getbuffer = (getbufferproc)result_getbuffer,
};

PyTypeObject tpy_result_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tcomm._tcomm.Result",
    .tp_basicsize = sizeof(tpy_result_t),
    .tp_dealloc = (destructor)result_dealloc,
    .tp_as_buffer = &result_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A result tensor's memory, the base of its numpy array.",
};

static PyObject *version(PyObject *self, PyObject *args)
{
    int major, minor, patch;
    (void)self;
    (void)args;
    tcomm_get_version(&major, &minor, &patch);
    return Py_BuildValue("(iii)", major, minor, patch);
}

/* empty(nbytes): a zero-filled Result of tcomm's own (tcomm_tensor_empty:
 * host tensors live in the shared arena the node's peers map, which the
 * single-copy paths need; numpy's memory is foreign to them). */
static PyObject *empty(PyObject *self, PyObject *arg)
{
    (void)self;
    size_t n = PyLong_AsSize_t(arg);
    if (n == (size_t)-1 && PyErr_Occurred())
        return NULL;
    tcomm_tensor_t *t = NULL;
    tcomm_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = tcomm_tensor_empty(tpy_graph, TCOMM_U8, 1, &n, &t);
    Py_END_ALLOW_THREADS
    return st == TCOMM_SUCCESS ? tpy_result_new(t) : tpy_raise(st);
}

static PyMethodDef module_methods[] = {
    {"version", version, METH_NOARGS, "libtcomm's (major, minor, patch)."},
    {"empty", empty, METH_O, "empty(nbytes): zeroed memory of tcomm's."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_tcomm",
    .m_doc = "tcomm's C API for the tcomm package (use tcomm, not this).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__tcomm(void)
{
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (!tpy_graph && tcomm_graph_create(host, &tpy_graph) != TCOMM_SUCCESS)
        return tpy_raise(TCOMM_ERR_INTERNAL);
    if (PyType_Ready(&tpy_comm_type) < 0 ||
        PyType_Ready(&tpy_request_type) < 0 ||
        PyType_Ready(&tpy_result_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    tpy_error = PyErr_NewExceptionWithDoc(
        "tcomm.Error",
        "A failed collective: .status is the C status name (e.g. "
        "'TCOMM_ERR_MISMATCH'), the message tcomm's sentence.",
        PyExc_RuntimeError, NULL);
    if (!tpy_error || PyModule_AddObjectRef(m, "Error", tpy_error) ||
        PyModule_AddObjectRef(m, "Comm", (PyObject *)&tpy_comm_type) ||
        PyModule_AddObjectRef(m, "Request", (PyObject *)&tpy_request_type) ||
        PyModule_AddFunctions(m, tpy_comm_functions) ||
        PyModule_AddFunctions(m, tpy_mpi_functions)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
