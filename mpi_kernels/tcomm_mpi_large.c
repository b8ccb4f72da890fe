/* SPDX-License-Identifier: BSD-3-Clause */
/* Large-count safe MPI collectives.
 *
 * Counts up to tcomm_mpi_count_limit() (INT_MAX by default) take the one
 * plain MPI call, with no allocation. Beyond it: the MPI-4 _c call where
 * MPI_VERSION >= 4 and the limit is the default one (a lowered limit is a
 * test asking for the splitting path), else pieces of at most the limit:
 *   allreduce, reduce, bcast: consecutive pieces;
 *   allgatherv: when a count or a displacement does not fit, each rank's
 *     block is broadcast from its owner in pieces (n broadcasts instead of
 *     one allgatherv: slower, but only above 2^31 elements);
 *   reduce_scatter_block, reduce_scatter_counts: each block is reduced
 *     to its owner in pieces (MPI_Reduce), for the same reason.
 * Every rank takes the same path, since the choice depends only on the
 * arguments that must agree across ranks. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_internal.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_test_hooks.h"

/* The test hook clamped to 1..INT_MAX (0, the default, and anything out
 * of range: INT_MAX), so that no reader can loop on pieces of 0. */
size_t tcomm_mpi_count_limit(void)
{
    long lim = tcomm_test_hook(TCOMM_HOOK_COUNT_LIMIT);
    return lim <= 0 || lim > INT_MAX ? (size_t)INT_MAX : (size_t)lim;
}

#if MPI_VERSION >= 4
/* The _c calls are for real large counts, not for a lowered test limit. */
static int use_large_count_calls(void)
{
    return tcomm_mpi_count_limit() == (size_t)INT_MAX;
}
#endif

/* The collectives on one buffer of count elements: one MPI call on
 * elements [off, off + n) of the buffers (MPI_IN_PLACE and NULL pass as
 * they are), the _c call where n needs it. */
typedef enum { ALLREDUCE, REDUCE, BCAST } whole_t;

static int whole_call(whole_t kind, const void *sendbuf, void *recvbuf,
                      size_t off, size_t n, MPI_Datatype type, size_t es,
                      MPI_Op op, int root, MPI_Comm comm)
{
    const void *s = sendbuf == MPI_IN_PLACE || !sendbuf
                        ? sendbuf
                        : (const char *)sendbuf + off * es;
    void *r = recvbuf ? (char *)recvbuf + off * es : NULL;
#if MPI_VERSION >= 4
    if (n > (size_t)INT_MAX) {
        MPI_Count c = (MPI_Count)n;
        switch (kind) {
        case ALLREDUCE: return MPI_Allreduce_c(s, r, c, type, op, comm);
        case REDUCE: return MPI_Reduce_c(s, r, c, type, op, root, comm);
        case BCAST: return MPI_Bcast_c(r, c, type, root, comm);
        }
    }
#endif
    switch (kind) {
    case ALLREDUCE: return MPI_Allreduce(s, r, (int)n, type, op, comm);
    case REDUCE: return MPI_Reduce(s, r, (int)n, type, op, root, comm);
    case BCAST: return MPI_Bcast(r, (int)n, type, root, comm);
    }
    return MPI_ERR_OTHER;
}

/* The one plain call up to the limit; beyond it the _c call (MPI-4, the
 * default limit), else consecutive pieces of at most the limit. */
static int whole(whole_t kind, const void *sendbuf, void *recvbuf, size_t count,
                 tcomm_dtype_t dtype, MPI_Op op, int root, MPI_Comm comm)
{
    MPI_Datatype type = tcomm_mpi_datatype(dtype);
    size_t lim = tcomm_mpi_count_limit(), es = tcomm_dtype_size(dtype);
    size_t off = 0, p;
    int rc;

    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
#if MPI_VERSION >= 4
    if (count > lim && use_large_count_calls())
        lim = count;
#endif
    do {
        p = count - off < lim ? count - off : lim;
        rc = whole_call(kind, sendbuf, recvbuf, off, p, type, es, op, root,
                        comm);
        off += p;
    } while (off < count && rc == MPI_SUCCESS);
    return rc;
}

int tcomm_mpi_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                        tcomm_dtype_t dtype, MPI_Op op, MPI_Comm comm)
{
    return whole(ALLREDUCE, sendbuf, recvbuf, count, dtype, op, 0, comm);
}

int tcomm_mpi_reduce(const void *sendbuf, void *recvbuf, size_t count,
                     tcomm_dtype_t dtype, MPI_Op op, int root, MPI_Comm comm)
{
    return whole(REDUCE, sendbuf, recvbuf, count, dtype, op, root, comm);
}

