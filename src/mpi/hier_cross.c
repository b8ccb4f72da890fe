/* SPDX-License-Identifier: BSD-3-Clause */
/* The step across nodes of the two-level collectives (src/mpi/tcomm_hier.h).
 *
 * Without TCOMM_TIMEOUT: MPI's blocking large-count calls
 * (mpi_kernels/tcomm_mpi_large.c) on the caller's buffers.
 *
 * With it, a link that goes down during the transfer must not hold the
 * ranks for ever (Open MPI's TCP transport waits without end), so the step
 * runs as the nonblocking call on the timeout's scratch, polled until the
 * call's deadline (src/mpi/timeout.c). A request given up on keeps the
 * scratch, never a caller's tensor. Counts go in pieces of at most
 * tcomm_mpi_count_limit() elements per call, per node for the scatter and
 * gather forms (MPI sums their counts in an int). Then tcomm_hier_settle
 * tells the node's ranks whether one of them failed the step, so that
 * every rank returns an error within TCOMM_TIMEOUT, not only those that
 * crossed. The scratch costs a copy in and out of the node's buffer, with
 * a timeout only. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_hier.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_timeout.h"

#define STEP "the step across nodes "

static size_t least(size_t a, size_t b)
{
    return a < b ? a : b;
}

static tcomm_status_t wait_step(const tcomm_mpi_state_t *st, MPI_Request *req,
                                const char *call)
{
    return tcomm_timeout_wait(st->timeout, st->owner->seq, req, call);
}

static tcomm_status_t scratch(const tcomm_mpi_state_t *st, size_t bytes,
                              tcomm_dtype_t dtype, char **s)
{
    if (tcomm_mpi_datatype(dtype) == MPI_DATATYPE_NULL)
        return tcomm_mpi_status(MPI_ERR_TYPE, STEP, __FILE__, __LINE__);
    return tcomm_timeout_scratch(st->timeout, bytes, (void **)s);
}

tcomm_status_t tcomm_hier_cross_allreduce(const tcomm_mpi_state_t *st,
                                          void *buf, size_t count,
                                          tcomm_dtype_t dtype, MPI_Op op,
                                          const char *fn)
{
    MPI_Comm c = st->hier->cross;
    if (!st->timeout)
        return tcomm_mpi_status(
            tcomm_mpi_allreduce(MPI_IN_PLACE, buf, count, dtype, op, c), fn,
            __FILE__, __LINE__);
    size_t es = tcomm_dtype_size(dtype), lim = tcomm_mpi_count_limit();
    char *s;
    TCOMM_TRY(scratch(st, count * es, dtype, &s));
    memcpy(s, buf, count * es);
    for (size_t off = 0, p; off < count; off += p) {
        p = least(count - off, lim);
        MPI_Request req;
        TCOMM_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, s + off * es, (int)p,
                                       tcomm_mpi_datatype(dtype), op, c, &req));
        TCOMM_TRY(wait_step(st, &req, STEP "(MPI_Iallreduce)"));
    }
    memcpy(buf, s, count * es);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_hier_cross_bcast(const tcomm_mpi_state_t *st, void *buf,
                                      size_t count, tcomm_dtype_t dtype,
                                      int root, const char *fn)
{
    MPI_Comm c = st->hier->cross;
    if (!st->timeout)
        return tcomm_mpi_status(tcomm_mpi_bcast(buf, count, dtype, root, c), fn,
                                __FILE__, __LINE__);
    size_t es = tcomm_dtype_size(dtype), lim = tcomm_mpi_count_limit();
    int me;
    char *s;
    TCOMM_MPI_CHECK(MPI_Comm_rank(c, &me));
    TCOMM_TRY(scratch(st, count * es, dtype, &s));
    if (me == root)
        memcpy(s, buf, count * es);
    for (size_t off = 0, p; off < count; off += p) {
        p = least(count - off, lim);
        MPI_Request req;
        TCOMM_MPI_CHECK(MPI_Ibcast(s + off * es, (int)p,
                                   tcomm_mpi_datatype(dtype), root, c, &req));
        TCOMM_TRY(wait_step(st, &req, STEP "(MPI_Ibcast)"));
    }
    if (me != root)
        memcpy(buf, s, count * es);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_hier_cross_reduce(const tcomm_mpi_state_t *st,
                                       const void *send, void *recv,
                                       size_t count, tcomm_dtype_t dtype,
                                       MPI_Op op, int root, const char *fn)
{
    MPI_Comm c = st->hier->cross;
    if (!st->timeout)
        return tcomm_mpi_status(
            tcomm_mpi_reduce(send, recv, count, dtype, op, root, c), fn,
            __FILE__, __LINE__);
    size_t es = tcomm_dtype_size(dtype), lim = tcomm_mpi_count_limit();
    int me;
    char *s;
    TCOMM_MPI_CHECK(MPI_Comm_rank(c, &me));
    /* the input, then the root's result */
    TCOMM_TRY(scratch(st, (me == root ? 2 : 1) * count * es, dtype, &s));
    memcpy(s, send, count * es);
    char *r = s + count * es;
    for (size_t off = 0, p; off < count; off += p) {
        p = least(count - off, lim);
        MPI_Request req;
        TCOMM_MPI_CHECK(
            MPI_Ireduce(s + off * es, me == root ? r + off * es : NULL, (int)p,
                        tcomm_mpi_datatype(dtype), op, root, c, &req));
        TCOMM_TRY(wait_step(st, &req, STEP "(MPI_Ireduce)"));
    }
    if (me == root)
        memcpy(recv, r, count * es);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_hier_cross_reduce_scatter(const tcomm_mpi_state_t *st,
                                               const void *send, void *recv,
                                               size_t count,
                                               tcomm_dtype_t dtype, MPI_Op op,
                                               const char *fn)
{
    MPI_Comm c = st->hier->cross;
    size_t N = (size_t)st->hier->nodes;
    if (!st->timeout) {
        size_t *counts = malloc(N * sizeof *counts);
        if (!counts)
            return tcomm_mpi_status(MPI_ERR_NO_MEM, fn, __FILE__, __LINE__);
        for (size_t k = 0; k < N; k++)
            counts[k] = count;
        /* MPI_Reduce_scatter with equal counts: Open MPI 4.1's block form
         * reduced to one rank and scattered (doc/performance.md, "Across
         * hosts") */
        int rc =
            tcomm_mpi_reduce_scatter_counts(send, recv, counts, dtype, op, c);
        free(counts);
        return tcomm_mpi_status(rc, fn, __FILE__, __LINE__);
    }
    size_t es = tcomm_dtype_size(dtype);
    size_t step = tcomm_mpi_count_limit() / N ? tcomm_mpi_count_limit() / N : 1;
    size_t most = least(count, step);
    char *s;
    TCOMM_TRY(scratch(st, (N + 1) * most * es, dtype, &s));
    for (size_t off = 0, p; off < count; off += p) {
        p = least(count - off, step);
        for (size_t k = 0; k < N; k++) /* block k's piece, packed */
            memcpy(s + k * p * es, (const char *)send + (k * count + off) * es,
                   p * es);
        MPI_Request req;
        TCOMM_MPI_CHECK(MPI_Ireduce_scatter_block(
            s, s + N * p * es, (int)p, tcomm_mpi_datatype(dtype), op, c, &req));
        TCOMM_TRY(wait_step(st, &req, STEP "(MPI_Ireduce_scatter_block)"));
        memcpy((char *)recv + off * es, s + N * p * es, p * es);
    }
    return TCOMM_SUCCESS;
}

