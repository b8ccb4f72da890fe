/* SPDX-License-Identifier: BSD-3-Clause */
/* The interposed data movements: MPI_Bcast, MPI_Allgather,
 * MPI_Allgatherv, MPI_Alltoall. Any predefined contiguous type moves as
 * its bytes (a u8 tensor), so only the type's size matters. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_pmpi.h"

/* 1 to take: the type is predefined and count * its size is at least
 * fn's threshold (the same on every rank, from the count and the type,
 * which MPI requires to match); then *tc is comm's handle. */
static int take(tcomm_pmpi_fn_t fn, MPI_Datatype type, size_t count,
                MPI_Comm comm, size_t *size, tcomm_comm_t **tc, int *n,
                int *me)
{
    if (!tcomm_pmpi_on || tcomm_pmpi_inside || count == 0 ||
        !tcomm_pmpi_move_type(type, size) ||
        count * *size < tcomm_pmpi_min_bytes(fn))
        return 0;
    *tc = tcomm_pmpi_comm(comm, n, me);
    return *tc != NULL;
}

/* In place, or a predefined type of the same bytes as the receive side
 * (else MPI reports it). */
int tcomm_pmpi_send_matches(const void *sbuf, int scount,
                            MPI_Datatype stype, size_t rbytes)
{
    size_t ssize;
    if (sbuf == MPI_IN_PLACE)
        return 1;
    return scount >= 0 && tcomm_pmpi_move_type(stype, &ssize) &&
           (size_t)scount * ssize == rbytes;
}

TCOMM_PMPI_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type,
                                int root, MPI_Comm comm)
{
    size_t size;
    tcomm_comm_t *tc;
    int n, me;
    if (count < 0 ||
        !take(PMPI_FN_BCAST, type, (size_t)count, comm, &size, &tc, &n,
              &me) ||
        root < 0 || root >= n) {
        tcomm_pmpi_passed(PMPI_FN_BCAST, comm);
        return PMPI_Bcast(buf, count, type, root, comm);
    }
    double t0 = tcomm_pmpi_now();
    size_t bytes = (size_t)count * size;
    tcomm_tensor_t *t = tcomm_pmpi_wrap(TCOMM_U8, buf, bytes);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (t) {
        tcomm_pmpi_inside++;
        st = tcomm_broadcast_into(tc, t, root, t);
        tcomm_pmpi_inside--;
    }
    return tcomm_pmpi_done(PMPI_FN_BCAST, comm, st, bytes, t0, t, NULL);
}