int tcomm_mpi_bcast(void *buf, size_t count, tcomm_dtype_t dtype, int root,
                    MPI_Comm comm)
{
    return whole(BCAST, NULL, buf, count, dtype, MPI_OP_NULL, root, comm);
}

/* int arrays for MPI_Allgatherv: on the stack up to TCOMM_STACK_RANKS. */
static int allgatherv_int(const void *sendbuf, size_t sendcount,
                          void *recvbuf, const size_t *counts,
                          const size_t *displs, MPI_Datatype type,
                          int nranks, MPI_Comm comm)
{
    int stack[2 * TCOMM_STACK_RANKS], *ic = stack, rc, r;

    if (nranks < 1)
        return MPI_ERR_COMM;
    if (nranks > TCOMM_STACK_RANKS) {
        ic = malloc(2 * (size_t)nranks * sizeof *ic);
        if (ic == NULL)
            return MPI_ERR_NO_MEM;
    }
    for (r = 0; r < nranks; r++) {
        ic[r] = (int)counts[r];
        ic[nranks + r] = (int)displs[r];
    }
    rc = MPI_Allgatherv(sendbuf, (int)sendcount, type, recvbuf, ic,
                        ic + nranks, type, comm);
    if (ic != stack)
        free(ic);
    return rc;
}

#if MPI_VERSION >= 4
static int allgatherv_c(const void *sendbuf, size_t sendcount, void *recvbuf,
                        const size_t *counts, const size_t *displs,
                        MPI_Datatype type, int nranks, MPI_Comm comm)
{
    MPI_Count *cc = malloc((size_t)nranks * sizeof *cc);
    MPI_Aint *cd = malloc((size_t)nranks * sizeof *cd);
    int rc = MPI_ERR_NO_MEM;

    if (cc != NULL && cd != NULL) {
        for (int r = 0; r < nranks; r++) {
            cc[r] = (MPI_Count)counts[r];
            cd[r] = (MPI_Aint)displs[r];
        }
        rc = MPI_Allgatherv_c(sendbuf, (MPI_Count)sendcount, type, recvbuf,
                              cc, cd, type, comm);
    }
    free(cc);
    free(cd);
    return rc;
}
#endif

