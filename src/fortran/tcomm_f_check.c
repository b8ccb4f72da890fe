/* SPDX-License-Identifier: BSD-3-Clause */
/* The local rules of the Fortran collectives, checked before the C call
 * so that a rank's own error reads in Fortran terms (dims 1-based, shapes
 * column-major), and the status and text a call ends with. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tcomm_f.h"

void tcomm_f_pre_fail(tcomm_f_pre_t *p, int status, const char *fmt, ...)
{
    if (p->status)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
    p->status = status;
}

int tcomm_f_no_comm(const char *fn)
{
    return tcomm_f_fail(TCOMM_ERR_INVALID_ARG,
                        "%s: comm is not a tcomm communicator (create it "
                        "with tcomm_comm_create_mpi)",
                        fn);
}

static int is_int(tcomm_dtype_t dt)
{
    return dt == TCOMM_I8 || dt == TCOMM_I32 || dt == TCOMM_I64;
}

int tcomm_f_c_dim(int rank, int dim)
{
    int r = rank > 0 ? rank : 1;
    return dim >= 1 && dim <= r ? r - dim : -1;
}

void tcomm_f_check_op(tcomm_f_pre_t *p, const char *fn, const char *arg,
                      const tcomm_f_view_t *v, int op)
{
    if (op == TCOMM_AVG && is_int(v->dtype))
        tcomm_f_pre_fail(p, TCOMM_ERR_DTYPE,
                         "%s: TCOMM_AVG needs a real array but %s is %s "
                         "(use TCOMM_SUM and divide, or a real array)",
                         fn, arg, tcomm_f_type_name(v->dtype));
    else if (op < TCOMM_SUM || op > TCOMM_AVG)
        p->status = -1000; /* the C text says it well: keep it */
}

void tcomm_f_check_dim(tcomm_f_pre_t *p, const char *fn, const char *name,
                       const tcomm_f_view_t *s, int dim)
{
    int r = s->rank > 0 ? s->rank : 1;
    if (dim < 1 || dim > r)
        tcomm_f_pre_fail(p, TCOMM_ERR_INVALID_ARG,
                         "%s: %s %d is out of range for %s sendbuf (use "
                         "1..%d)",
                         fn, name, dim, s->rank ? "this" : "a scalar", r);
}

void tcomm_f_check_recv(tcomm_f_pre_t *p, const char *fn,
                        const tcomm_f_view_t *s, const tcomm_f_view_t *r,
                        int rank, const size_t *want, int star,
                        const char *star_note)
{
    if (r->dtype != s->dtype)
        tcomm_f_pre_fail(p, TCOMM_ERR_DTYPE,
                         "%s: recvbuf is %s but sendbuf is %s (use one "
                         "type)",
                         fn, tcomm_f_type_name(r->dtype),
                         tcomm_f_type_name(s->dtype));
    int ok = r->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = i == star - 1 || r->ext[i] == want[i];
    if (ok)
        return;
    char got[128], exp[128];
    tcomm_f_shape_text(r->rank, r->ext, got, sizeof got);
    tcomm_f_shape_text(rank, want, exp, sizeof exp);
    if (star > 0) { /* "(2, 3)" -> "(2, *)" for star 2 */
        char *c = exp;
        for (int i = 1; i < star; i++)
            c = strchr(c, ',') + 1;
        c += strspn(c, "( ");
        size_t digits = strspn(c, "0123456789");
        memmove(c + 1, c + digits, strlen(c + digits) + 1);
        *c = '*';
    }
    tcomm_f_pre_fail(p, TCOMM_ERR_SHAPE,
                     "%s: recvbuf has shape %s but the result has shape "
                     "%s%s (allocate recvbuf with that shape)",
                     fn, got, exp, star > 0 ? star_note : "");
}

/* recvbuf against the result's shape; gather: its extent along dim is
 * only known after the exchange (printed as '*', checked by tcomm). */
static void check_result(tcomm_f_pre_t *p, const char *fn,
                         const tcomm_f_view_t *s, const tcomm_f_view_t *r,
                         int dim, int n, int gather)
{
    int rank = gather && s->rank == 0 ? 1 : s->rank;
    size_t want[TCOMM_MAX_DIMS];
    for (int i = 0; i < rank; i++)
        want[i] = s->rank ? s->ext[i] : 1;
    if (!gather && rank > 0)
        want[dim - 1] /= (size_t)n;
    tcomm_f_check_recv(p, fn, s, r, rank, want, gather ? dim : 0,
                       " (*: the sum of the ranks' extents along dim)");
}

void tcomm_f_check_gather(tcomm_f_pre_t *p, const char *fn,
                          const tcomm_f_view_t *s, const tcomm_f_view_t *r,
                          int dim, int n)
{
    tcomm_f_check_dim(p, fn, "dim", s, dim);
    if (!p->status)
        check_result(p, fn, s, r, dim, n, 1);
}

void tcomm_f_check_scatter(tcomm_f_pre_t *p, const char *fn,
                           const tcomm_f_view_t *s, const tcomm_f_view_t *r,
                           int op, int dim, int n)
{
    tcomm_f_check_op(p, fn, "sendbuf", s, op);
    tcomm_f_check_dim(p, fn, "dim", s, dim);
    size_t extent = s->rank ? (p->status ? 0 : s->ext[dim - 1]) : 1;
    if (!p->status && extent % (size_t)n)
        tcomm_f_pre_fail(p, TCOMM_ERR_SHAPE,
                         "%s: extent %zu of sendbuf along dim %d is not "
                         "divisible by the world size %d (make it a "
                         "multiple of %d)",
                         fn, extent, dim, n, n);
    if (!p->status)
        check_result(p, fn, s, r, dim, n, 0);
}

int tcomm_f_finish(int st, const tcomm_f_pre_t *p, const char *fn)
{
    if (st == TCOMM_SUCCESS)
        return st;
    if (p && p->status == st)
        return tcomm_f_fail(st, "%s", p->text);
    return tcomm_f_from_c(st, fn, 1);
}
