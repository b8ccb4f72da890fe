/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives of the Fortran module, over the `_into` forms of the C
 * API. Fortran dim k of a rank-r array is C dim r - k. Every call reaches
 * the C collective, even after a local error (with a NULL input then),
 * so that the ranks' agreement sees it and nobody waits. The local rules
 * are checked here first, in the C front end's order, so that a rank's
 * own error reads in Fortran terms (dims 1-based, shapes column-major);
 * the status is always the C front end's. */
#include <stdio.h>
#include <string.h>

#include "tcomm_f.h"

/* The buffer of an in-place call as a tensor (its own status names the
 * argument). */
static int in_place(tcomm_f_comm_t *fc, const char *fn, CFI_cdesc_t *buf,
                    tcomm_f_view_t *v)
{
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    return tcomm_f_view_open(fc, fn, "buf", buf, 1, v);
}

int tcomm_f_all_reduce(tcomm_f_comm_t *fc, CFI_cdesc_t *buf, int op)
{
    static const char fn[] = "tcomm_all_reduce";
    tcomm_f_view_t v;
    int st = in_place(fc, fn, buf, &v);
    if (st != TCOMM_SUCCESS) { /* the C call still meets the peers */
        if (fc)
            tcomm_all_reduce_into(fc->comm, NULL, (tcomm_op_t)op, NULL);
        return st;
    }
    tcomm_f_pre_t pre = {0};
    tcomm_f_check_op(&pre, fn, "buf", &v, op);
    st = tcomm_all_reduce_into(fc->comm, v.tensor, (tcomm_op_t)op,
                               v.tensor);
    tcomm_f_view_close(&v, st == TCOMM_SUCCESS);
    return tcomm_f_finish(st, &pre, fn);
}

int tcomm_f_broadcast(tcomm_f_comm_t *fc, CFI_cdesc_t *buf, int root)
{
    static const char fn[] = "tcomm_broadcast";
    tcomm_f_view_t v;
    int st = in_place(fc, fn, buf, &v);
    if (st != TCOMM_SUCCESS) { /* the C call still meets the peers */
        if (fc)
            tcomm_broadcast_into(fc->comm, NULL, root, NULL);
        return st;
    }
    st = tcomm_broadcast_into(fc->comm, v.tensor, root, v.tensor);
    tcomm_f_view_close(&v, st == TCOMM_SUCCESS);
    return tcomm_f_finish(st, NULL, fn);
}

/* MPI_Reduce's semantics: recvbuf is read only on the root (elsewhere
 * any array, e.g. of size 0, and left as it is). */
int tcomm_f_reduce(tcomm_f_comm_t *fc, CFI_cdesc_t *send, CFI_cdesc_t *recv,
                   int op, int root)
{
    static const char fn[] = "tcomm_reduce";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    int here = fc->rank == root;
    tcomm_f_view_t s, r = {0};
    int st = tcomm_f_view_open(fc, fn, "sendbuf", send, 1, &s);
    if (st == TCOMM_SUCCESS && here &&
        (st = tcomm_f_view_open(fc, fn, "recvbuf", recv, 0, &r)))
        tcomm_f_view_close(&s, 0);
    if (st != TCOMM_SUCCESS) { /* the C call still meets the peers */
        tcomm_reduce_into(fc->comm, NULL, (tcomm_op_t)op, root, NULL);
        return st;
    }
    tcomm_f_pre_t pre = {0};
    tcomm_f_check_op(&pre, fn, "sendbuf", &s, op);
    if (!pre.status && here)
        tcomm_f_check_recv(&pre, fn, &s, &r, s.rank, s.ext, 0, "");
    st = tcomm_reduce_into(fc->comm, s.tensor, (tcomm_op_t)op, root,
                           here ? r.tensor : NULL);
    tcomm_f_view_close(&s, 0);
    if (here)
        tcomm_f_view_close(&r, st == TCOMM_SUCCESS);
    return tcomm_f_finish(st, &pre, fn);
}

