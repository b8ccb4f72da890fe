/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all when the blocks are strided on one side at least (split or
 * concat along a dim with a size > 1 before it): candidates (b)-(d), rows
 * of all_to_all's table (src/mpi/all_to_all.c) beside (a), the temporary
 * (all_to_all_exchange.c), and (e), the pull (node/all_to_all_copies.c).
 *   (b) alltoallw: MPI_Alltoallw, a vector datatype per peer and side;
 *   (c) vector: one Isend/Irecv per peer through the same datatypes;
 *   (d) rows: one message per run contiguous on both sides, in place.
 * bench/alltoall_candidates.c times them (its figures, the reason for
 * the table's ranges, are at the table). */
#include <limits.h>
#include <string.h>

#include "tcomm_mpi_all_to_all.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_call.h"

#define TCOMM_ALL_TO_ALL_ROWS_TAG 0x7a2b
/* Requests per window of rows: 8 KiB of MPI_Request on the stack. */
#define ROWS_WINDOW 1024

int tcomm_all_to_all_fits_int(const tcomm_all_to_all_plan_t *p)
{
    size_t lim = tcomm_mpi_count_limit();
    return p->souter <= lim && p->router <= lim && p->stotal <= lim &&
           p->rtotal <= lim && p->souter * p->stotal * p->es <= INT_MAX &&
           p->router * p->rtotal * p->es <= INT_MAX &&
           p->nranks <= TCOMM_STACK_RANKS && 2 * p->nranks <= ROWS_WINDOW;
}

/* [outer][w] at a stride of total elements: (count, type) for MPI. The
 * type is base itself (nothing to free) where the block is contiguous
 * or empty. */
static int block_type(MPI_Datatype base, size_t outer, size_t w,
                      size_t total, int *count, MPI_Datatype *type)
{
    int rc;

    *type = base;
    *count = 0;
    if (outer == 0 || w == 0)
        return MPI_SUCCESS;
    if (outer == 1) {
        *count = (int)w;
        return MPI_SUCCESS;
    }
    rc = MPI_Type_vector((int)outer, (int)w, (int)total, base, type);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(type)) != MPI_SUCCESS)
        MPI_Type_free(type);
    if (rc != MPI_SUCCESS)
        *type = base;
    else
        *count = 1;
    return rc;
}

static void free_types(MPI_Datatype *t, int n, MPI_Datatype base)
{
    for (int r = 0; r < n; r++)
        if (t[r] != base)
            MPI_Type_free(&t[r]);
}

/* Both sides' types: st[j] for the block to j, rt[r] from r. */
static int make_types(const tcomm_all_to_all_plan_t *p, MPI_Datatype base,
                      int *sc, MPI_Datatype *st, int *rc_, MPI_Datatype *rt)
{
    int rc = MPI_SUCCESS, n = p->nranks;
    for (int r = 0; r < n; r++)
        st[r] = rt[r] = base;
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
        rc = block_type(base, p->souter, p->sw[r], p->stotal, &sc[r], &st[r]);
        if (rc == MPI_SUCCESS)
            rc = block_type(base, p->router, p->rw[r], p->rtotal, &rc_[r],
                            &rt[r]);
    }
    if (rc != MPI_SUCCESS) {
        free_types(st, n, base);
        free_types(rt, n, base);
    }
    return rc;
}

int tcomm_all_to_all_alltoallw(const tcomm_all_to_all_plan_t *p, const void *in,
                               void *out, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(p->dtype);
    MPI_Datatype st[TCOMM_STACK_RANKS], rt[TCOMM_STACK_RANKS];
    int sc[TCOMM_STACK_RANKS], sd[TCOMM_STACK_RANKS];
    int rcn[TCOMM_STACK_RANKS], rd[TCOMM_STACK_RANKS], rc, n = p->nranks;

    if (n > TCOMM_STACK_RANKS)
        return MPI_ERR_COUNT; /* the caller checked tcomm_all_to_all_fits_int */
    if ((rc = make_types(p, base, sc, st, rcn, rt)) != MPI_SUCCESS)
        return rc;
    for (int r = 0; r < n; r++) {
        sd[r] = (int)(p->soff[r] * p->es); /* bytes */
        rd[r] = (int)(p->roff[r] * p->es);
    }
    rc = MPI_Alltoallw(in, sc, sd, st, out, rcn, rd, rt, comm);
    free_types(st, n, base);
    free_types(rt, n, base);
    return rc;
}

