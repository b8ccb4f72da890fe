/* SPDX-License-Identifier: BSD-3-Clause */
/* The interposed nonblocking collectives: MPI_Iallreduce,
 * MPI_Ireduce_scatter_block, MPI_Iallgather, MPI_Ibcast, MPI_Ialltoall.
 * Each is taken on the blocking call's terms (type, op, size, an
 * intracommunicator tcomm serves) and MPI_THREAD_MULTIPLE on every rank;
 * then tcomm's request runs and the program gets an MPI generalized
 * request (pmpi_nonblocking.c). Else PMPI_ does it. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_pmpi.h"

/* The end of a taken start: the MPI request, or the failure. */
static int started(tcomm_pmpi_nb_t *nb, MPI_Comm comm, tcomm_status_t st,
                   MPI_Request *req)
{
    if (st == TCOMM_SUCCESS)
        return tcomm_pmpi_nb_hand_over(nb, req);
    return tcomm_pmpi_nb_failed(nb, comm, st);
}

TCOMM_PMPI_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count,
                                     MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm, MPI_Request *req)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_IALLREDUCE;
    tcomm_dtype_t dt;
    tcomm_op_t top;
    size_t size;
    tcomm_comm_t *tc;
    int n, me, rc = MPI_SUCCESS;
    tcomm_pmpi_nb_t *nb = NULL;
    if (count > 0 && tcomm_pmpi_reduce_type(type, op, &dt, &top, &size))
        nb = tcomm_pmpi_nb_begin(fn, (size_t)count * size, comm, &tc, &n,
                                 &me, &rc);
    if (!nb) {
        if (rc != MPI_SUCCESS)
            return rc;
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
    }
    nb->bytes = (size_t)count * size;
    nb->out = tcomm_pmpi_wrap(dt, rbuf, (size_t)count);
    if (sbuf != MPI_IN_PLACE)
        nb->in = tcomm_pmpi_wrap(dt, (void *)sbuf, (size_t)count);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (nb->out && (nb->in || sbuf == MPI_IN_PLACE)) {
        tcomm_pmpi_inside++;
        st = tcomm_all_reduce_start(tc, nb->in ? nb->in : nb->out, top,
                                    nb->out, &nb->req);
        tcomm_pmpi_inside--;
    }
    return started(nb, comm, st, req);
}

TCOMM_PMPI_EXPORT int MPI_Ireduce_scatter_block(const void *sbuf,
                                                void *rbuf, int count,
                                                MPI_Datatype type, MPI_Op op,
                                                MPI_Comm comm,
                                                MPI_Request *req)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_IREDUCE_SCATTER_BLOCK;
    tcomm_dtype_t dt;
    tcomm_op_t top;
    size_t size;
    tcomm_comm_t *tc;
    int n, me, rc = MPI_SUCCESS;
    tcomm_pmpi_nb_t *nb = NULL;
    if (count > 0 && tcomm_pmpi_reduce_type(type, op, &dt, &top, &size))
        nb = tcomm_pmpi_nb_begin(fn, (size_t)count * size, comm, &tc, &n,
                                 &me, &rc);
    if (!nb) {
        if (rc != MPI_SUCCESS)
            return rc;
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Ireduce_scatter_block(sbuf, rbuf, count, type, op, comm,
                                          req);
    }
    size_t total = (size_t)count * (size_t)n, part = (size_t)count * size;
    nb->bytes = total * size;
    /* In place, the input is rbuf: the result lands in a buffer of its
       own and is copied to rbuf's start once the call has completed. */
    void *res = rbuf;
    if (sbuf == MPI_IN_PLACE) {
        res = nb->scratch = malloc(part);
        nb->copy_to = rbuf;
        nb->copy_bytes = part;
    }
    nb->in = tcomm_pmpi_wrap(dt, sbuf == MPI_IN_PLACE ? rbuf : (void *)sbuf,
                             total);
    nb->out = res ? tcomm_pmpi_wrap(dt, res, (size_t)count) : NULL;
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (nb->in && nb->out) {
        tcomm_pmpi_inside++;
        st = tcomm_reduce_scatter_start(tc, nb->in, top, 0, nb->out,
                                        &nb->req);
        tcomm_pmpi_inside--;
    }
    return started(nb, comm, st, req);
}

