/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all when the blocks are strided on one side at least (split or
 * concat along a dim with a size > 1 before it): candidates (b)-(d) and
 * the dispatch among them and (a), the temporary (alltoall_flat.c).
 *   (b) alltoallw: MPI_Alltoallw, a vector datatype per peer and side;
 *   (c) vector: one Isend/Irecv per peer through the same datatypes;
 *   (d) rows: one message per run contiguous on both sides, in place.
 * bench/alltoall_candidates.c times them (numbers at the dispatch). */
#include <limits.h>
#include <string.h>

#include "tcomm_mpi_alltoall.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_call.h"

#define TCOMM_A2A_ROWS_TAG 0x7a2b
/* Requests per window of rows: 8 KiB of MPI_Request on the stack. */
#define ROWS_WINDOW 1024

int tcomm_a2a_fits_int(const tcomm_a2a_plan_t *p)
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
static int make_types(const tcomm_a2a_plan_t *p, MPI_Datatype base,
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

int tcomm_a2a_alltoallw(const tcomm_a2a_plan_t *p, const void *in,
                        void *out, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(p->dtype);
    MPI_Datatype st[TCOMM_STACK_RANKS], rt[TCOMM_STACK_RANKS];
    int sc[TCOMM_STACK_RANKS], sd[TCOMM_STACK_RANKS];
    int rcn[TCOMM_STACK_RANKS], rd[TCOMM_STACK_RANKS], rc, n = p->nranks;

    if (n > TCOMM_STACK_RANKS)
        return MPI_ERR_COUNT; /* the caller checked tcomm_a2a_fits_int */
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

int tcomm_a2a_vector(const tcomm_a2a_plan_t *p, const void *in, void *out,
                     MPI_Comm comm)
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
                           TCOMM_A2A_ROWS_TAG, comm, &req[nr++]);
    }
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        int r = (p->rank + k) % n;
        if (sc[r])
            rc = MPI_Isend((const char *)in + p->soff[r] * es, sc[r], st[r],
                           r, TCOMM_A2A_ROWS_TAG, comm, &req[nr++]);
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

/* The run of (d): a length contiguous on both sides of an equal call. */
static size_t common_run(const tcomm_a2a_plan_t *p)
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

