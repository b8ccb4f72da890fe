/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives of the Fortran module (tcomm_*_start,
 * tcomm_wait, tcomm_test, tcomm_wait_all) over the C _start calls.
 * Lifetimes: the tensors that wrap the Fortran arrays are released as
 * soon as the start returns, since the C request holds its own
 * references (src/frontend/requests.c, hold()); the arrays themselves
 * must stay in place until the wait (the module's dummies are
 * `asynchronous`). A non-contiguous section goes through a contiguous
 * temporary, as in the blocking calls, which this request keeps: the
 * sendbuf copy is freed, and the recvbuf copy written back through a
 * copy of its descriptor (the compiler's dies with the call), at the
 * wait. As in the blocking calls, a rank whose Fortran arguments fail
 * here still makes the C call (with a NULL input), so that the peers'
 * requests complete with an error instead of waiting. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_f.h"

/* What `type(tcomm_request_t)` points to. */
typedef struct tcomm_f_req {
    tcomm_request_t *req;
    const char *fn;       /* the start call, to name in the wait's text */
    void *send_tmp;       /* sendbuf's contiguous copy, or NULL */
    void *recv_tmp;       /* recvbuf's (or buf's) copy, or NULL */
    CFI_CDESC_T(TCOMM_MAX_DIMS) recv_desc; /* where recv_tmp goes back */
} tcomm_f_req_t;

/* The C call of a start, made whatever the Fortran checks found. */
typedef enum { K_REDUCE, K_GATHER, K_SCATTER, K_BCAST, K_ALL_TO_ALL } kind_t;
typedef struct {
    kind_t kind;
    int op, dim, dim2, root;
} args_t;

static tcomm_status_t c_start(tcomm_comm_t *comm, const args_t *a,
                              const tcomm_tensor_t *in, tcomm_tensor_t *out,
                              tcomm_request_t **req)
{
    switch (a->kind) {
    case K_REDUCE:
        return tcomm_all_reduce_start(comm, in, (tcomm_op_t)a->op, out, req);
    case K_GATHER:
        return tcomm_all_gather_start(comm, in, a->dim, out, req);
    case K_SCATTER:
        return tcomm_reduce_scatter_start(comm, in, (tcomm_op_t)a->op, a->dim,
                                          out, req);
    case K_BCAST:
        return tcomm_broadcast_start(comm, in, a->root, out, req);
    default:
        return tcomm_all_to_all_start(comm, in, a->dim, a->dim2, out, req);
    }
}

/* Views released, the request kept in *h on success (temporaries and
 * all), or everything freed and the status in Fortran terms. */
static int finish_start(int st, const tcomm_f_pre_t *pre, const char *fn,
                        tcomm_f_req_t *fr, tcomm_f_view_t *s,
                        tcomm_f_view_t *r, void **h)
{
    tcomm_tensor_release(s->tensor); /* the request holds its own */
    if (r != s)
        tcomm_tensor_release(r->tensor);
    if (st != TCOMM_SUCCESS) {
        free(s->tmp);
        if (r != s)
            free(r->tmp);
        free(fr);
        return tcomm_f_finish(st, pre, fn);
    }
    fr->fn = fn;
    fr->send_tmp = r != s ? s->tmp : NULL;
    fr->recv_tmp = r->tmp;
    if (r->tmp)
        memcpy(&fr->recv_desc, r->desc,
               sizeof(CFI_cdesc_t) + (size_t)r->rank * sizeof(CFI_dim_t));
    *h = fr;
    return TCOMM_SUCCESS;
}

/* Open the views (recv NULL: in place on send) and the request; on
 * failure join the collective with a NULL input. */
static int open_start(tcomm_f_comm_t *fc, const char *fn, const args_t *a,
                      CFI_cdesc_t *send, CFI_cdesc_t *recv,
                      tcomm_f_view_t *s, tcomm_f_view_t *r,
                      tcomm_f_req_t **fr)
{
    tcomm_request_t *none = NULL;
    *fr = calloc(1, sizeof **fr);
    int st = *fr ? tcomm_f_view_open(fc, fn, recv ? "sendbuf" : "buf", send,
                                     1, s)
                 : tcomm_f_fail(TCOMM_ERR_NO_MEMORY,
                                "%s: out of host memory", fn);
    if (st == TCOMM_SUCCESS && recv) {
        st = tcomm_f_view_open(fc, fn, "recvbuf", recv, 0, r);
        if (st != TCOMM_SUCCESS)
            tcomm_f_view_close(s, 0);
    }
    if (st != TCOMM_SUCCESS) {
        c_start(fc->comm, a, NULL, NULL, &none); /* the peers fail too */
        if (none) /* cannot be: the start refuses a NULL input */
            tcomm_wait(&none);
        free(*fr);
        *fr = NULL;
    }
    return st;
}

/* recv NULL: in place on send. */
static int all_reduce_start(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                            CFI_cdesc_t *recv, int op, void **h)
{
    static const char fn[] = "tcomm_all_reduce_start";
    tcomm_f_clear();
    *h = NULL;
    if (!fc)
        return tcomm_f_no_comm(fn);
    args_t a = {.kind = K_REDUCE, .op = op};
    tcomm_f_view_t s, rv, *r = recv ? &rv : &s;
    tcomm_f_req_t *fr;
    int st = open_start(fc, fn, &a, send, recv, &s, &rv, &fr);
    if (st != TCOMM_SUCCESS)
        return st;
    tcomm_f_pre_t pre = {0};
    tcomm_f_check_op(&pre, fn, recv ? "sendbuf" : "buf", &s, op);
    if (!pre.status && recv)
        tcomm_f_check_recv(&pre, fn, &s, r, s.rank, s.ext, 0, "");
    st = c_start(fc->comm, &a, s.tensor, r->tensor, &fr->req);
    return finish_start(st, &pre, fn, fr, &s, r, h);
}

int tcomm_f_all_reduce_start(tcomm_f_comm_t *fc, CFI_cdesc_t *buf, int op,
                             void **h)
{
    return all_reduce_start(fc, buf, NULL, op, h);
}

int tcomm_f_all_reduce_start_sr(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                                CFI_cdesc_t *recv, int op, void **h)
{
    return all_reduce_start(fc, send, recv, op, h);
}

int tcomm_f_broadcast_start(tcomm_f_comm_t *fc, CFI_cdesc_t *buf, int root,
                            void **h)
{
    static const char fn[] = "tcomm_broadcast_start";
    tcomm_f_clear();
    *h = NULL;
    if (!fc)
        return tcomm_f_no_comm(fn);
    args_t a = {.kind = K_BCAST, .root = root};
    tcomm_f_view_t s;
    tcomm_f_req_t *fr;
    int st = open_start(fc, fn, &a, buf, NULL, &s, NULL, &fr);
    if (st != TCOMM_SUCCESS)
        return st;
    st = c_start(fc->comm, &a, s.tensor, s.tensor, &fr->req);
    return finish_start(st, NULL, fn, fr, &s, &s, h);
}

/* all_gather and reduce_scatter along Fortran dim @p dim: the same
 * steps, their own local rules. */
static int dim_start(tcomm_f_comm_t *fc, const char *fn, kind_t kind,
                     CFI_cdesc_t *send, CFI_cdesc_t *recv, int op, int dim,
                     void **h)
{
    tcomm_f_clear();
    *h = NULL;
    if (!fc)
        return tcomm_f_no_comm(fn);
    args_t a = {.kind = kind, .op = op, .dim = -1};
    tcomm_f_view_t s, r;
    tcomm_f_req_t *fr;
    int st = open_start(fc, fn, &a, send, recv, &s, &r, &fr);
    if (st != TCOMM_SUCCESS)
        return st;
    tcomm_f_pre_t pre = {0};
    if (kind == K_GATHER)
        tcomm_f_check_gather(&pre, fn, &s, &r, dim, fc->world_size);
    else
        tcomm_f_check_scatter(&pre, fn, &s, &r, op, dim, fc->world_size);
    a.dim = tcomm_f_c_dim(s.rank, dim);
    st = c_start(fc->comm, &a, s.tensor, r.tensor, &fr->req);
    return finish_start(st, &pre, fn, fr, &s, &r, h);
}

int tcomm_f_all_gather_start(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                             CFI_cdesc_t *recv, int dim, void **h)
{
    return dim_start(fc, "tcomm_all_gather_start", K_GATHER, send, recv, 0, dim,
                     h);
}

int tcomm_f_reduce_scatter_start(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                                 CFI_cdesc_t *recv, int op, int dim, void **h)
{
    return dim_start(fc, "tcomm_reduce_scatter_start", K_SCATTER, send, recv,
                     op, dim, h);
}

int tcomm_f_all_to_all_start(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                             CFI_cdesc_t *recv, int split, int concat,
                             void **h)
{
    static const char fn[] = "tcomm_all_to_all_start";
    tcomm_f_clear();
    *h = NULL;
    if (!fc)
        return tcomm_f_no_comm(fn);
    args_t a = {.kind = K_ALL_TO_ALL, .dim = -1, .dim2 = -1};
    tcomm_f_view_t s, r;
    tcomm_f_req_t *fr;
    int st = open_start(fc, fn, &a, send, recv, &s, &r, &fr);
    if (st != TCOMM_SUCCESS)
        return st;
    tcomm_f_pre_t pre = {0};
    size_t n = (size_t)fc->world_size;
    tcomm_f_check_dim(&pre, fn, "split_dim", &s, split);
    tcomm_f_check_dim(&pre, fn, "concat_dim", &s, concat);
    if (!pre.status && s.rank == 0)
        tcomm_f_pre_fail(&pre, TCOMM_ERR_SHAPE,
                         "%s: sendbuf is a scalar (pass an array of rank 1 "
                         "or more)",
                         fn);
    if (!pre.status && s.ext[split - 1] % n)
        tcomm_f_pre_fail(&pre, TCOMM_ERR_SHAPE,
                         "%s: extent %zu of sendbuf along split_dim %d is "
                         "not divisible by the world size %zu (make it a "
                         "multiple of %zu)",
                         fn, s.ext[split - 1], split, n, n);
    if (!pre.status) {
        size_t want[TCOMM_MAX_DIMS];
        memcpy(want, s.ext, sizeof want);
        want[split - 1] /= n;
        if (split != concat)
            want[concat - 1] *= n;
        tcomm_f_check_recv(&pre, fn, &s, &r, s.rank, want, 0, "");
    }
    a.dim = tcomm_f_c_dim(s.rank, split);
    a.dim2 = tcomm_f_c_dim(s.rank, concat);
    st = c_start(fc->comm, &a, s.tensor, r.tensor, &fr->req);
    return finish_start(st, &pre, fn, fr, &s, &r, h);
}

int tcomm_f_barrier_start(tcomm_f_comm_t *fc, void **h)
{
    static const char fn[] = "tcomm_barrier_start";
    tcomm_f_clear();
    *h = NULL;
    if (!fc)
        return tcomm_f_no_comm(fn);
    tcomm_f_req_t *fr = calloc(1, sizeof *fr);
    if (!fr) {
        tcomm_request_t *none = NULL;
        if (tcomm_barrier_start(fc->comm, &none) == TCOMM_SUCCESS)
            tcomm_wait(&none); /* the peers must not wait for us */
        return tcomm_f_fail(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                            fn);
    }
    int st = tcomm_barrier_start(fc->comm, &fr->req);
    if (st != TCOMM_SUCCESS) {
        free(fr);
        return tcomm_f_from_c(st, fn, 0);
    }
    fr->fn = fn;
    *h = fr;
    return TCOMM_SUCCESS;
}

/* The request's end, once the C request completed with @p st: recvbuf
 * from its temporary, everything freed, *h = NULL. */
static int complete(tcomm_f_req_t **h, int st)
{
    tcomm_f_req_t *fr = *h;
    *h = NULL;
    if (st == TCOMM_SUCCESS && fr->recv_tmp)
        tcomm_f_view_unpack((const CFI_cdesc_t *)&fr->recv_desc,
                            fr->recv_tmp);
    if (st != TCOMM_SUCCESS)
        tcomm_f_from_c(st, fr->fn, 1);
    free(fr->send_tmp);
    free(fr->recv_tmp);
    free(fr);
    return st;
}

static int no_request(const char *fn)
{
    return tcomm_f_fail(TCOMM_ERR_INVALID_ARG,
                        "%s: req is not a pending request (pass one that a "
                        "tcomm_*_start call returned; a request completes "
                        "only once)",
                        fn);
}

int tcomm_f_wait(tcomm_f_req_t **h)
{
    tcomm_f_clear();
    if (!*h)
        return no_request("tcomm_wait");
    return complete(h, tcomm_wait(&(*h)->req));
}

int tcomm_f_test(tcomm_f_req_t **h, int *done)
{
    tcomm_f_clear();
    *done = 0;
    if (!*h)
        return no_request("tcomm_test");
    int d = 0, st = tcomm_test(&(*h)->req, &d);
    if (!d)
        return st ? tcomm_f_from_c(st, "tcomm_test", 0) : TCOMM_SUCCESS;
    *done = 1;
    return complete(h, st);
}

/* Every request of hs[0..n-1] (null ones skipped) completed; the status
 * and text of the first that failed, in array order. */
int tcomm_f_wait_all(tcomm_f_req_t **hs, int n)
{
    char first_text[1024] = "";
    int first = TCOMM_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (!hs[i])
            continue;
        int st = tcomm_f_wait(&hs[i]);
        if (st != TCOMM_SUCCESS && first == TCOMM_SUCCESS) {
            first = st;
            strncpy(first_text, tcomm_f_text(), sizeof first_text - 1);
        }
    }
    tcomm_f_clear();
    return first ? tcomm_f_fail(first, "%s", first_text) : TCOMM_SUCCESS;
}