int tcomm_mpi_allgatherv(const void *sendbuf, size_t sendcount,
                         void *recvbuf, const size_t *counts,
                         const size_t *displs, tcomm_dtype_t dtype,
                         MPI_Comm comm)
{
    MPI_Datatype type = tcomm_mpi_datatype(dtype);
    size_t lim = tcomm_mpi_count_limit(), es = tcomm_dtype_size(dtype);
    int nranks, rank, rc, r, fits = 1, regular = 1;

    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS ||
        (rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return rc;
    for (r = 0; r < nranks; r++) {
        fits &= counts[r] <= lim && displs[r] <= lim;
        regular &= counts[r] == counts[0] && displs[r] == r * counts[0];
    }
    if (fits && regular) /* equal blocks back to back: plain allgather */
        return MPI_Allgather(sendbuf, (int)sendcount, type, recvbuf,
                             (int)counts[0], type, comm);
    if (fits)
        return allgatherv_int(sendbuf, sendcount, recvbuf, counts, displs,
                              type, nranks, comm);
#if MPI_VERSION >= 4
    if (use_large_count_calls())
        return allgatherv_c(sendbuf, sendcount, recvbuf, counts, displs,
                            type, nranks, comm);
#endif
    /* Too large for int counts: each block from its owner. */
    for (r = 0; r < nranks; r++) {
        char *dst = (char *)recvbuf + displs[r] * es;
        if (counts[r] == 0)
            continue;
        if (r == rank && sendbuf != MPI_IN_PLACE)
            memcpy(dst, sendbuf, counts[r] * es);
        rc = tcomm_mpi_bcast(dst, counts[r], dtype, r, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The fallback of both reduce-scatters: block r of sendbuf (counts[r]
 * elements, or count each where counts is NULL; back to back) reduced to
 * rank r with tcomm_mpi_reduce, in pieces where it is too large. It reads
 * every block from sendbuf, so MPI_IN_PLACE cannot take it. */
static int reduce_to_owners(const void *sendbuf, void *recvbuf,
                            const size_t *counts, size_t count,
                            tcomm_dtype_t dtype, MPI_Op op, MPI_Comm comm)
{
    size_t es = tcomm_dtype_size(dtype);
    int nranks, rank, rc;

    if (sendbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS ||
        (rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return rc;
    const char *blk = sendbuf;
    for (int r = 0; r < nranks; r++) {
        size_t n = counts ? counts[r] : count;
        if (n && (rc = tcomm_mpi_reduce(blk, r == rank ? recvbuf : NULL, n,
                                        dtype, op, r, comm)) != MPI_SUCCESS)
            return rc;
        blk += n * es;
    }
    return MPI_SUCCESS;
}

/* MPI_Reduce_scatter where every count and their sum fit the limit (Open
 * MPI sums the counts in an int), MPI_Reduce_scatter_c beyond it, else
 * each block reduced to its owner in pieces (MPI_Reduce). */
int tcomm_mpi_reduce_scatter_counts(const void *sendbuf, void *recvbuf,
                                    const size_t *counts,
                                    tcomm_dtype_t dtype, MPI_Op op,
                                    MPI_Comm comm)
{
    MPI_Datatype type = tcomm_mpi_datatype(dtype);
    size_t lim = tcomm_mpi_count_limit(), total = 0;
    int nranks, rc, r, fits = 1;

    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS)
        return rc;
    for (r = 0; r < nranks; r++) {
        fits &= counts[r] <= lim;
        total += counts[r];
    }
    if (fits && total <= lim) {
        int stack[TCOMM_STACK_RANKS], *ic = stack;
        if (nranks > TCOMM_STACK_RANKS &&
            !(ic = malloc((size_t)nranks * sizeof *ic)))
            return MPI_ERR_NO_MEM;
        for (r = 0; r < nranks; r++)
            ic[r] = (int)counts[r];
        rc = MPI_Reduce_scatter(sendbuf, recvbuf, ic, type, op, comm);
        if (ic != stack)
            free(ic);
        return rc;
    }
#if MPI_VERSION >= 4
    if (use_large_count_calls()) {
        MPI_Count *cc = malloc((size_t)nranks * sizeof *cc);
        if (cc == NULL)
            return MPI_ERR_NO_MEM;
        for (r = 0; r < nranks; r++)
            cc[r] = (MPI_Count)counts[r];
        rc = MPI_Reduce_scatter_c(sendbuf, recvbuf, cc, type, op, comm);
        free(cc);
        return rc;
    }
#endif
    return reduce_to_owners(sendbuf, recvbuf, counts, 0, dtype, op, comm);
}

int tcomm_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                   size_t count, tcomm_dtype_t dtype,
                                   MPI_Op op, MPI_Comm comm)
{
    MPI_Datatype type = tcomm_mpi_datatype(dtype);

    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (count <= tcomm_mpi_count_limit())
        return MPI_Reduce_scatter_block(sendbuf, recvbuf, (int)count, type,
                                        op, comm);
#if MPI_VERSION >= 4
    if (use_large_count_calls())
        return MPI_Reduce_scatter_block_c(sendbuf, recvbuf,
                                          (MPI_Count)count, type, op, comm);
#endif
    return reduce_to_owners(sendbuf, recvbuf, NULL, count, dtype, op, comm);
}

/* In groups, so that the statuses fit on the stack: real statuses, not
 * MPI_STATUSES_IGNORE, because they name a failed request's own error
 * (after MPI_ERR_IN_STATUS the others say MPI_SUCCESS or MPI_ERR_PENDING)
 * and because MPICH's MPI_STATUSES_IGNORE, (MPI_Status *)1, trips gcc's
 * -Wstringop-overflow on MPI_Waitall's array parameter (pmodels/mpich
 * #5687). */
#define WAIT_GROUP 64

int tcomm_mpi_waitall(size_t n, MPI_Request *req)
{
    MPI_Status sts[WAIT_GROUP];
    for (size_t i = 0; i < n; i += WAIT_GROUP) {
        int k = n - i < WAIT_GROUP ? (int)(n - i) : WAIT_GROUP;
        int rc = MPI_Waitall(k, req + i, sts);
        if (rc == MPI_ERR_IN_STATUS) {
            for (int j = 0; j < k; j++)
                if (sts[j].MPI_ERROR != MPI_SUCCESS &&
                    sts[j].MPI_ERROR != MPI_ERR_PENDING)
                    return sts[j].MPI_ERROR;
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int tcomm_mpi_layout(tcomm_dtype_t dtype, MPI_Comm comm, size_t *es, int *size,
                     int *rank)
{
    int rc;
    *es = tcomm_dtype_size(dtype);
    if (*es == 0)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, size)) != MPI_SUCCESS)
        return rc;
    return MPI_Comm_rank(comm, rank);
}