int tcomm_a2a_rows(const tcomm_a2a_plan_t *p, const void *in, void *out,
                   MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(p->dtype);
    MPI_Request req[ROWS_WINDOW];
    size_t es = p->es, e = p->souter * p->sw[0], g, m, win;
    int n = p->nranks, rc = MPI_SUCCESS;

    if (e == 0)
        return MPI_SUCCESS;
    g = common_run(p);
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
                rc = MPI_Irecv((char *)out + at(i * g, p->rw[r], p->roff[r],
                                                p->rtotal) * es,
                               (int)g, base, r, TCOMM_A2A_ROWS_TAG, comm,
                               &req[nr++]);
        }
        for (int k = 1; k < n && rc == MPI_SUCCESS; k++) {
            int r = (p->rank + k) % n;
            for (size_t i = i0; i < i1 && rc == MPI_SUCCESS; i++)
                rc = MPI_Isend((const char *)in + at(i * g, p->sw[r],
                                                     p->soff[r], p->stotal) *
                                                      es,
                               (int)g, base, r, TCOMM_A2A_ROWS_TAG, comm,
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

/* The dispatch, measured on 2 ranks, [64, n/64] f32 (bench/
 * alltoall_candidates, lower quartile of 40 interleaved calls on a
 * shared 2-core machine, ratios +-0.2 between runs), ratio to raw
 * MPI_Alltoall of the same bytes; split/concat 0/1 and 1/0 have one
 * strided side, 1/1 two:
 *
 *   bytes  s/c  (a)pack (b)a2aw (c)vec (d)rows (e)pull  kept
 *   4 KiB  0/1   1.80    2.32    2.59   7.25    6.11   pack
 *          1/0   1.50    3.52    3.24  13.35    7.72   pack
 *          1/1   1.62    4.48    4.35  13.17   36.09   pack
 *  64 KiB  0/1   1.31    1.38    1.30   1.77    1.28   pull
 *          1/0   2.18    2.23    1.65   3.55    1.58   pull
 *          1/1   2.40    2.31    1.68   2.81    5.35   vec
 * 256 KiB  0/1   1.38    1.34    1.57   5.21    1.11   pull
 *          1/0   2.19    1.40    1.83   1.69    1.27   pull
 *          1/1   2.13    1.42    1.90   1.80    2.96   a2aw
 *   1 MiB  0/1   1.47    1.76    1.68   2.33    1.10   pull
 *          1/0   1.51    1.77    1.95   3.45    1.16   pull
 *          1/1   1.99    1.81    1.97   3.43    1.49   pull
 *   4 MiB  0/1   1.75    1.76    1.61   1.41    0.86   pull
 *          1/0   2.42    6.19    4.61   1.87    0.90   pull
 *          1/1   2.94    4.04    4.30   1.65    0.85   pull
 *  16 MiB  0/1   1.73    3.42    3.26   1.09    1.02   pull
 *          1/0   1.73    3.31    3.43   1.09    1.01   pull
 *          1/1  10.18    4.40    4.28   1.18    0.66   pull
 *
 * A second run, at load 3-5, had the pull further ahead at 64 KiB (1.14
 * and 1.36 against 1.30-3.71); at 16 KiB it lost in the first run (1.37
 * and 1.69 against 0.90 and 0.96). Hence its threshold of 64 KiB.
 *
 * Why: MPI_Alltoall of contiguous blocks is one copy per byte (vader's
 * CMA rendezvous); a derived datatype or a temporary is two (copy-in/
 * copy-out, or the exchange plus pack/unpack), and one message per row
 * costs ~2-5 us a row, hidden only once rows are tens of KiB. The pull
 * is the single copy with the strides in its scatter lists; it has ~4 us
 * of fixed cost (two small MPI calls) and ~0.3 us per remote row, so it
 * goes first from 64 KiB with one strided side and from 1 MiB with two
 * (TCOMM_A2A_PULL_MIN).
 * Below, and where it cannot run (not one node, no ptrace rights): the
 * temporary under 16 KiB (a few memcpy of little data beat any
 * datatype), per-peer vector messages under 256 KiB, then per-run
 * messages where a run has 32 KiB or more, else MPI_Alltoallw with two
 * strided sides and the temporary with one. The temporary is kept off
 * two strided sides above 16 KiB: its buffer is twice the tensor, and
 * above glibc's 32 MiB mmap ceiling it comes fresh from mmap on every
 * call, its page faults costing 10x at 16 MiB. Every term is the same
 * on every rank of an equal call. */
#define PACK_MAX ((size_t)16 << 10)
#define VECTOR_MAX ((size_t)256 << 10)
#define RUN_MIN ((size_t)32 << 10)

int tcomm_a2a_strided(const tcomm_a2a_plan_t *p, const void *in, void *out,
                      MPI_Comm comm, tcomm_path_t *path)
{
    size_t bytes = p->souter * p->stotal * p->es;
    int two = p->souter > 1 && p->router > 1, rc;

    if (!p->fits || !tcomm_a2a_fits_int(p))
        return tcomm_a2a_pack(p, in, out, 1, comm, path);
    int tier = tcomm_a2a_pull_tier(p, TCOMM_A2A_PULL_MIN(two));
    if (tier != TCOMM_NODE_MPI) {
        int done;
        rc = tcomm_a2a_pull(p, in, out, comm, tier, &done);
        if (rc != MPI_SUCCESS || done) {
            *path = TCOMM_PATH_MPI_ALLTOALL_PULL;
            return rc;
        }
    }
    if (bytes < PACK_MAX)
        return tcomm_a2a_pack(p, in, out, 1, comm, path);
    if (bytes < VECTOR_MAX) {
        *path = TCOMM_PATH_MPI_ALLTOALL_VECTOR;
        return tcomm_a2a_vector(p, in, out, comm);
    }
    if (common_run(p) * p->es >= RUN_MIN) {
        *path = TCOMM_PATH_MPI_ALLTOALL_ROWS;
        return tcomm_a2a_rows(p, in, out, comm);
    }
    if (!two)
        return tcomm_a2a_pack(p, in, out, 1, comm, path);
    *path = TCOMM_PATH_MPI_ALLTOALLW;
    return tcomm_a2a_alltoallw(p, in, out, comm);
}