TCOMM_PMPI_EXPORT int MPI_Allgather(const void *sbuf, int scount,
                                    MPI_Datatype stype, void *rbuf,
                                    int rcount, MPI_Datatype rtype,
                                    MPI_Comm comm)
{
    size_t size;
    tcomm_comm_t *tc;
    int n, me;
    if (rcount < 0 ||
        !take(PMPI_FN_ALLGATHER, rtype, (size_t)rcount, comm, &size, &tc,
              &n, &me) ||
        !tcomm_pmpi_send_matches(sbuf, scount, stype, (size_t)rcount * size)) {
        tcomm_pmpi_passed(PMPI_FN_ALLGATHER, comm);
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
    double t0 = tcomm_pmpi_now();
    size_t part = (size_t)rcount * size;
    /* In place, this rank's part is already at its slot of rbuf: it
       goes in from a copy, so that no input overlaps the output. */
    void *own = sbuf == MPI_IN_PLACE ? malloc(part) : (void *)sbuf;
    if (own && sbuf == MPI_IN_PLACE)
        memcpy(own, (char *)rbuf + (size_t)me * part, part);
    tcomm_tensor_t *in = own ? tcomm_pmpi_wrap(TCOMM_U8, own, part) : NULL;
    tcomm_tensor_t *out = tcomm_pmpi_wrap(TCOMM_U8, rbuf, part * (size_t)n);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (in && out) {
        tcomm_pmpi_inside++;
        st = tcomm_all_gather_into(tc, in, 0, out);
        tcomm_pmpi_inside--;
    }
    int rc = tcomm_pmpi_done(PMPI_FN_ALLGATHER, comm, st, part * (size_t)n,
                             t0, in, out);
    if (sbuf == MPI_IN_PLACE)
        free(own);
    return rc;
}

TCOMM_PMPI_EXPORT int MPI_Allgatherv(const void *sbuf, int scount,
                                     MPI_Datatype stype, void *rbuf,
                                     const int counts[], const int displs[],
                                     MPI_Datatype rtype, MPI_Comm comm)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_ALLGATHERV;
    size_t size, total = 0;
    tcomm_comm_t *tc = NULL;
    int n = 0, me = 0, ok = tcomm_pmpi_on && !tcomm_pmpi_inside && counts &&
                            displs && PMPI_Comm_size(comm, &n) == MPI_SUCCESS;
    /* counts are the same on every rank; displs may differ (local) */
    for (int r = 0; ok && r < n; r++) {
        ok = counts[r] >= 0;
        total += ok ? (size_t)counts[r] : 0;
    }
    if (!ok || n == 0 ||
        !take(fn, rtype, total / (size_t)n, comm, &size, &tc, &n, &me) ||
        !tcomm_pmpi_send_matches(sbuf, scount, stype, (size_t)counts[me] * size)) {
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Allgatherv(sbuf, scount, stype, rbuf, counts, displs,
                               rtype, comm);
    }
    double t0 = tcomm_pmpi_now();
    /* Displacements in rank order gather straight into rbuf; others
       through a buffer, then each part to its place. */
    int ordered = 1;
    for (int r = 0, at = 0; r < n; at += counts[r], r++)
        ordered &= displs[r] == at;
    size_t mine = (size_t)counts[me] * size;
    void *all = ordered ? rbuf : malloc(total * size + 1);
    void *own = sbuf == MPI_IN_PLACE ? malloc(mine + 1) : (void *)sbuf;
    if (own && sbuf == MPI_IN_PLACE)
        memcpy(own, (char *)rbuf + (size_t)displs[me] * size, mine);
    tcomm_tensor_t *in = own ? tcomm_pmpi_wrap(TCOMM_U8, own, mine) : NULL;
    tcomm_tensor_t *out = all ? tcomm_pmpi_wrap(TCOMM_U8, all, total * size)
                              : NULL;
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (in && out) {
        tcomm_pmpi_inside++;
        st = tcomm_all_gather_into(tc, in, 0, out);
        tcomm_pmpi_inside--;
    }
    for (int r = 0, at = 0; !ordered && st == TCOMM_SUCCESS && r < n;
         at += counts[r], r++)
        memcpy((char *)rbuf + (size_t)displs[r] * size,
               (char *)all + (size_t)at * size, (size_t)counts[r] * size);
    int rc = tcomm_pmpi_done(fn, comm, st, total * size, t0, in, out);
    if (!ordered)
        free(all);
    if (sbuf == MPI_IN_PLACE)
        free(own);
    return rc;
}

TCOMM_PMPI_EXPORT int MPI_Alltoall(const void *sbuf, int scount,
                                   MPI_Datatype stype, void *rbuf, int rcount,
                                   MPI_Datatype rtype, MPI_Comm comm)
{
    size_t size;
    tcomm_comm_t *tc;
    int n, me;
    if (rcount < 0 ||
        !take(PMPI_FN_ALLTOALL, rtype, (size_t)rcount, comm, &size, &tc, &n,
              &me) ||
        !tcomm_pmpi_send_matches(sbuf, scount, stype, (size_t)rcount * size)) {
        tcomm_pmpi_passed(PMPI_FN_ALLTOALL, comm);
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
    double t0 = tcomm_pmpi_now();
    size_t bytes = (size_t)rcount * size * (size_t)n;
    tcomm_tensor_t *out = tcomm_pmpi_wrap(TCOMM_U8, rbuf, bytes);
    tcomm_tensor_t *in = sbuf == MPI_IN_PLACE
                             ? NULL
                             : tcomm_pmpi_wrap(TCOMM_U8, (void *)sbuf, bytes);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (out && (in || sbuf == MPI_IN_PLACE)) {
        tcomm_pmpi_inside++;
        st = tcomm_all_to_all_into(tc, in ? in : out, 0, 0, out);
        tcomm_pmpi_inside--;
    }
    return tcomm_pmpi_done(PMPI_FN_ALLTOALL, comm, st, bytes, t0, in, out);
}
