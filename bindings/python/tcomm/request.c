/* SPDX-License-Identifier: BSD-3-Clause */
/* _tcomm.Request: a nonblocking collective in flight. It holds the
 * arrays and their buffer views until the collective completes, so
 * neither can be freed or resized under it; collected before it
 * completes, it waits. */
#include "_tcomm.h"

typedef struct {
    PyObject_HEAD
    tcomm_request_t *req;
    PyObject *x, *out;      /* owned until complete */
    tpy_wrapped_t in, outw; /* wraps of x and out (outw unused in place) */
    tcomm_status_t status;  /* the collective's, once complete */
    char message[512];      /* tcomm's sentence for a failure */
} tpy_request_t;

PyObject *tpy_request_new(tcomm_request_t *req, PyObject *x,
                          tpy_wrapped_t *in, PyObject *out,
                          tpy_wrapped_t *outw)
{
    tpy_request_t *r = PyObject_New(tpy_request_t, &tpy_request_type);
    if (!r) {
        /* cannot hold the buffers: complete the collective here */
        Py_BEGIN_ALLOW_THREADS
        tcomm_wait(&req);
        Py_END_ALLOW_THREADS
        if (in)
            tpy_unwrap(in);
        if (outw)
            tpy_unwrap(outw);
        return NULL;
    }
    r->req = req;
    r->status = TCOMM_SUCCESS;
    r->message[0] = '\0';
    r->x = x;
    r->out = out;
    Py_XINCREF(x);
    Py_XINCREF(out);
    r->in.tensor = NULL;
    r->outw.tensor = NULL;
    if (in)
        r->in = *in;
    if (outw)
        r->outw = *outw;
    return (PyObject *)r;
}

/* After completion: let go of the buffers and the arrays. */
static void finish(tpy_request_t *r, tcomm_status_t st)
{
    r->status = st;
    if (st != TCOMM_SUCCESS)
        snprintf(r->message, sizeof r->message, "%s", tcomm_last_error());
    tpy_unwrap(&r->outw);
    tpy_unwrap(&r->in);
    Py_CLEAR(r->x);
}

/* The result after completion: out (None for a barrier), or raise. */
static PyObject *outcome(tpy_request_t *r)
{
    if (r->status != TCOMM_SUCCESS)
        return tpy_raise_text(r->status, r->message);
    PyObject *out = r->out ? r->out : Py_None;
    Py_INCREF(out);
    return out;
}

static PyObject *request_wait(tpy_request_t *r, PyObject *args)
{
    (void)args;
    if (r->req) {
        tcomm_status_t st;
        Py_BEGIN_ALLOW_THREADS
        st = tcomm_wait(&r->req);
        Py_END_ALLOW_THREADS
        finish(r, st);
    }
    return outcome(r);
}

static PyObject *request_test(tpy_request_t *r, PyObject *args)
{
    (void)args;
    if (r->req) {
        int done = 0;
        tcomm_status_t st = tcomm_test(&r->req, &done);
        if (!done && st == TCOMM_SUCCESS)
            Py_RETURN_FALSE;
        finish(r, st);
    }
    PyObject *o = outcome(r);
    if (!o)
        return NULL;
    Py_DECREF(o);
    Py_RETURN_TRUE;
}

static void request_dealloc(tpy_request_t *r)
{
    if (r->req) {
        Py_BEGIN_ALLOW_THREADS
        tcomm_wait(&r->req);
        Py_END_ALLOW_THREADS
        finish(r, TCOMM_SUCCESS);
    }
    Py_XDECREF(r->out);
    PyObject_Free(r);
}

static PyMethodDef request_methods[] = {
    {"wait", (PyCFunction)request_wait, METH_NOARGS,
     "Block until the collective completes; return its result array "
     "(None for a barrier) or raise tcomm.Error. Again after completion: "
     "the same outcome."},
    {"test", (PyCFunction)request_test, METH_NOARGS,
     "True if the collective has completed (raising tcomm.Error if it "
     "failed), False while it runs."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject tpy_request_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tcomm.Request",
    .tp_basicsize = sizeof(tpy_request_t),
    .tp_dealloc = (destructor)request_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = request_methods,
    .tp_doc = "A nonblocking collective (async_op=True): wait(), test(). "
              "It keeps its arrays alive until complete.",
};