/* One piece of an in-place allgatherv: elements [off, off + step) of
 * every node's block, packed, gathered and put back. */
static tcomm_status_t gather_piece(const tcomm_mpi_state_t *st, char *buf,
                                   const size_t *cnt, const size_t *displs,
                                   tcomm_dtype_t dtype, size_t off, size_t step,
                                   char *s, int *ic)
{
    int N = st->hier->nodes, me = st->hier->node_index;
    size_t es = tcomm_dtype_size(dtype), at = 0;
    for (int k = 0; k < N; k++) {
        ic[k] = (int)(cnt[k] > off ? least(cnt[k] - off, step) : 0);
        ic[N + k] = (int)at;
        at += (size_t)ic[k];
    }
    memcpy(s + (size_t)ic[N + me] * es, buf + (displs[me] + off) * es,
           (size_t)ic[me] * es);
    MPI_Request req;
    TCOMM_MPI_CHECK(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s, ic,
                                    ic + N, tcomm_mpi_datatype(dtype),
                                    st->hier->cross, &req));
    TCOMM_TRY(wait_step(st, &req, STEP "(MPI_Iallgatherv)"));
    for (int k = 0; k < N; k++)
        memcpy(buf + (displs[k] + off) * es, s + (size_t)ic[N + k] * es,
               (size_t)ic[k] * es);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_hier_cross_allgatherv(const tcomm_mpi_state_t *st,
                                           void *buf, const size_t *cnt,
                                           const size_t *displs,
                                           tcomm_dtype_t dtype, const char *fn)
{
    if (!st->timeout)
        return tcomm_mpi_status(tcomm_mpi_allgatherv(MPI_IN_PLACE, 0, buf, cnt,
                                                     displs, dtype,
                                                     st->hier->cross),
                                fn, __FILE__, __LINE__);
    size_t N = (size_t)st->hier->nodes, es = tcomm_dtype_size(dtype);
    size_t step = tcomm_mpi_count_limit() / N ? tcomm_mpi_count_limit() / N : 1;
    size_t most = 0;
    for (size_t k = 0; k < N; k++)
        most = cnt[k] > most ? cnt[k] : most;
    int stack[2 * TCOMM_STACK_RANKS], *ic = stack;
    char *s;
    TCOMM_TRY(scratch(st, N * least(most, step) * es, dtype, &s));
    if (N > TCOMM_STACK_RANKS && !(ic = malloc(2 * N * sizeof *ic)))
        return tcomm_mpi_status(MPI_ERR_NO_MEM, fn, __FILE__, __LINE__);
    tcomm_status_t r = TCOMM_SUCCESS;
    for (size_t off = 0; off < most && r == TCOMM_SUCCESS; off += step)
        r = gather_piece(st, buf, cnt, displs, dtype, off, step, s, ic);
    if (ic != stack)
        free(ic);
    return r;
}

tcomm_status_t tcomm_hier_settle(const tcomm_mpi_state_t *st, tcomm_status_t s)
{
    if (!st->timeout)
        return s;
    const tcomm_mpi_state_t *node = st->hier->node->state;
    int failed = s != TCOMM_SUCCESS, any = failed;
    int rc = MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, node->comm);
    if (s != TCOMM_SUCCESS)
        return s;
    TCOMM_MPI_CHECK(rc);
    if (any)
        return tcomm_timeout_node_failed(st->timeout, st->owner->seq,
                                         "the step across nodes");
    return TCOMM_SUCCESS;
}