/* Open sendbuf and recvbuf; on failure join the collective (kind 0:
 * all_gather, 1: reduce_scatter) with a NULL input. */
static int open_pair(tcomm_f_comm_t *fc, const char *fn, int kind,
                     CFI_cdesc_t *send, CFI_cdesc_t *recv, int op, int dim,
                     tcomm_f_view_t *s, tcomm_f_view_t *r)
{
    int st = tcomm_f_view_open(fc, fn, "sendbuf", send, 1, s);
    if (st == TCOMM_SUCCESS) {
        st = tcomm_f_view_open(fc, fn, "recvbuf", recv, 0, r);
        if (st != TCOMM_SUCCESS)
            tcomm_f_view_close(s, 0);
    }
    if (st != TCOMM_SUCCESS) {
        if (kind == 0)
            tcomm_all_gather_into(fc->comm, NULL, dim, NULL);
        else
            tcomm_reduce_scatter_into(fc->comm, NULL, (tcomm_op_t)op, dim,
                                      NULL);
    }
    return st;
}

int tcomm_f_all_gather(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                       CFI_cdesc_t *recv, int dim)
{
    static const char fn[] = "tcomm_all_gather";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    tcomm_f_view_t s, r;
    int st = open_pair(fc, fn, 0, send, recv, 0, tcomm_f_c_dim(0, 0), &s, &r);
    if (st != TCOMM_SUCCESS)
        return st;
    tcomm_f_pre_t pre = {0};
    tcomm_f_check_gather(&pre, fn, &s, &r, dim, fc->world_size);
    st = tcomm_all_gather_into(fc->comm, s.tensor, tcomm_f_c_dim(s.rank, dim),
                               r.tensor);
    tcomm_f_view_close(&s, 0);
    tcomm_f_view_close(&r, st == TCOMM_SUCCESS);
    /* recvbuf's extent along dim against the ranks' sum, known after
     * the exchange. The C front end answers TCOMM_ERR_SHAPE only on the
     * first rank whose out is wrong (a mismatch on the others): every
     * rank whose recvbuf is wrong gets TCOMM_ERR_SHAPE here. */
    const char *at = strstr(tcomm_last_error(), "add up to ");
    size_t total;
    if ((st == TCOMM_ERR_SHAPE || st == TCOMM_ERR_MISMATCH) && !pre.status &&
        at && sscanf(at + 10, "%zu", &total) == 1 &&
        r.ext[dim - 1] != total)
        st = TCOMM_ERR_SHAPE;
    if (st == TCOMM_ERR_SHAPE && !pre.status && at &&
        sscanf(at + 10, "%zu", &total) == 1)
        return tcomm_f_fail(st,
                            "%s: recvbuf has extent %zu along dim %d but "
                            "the ranks' extents add up to %zu (allocate "
                            "recvbuf with %zu there)",
                            fn, r.ext[dim - 1], dim, total, total);
    return tcomm_f_finish(st, &pre, fn);
}

int tcomm_f_reduce_scatter(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                           CFI_cdesc_t *recv, int op, int dim)
{
    static const char fn[] = "tcomm_reduce_scatter";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    tcomm_f_view_t s, r;
    int st = open_pair(fc, fn, 1, send, recv, op, tcomm_f_c_dim(0, 0), &s, &r);
    if (st != TCOMM_SUCCESS)
        return st;
    tcomm_f_pre_t pre = {0};
    tcomm_f_check_scatter(&pre, fn, &s, &r, op, dim, fc->world_size);
    st = tcomm_reduce_scatter_into(fc->comm, s.tensor, (tcomm_op_t)op,
                                   tcomm_f_c_dim(s.rank, dim), r.tensor);
    tcomm_f_view_close(&s, 0);
    tcomm_f_view_close(&r, st == TCOMM_SUCCESS);
    return tcomm_f_finish(st, &pre, fn);
}