int tcomm_all_to_all_vector(const tcomm_all_to_all_plan_t *p, const void *in,
                            void *out, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(p->dtype);
    MPI_Datatype st[TCOMM_STACK_RANKS], rt[TCOMM_STACK_RANKS];
    MPI_Request req[2 * TCOMM_STACK_RANKS];
    int sc[TCOMM_STACK_RANKS], rcn[TCOMM_STACK_RANKS], rc, n = p->nranks;
    int nr = 0;
    size_t es = p->es;

    if (n > TCOMM_STACK_RANKS)
        return MPI_ERR_COUNT;
    if ((rc = make_types(p, base, sc, st, rcn, rt)) != MPI_SUCCESS)
        return rc;
    /* from the next rank on, so that not everyone starts with rank 0 */
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        int r = (p->rank + n - k) % n;
        if (rcn[r])
            rc = MPI_Irecv((char *)out + p->roff[r] * es, rcn[r], rt[r], r,
                           TCOMM_ALL_TO_ALL_ROWS_TAG, comm, &req[nr++]);
    }
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        int r = (p->rank + k) % n;
        if (sc[r])
            rc = MPI_Isend((const char *)in + p->soff[r] * es, sc[r], st[r], r,
                           TCOMM_ALL_TO_ALL_ROWS_TAG, comm, &req[nr++]);
    }
    if (rc == MPI_SUCCESS)
        rc = tcomm_mpi_waitall((size_t)nr, req);
    else
        tcomm_mpi_waitall((size_t)nr, req);
    free_types(st, n, base);
    free_types(rt, n, base);
    return rc;
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

size_t tcomm_all_to_all_common_run(const tcomm_all_to_all_plan_t *p)
{
    size_t e = p->souter * p->sw[0];
    size_t s = p->souter == 1 ? e : p->sw[0];
    size_t r = p->router == 1 ? e : p->rw[0];
    return gcd(s, r);
}

/* Element i of a block [outer][w] at column off in rows of total. */
static size_t at(size_t i, size_t w, size_t off, size_t total)
{
    return (i / w) * total + off + i % w;
}

int tcomm_all_to_all_rows(const tcomm_all_to_all_plan_t *p, const void *in,
                          void *out, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(p->dtype);
    MPI_Request req[ROWS_WINDOW];
    size_t es = p->es, e = p->souter * p->sw[0], g, m, win;
    int n = p->nranks, rc = MPI_SUCCESS;

    if (e == 0)
        return MPI_SUCCESS;
    g = tcomm_all_to_all_common_run(p);
    m = e / g;
    /* a window of runs of every peer at once: each window's messages
     * all match within the peers' same window */
    win = (size_t)(ROWS_WINDOW / (2 * n));
    for (size_t i0 = 0; i0 < m && rc == MPI_SUCCESS; i0 += win) {
        size_t i1 = i0 + win < m ? i0 + win : m;
        int nr = 0;
        for (int k = 1; k < n && rc == MPI_SUCCESS; k++) {
            int r = (p->rank + n - k) % n;
            for (size_t i = i0; i < i1 && rc == MPI_SUCCESS; i++)
                rc = MPI_Irecv((char *)out +
                                   at(i * g, p->rw[r], p->roff[r], p->rtotal) *
                                       es,
                               (int)g, base, r, TCOMM_ALL_TO_ALL_ROWS_TAG, comm,
                               &req[nr++]);
        }
        for (int k = 1; k < n && rc == MPI_SUCCESS; k++) {
            int r = (p->rank + k) % n;
            for (size_t i = i0; i < i1 && rc == MPI_SUCCESS; i++)
                rc = MPI_Isend((const char *)in +
                                   at(i * g, p->sw[r], p->soff[r], p->stotal) *
                                       es,
                               (int)g, base, r, TCOMM_ALL_TO_ALL_ROWS_TAG, comm,
                               &req[nr++]);
        }
        for (size_t i = i0; i < i1; i++) /* our own block */
            memcpy((char *)out + at(i * g, p->rw[p->rank], p->roff[p->rank],
                                    p->rtotal) * es,
                   (const char *)in + at(i * g, p->sw[p->rank],
                                         p->soff[p->rank], p->stotal) * es,
                   g * es);
        if (rc == MPI_SUCCESS)
            rc = tcomm_mpi_waitall((size_t)nr, req);
        else
            tcomm_mpi_waitall((size_t)nr, req);
    }
    return rc;
}