TCOMM_PMPI_EXPORT int MPI_Iallgather(const void *sbuf, int scount,
                                     MPI_Datatype stype, void *rbuf,
                                     int rcount, MPI_Datatype rtype,
                                     MPI_Comm comm, MPI_Request *req)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_IALLGATHER;
    size_t size;
    tcomm_comm_t *tc;
    int n, me, rc = MPI_SUCCESS;
    tcomm_pmpi_nb_t *nb = NULL;
    if (rcount > 0 && tcomm_pmpi_move_type(rtype, &size) &&
        tcomm_pmpi_send_matches(sbuf, scount, stype, (size_t)rcount * size))
        nb = tcomm_pmpi_nb_begin(fn, (size_t)rcount * size, comm, &tc, &n,
                                 &me, &rc);
    if (!nb) {
        if (rc != MPI_SUCCESS)
            return rc;
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype,
                               comm, req);
    }
    size_t part = (size_t)rcount * size;
    nb->bytes = part * (size_t)n;
    /* In place, this rank's part goes in from a copy (no input may
       overlap the output). */
    void *own = (void *)sbuf;
    if (sbuf == MPI_IN_PLACE) {
        own = nb->scratch = malloc(part);
        if (own)
            memcpy(own, (char *)rbuf + (size_t)me * part, part);
    }
    nb->in = own ? tcomm_pmpi_wrap(TCOMM_U8, own, part) : NULL;
    nb->out = tcomm_pmpi_wrap(TCOMM_U8, rbuf, part * (size_t)n);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (nb->in && nb->out) {
        tcomm_pmpi_inside++;
        st = tcomm_all_gather_start(tc, nb->in, 0, nb->out, &nb->req);
        tcomm_pmpi_inside--;
    }
    return started(nb, comm, st, req);
}

TCOMM_PMPI_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type,
                                 int root, MPI_Comm comm, MPI_Request *req)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_IBCAST;
    size_t size;
    tcomm_comm_t *tc;
    int n, me, rc = MPI_SUCCESS, size_ok = 0;
    tcomm_pmpi_nb_t *nb = NULL;
    /* root's range from MPI's size: an invalid root stays MPI's error */
    if (count > 0 && tcomm_pmpi_move_type(type, &size) &&
        PMPI_Comm_size(comm, &n) == MPI_SUCCESS)
        size_ok = root >= 0 && root < n;
    if (size_ok)
        nb = tcomm_pmpi_nb_begin(fn, (size_t)count * size, comm, &tc, &n,
                                 &me, &rc);
    if (!nb) {
        if (rc != MPI_SUCCESS)
            return rc;
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Ibcast(buf, count, type, root, comm, req);
    }
    nb->bytes = (size_t)count * size;
    nb->out = tcomm_pmpi_wrap(TCOMM_U8, buf, nb->bytes);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (nb->out) {
        tcomm_pmpi_inside++;
        st = tcomm_broadcast_start(tc, nb->out, root, nb->out, &nb->req);
        tcomm_pmpi_inside--;
    }
    return started(nb, comm, st, req);
}

TCOMM_PMPI_EXPORT int MPI_Ialltoall(const void *sbuf, int scount,
                                    MPI_Datatype stype, void *rbuf,
                                    int rcount, MPI_Datatype rtype,
                                    MPI_Comm comm, MPI_Request *req)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_IALLTOALL;
    size_t size;
    tcomm_comm_t *tc;
    int n, me, rc = MPI_SUCCESS;
    tcomm_pmpi_nb_t *nb = NULL;
    if (rcount > 0 && tcomm_pmpi_move_type(rtype, &size) &&
        tcomm_pmpi_send_matches(sbuf, scount, stype, (size_t)rcount * size))
        nb = tcomm_pmpi_nb_begin(fn, (size_t)rcount * size, comm, &tc, &n,
                                 &me, &rc);
    if (!nb) {
        if (rc != MPI_SUCCESS)
            return rc;
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm,
                              req);
    }
    nb->bytes = (size_t)rcount * size * (size_t)n;
    nb->out = tcomm_pmpi_wrap(TCOMM_U8, rbuf, nb->bytes);
    if (sbuf != MPI_IN_PLACE)
        nb->in = tcomm_pmpi_wrap(TCOMM_U8, (void *)sbuf, nb->bytes);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (nb->out && (nb->in || sbuf == MPI_IN_PLACE)) {
        tcomm_pmpi_inside++;
        st = tcomm_all_to_all_start(tc, nb->in ? nb->in : nb->out, 0, 0,
                                    nb->out, &nb->req);
        tcomm_pmpi_inside--;
    }
    return started(nb, comm, st, req);
}
