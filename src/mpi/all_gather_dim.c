/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather along a dim > 0: in is [outer][seg[rank]], out is
 * [outer][total], rank r's rows at column off[r] = sum(seg[0..r)).
 *
 * Candidates (bench/reshape_candidates.c times them; numbers below):
 *   (a) tmp:  MPI_Allgatherv into a rank-major temporary + gather_unpack;
 *   (b) alltoallw: a vector receive type per peer, landing in place;
 *   (c) rows: one Isend/Irecv per row and peer, landing in place;
 *   (c') vec: one Isend/Irecv per peer with a vector receive type;
 *   (d) pipe: (a) in groups of rows, unpack of group k while group k+1
 *       moves (MPI_Iallgatherv, progressed by MPI_Test between rows);
 *   (e) pull: on one node, each rank reads the peers' rows into place
 *       with process_vm_readv, synchronised by MPI
 *       (src/mpi/node/all_gather_attach.c); the node protocol's pull
 *       (src/mpi/node/node_gather.c) runs before any of these.
 * (b), (c), (c') and (d) are in bench/allgather_candidates.c; this file
 * has the shared per-call layout, (a) and the dispatch (at the end). */
#include <limits.h>
#include <stdlib.h>

#include "tcomm_host_kernels.h"
#include "tcomm_mpi_reshape.h"

int tcomm_all_gather_plan_init(tcomm_all_gather_plan_t *p, tcomm_dtype_t dtype,
                               size_t outer, const size_t *seg, MPI_Comm comm)
{
    int rc;
    size_t *mem = p->stack;

    rc = tcomm_mpi_layout(dtype, comm, &p->es, &p->nranks, &p->rank);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p->nranks > TCOMM_STACK_RANKS) {
        mem = malloc((3 * (size_t)p->nranks + 1) * sizeof *mem);
        if (mem == NULL)
            return MPI_ERR_NO_MEM;
    }
    p->off = mem;
    p->cnt = mem + p->nranks + 1;
    p->dsp = p->cnt + p->nranks;
    p->off[0] = 0;
    for (int r = 0; r < p->nranks; r++) {
        p->off[r + 1] = p->off[r] + seg[r];
        p->cnt[r] = outer * seg[r];
        p->dsp[r] = outer * p->off[r];
    }
    p->total = p->off[p->nranks];
    return MPI_SUCCESS;
}

void tcomm_all_gather_plan_free(tcomm_all_gather_plan_t *p)
{
    if (p->off != p->stack)
        free(p->off);
}

int tcomm_mpi_all_gather_dim_tmp(const void *in, void *out, tcomm_dtype_t dtype,
                                 size_t outer, const size_t *seg, MPI_Comm comm)
{
    tcomm_all_gather_plan_t p;
    char *tmp;
    int ok, all = 0,
            rc = tcomm_all_gather_plan_init(&p, dtype, outer, seg, comm);

    if (rc != MPI_SUCCESS)
        return rc;
    /* every rank must have its temporary, or nobody goes on */
    tmp = malloc(outer * p.total * p.es + 1);
    ok = tmp != NULL;
    rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS || !all) {
        free(tmp);
        tcomm_all_gather_plan_free(&p);
        return rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    }
    rc = tcomm_mpi_allgatherv(in, p.cnt[p.rank], tmp, p.cnt, p.dsp, dtype,
                              comm);
    if (rc == MPI_SUCCESS)
        tcomm_host_gather_unpack(tmp, out, p.es, outer, p.nranks, seg);
    free(tmp);
    tcomm_all_gather_plan_free(&p);
    return rc;
}

/* Vector type of rank r's rows in out, or MPI_DATATYPE_NULL if empty. */
int tcomm_all_gather_rows_type(const tcomm_all_gather_plan_t *p,
                               MPI_Datatype base, size_t outer, size_t seg,
                               MPI_Datatype *type)
{
    int rc;

    *type = MPI_DATATYPE_NULL;
    if (outer == 0 || seg == 0)
        return MPI_SUCCESS;
    rc = MPI_Type_vector((int)outer, (int)seg, (int)p->total, base, type);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(type)) != MPI_SUCCESS)
        MPI_Type_free(type);
    return rc;
}

/* Do outer, seg, total and the byte offsets fit the int arguments of the
 * derived-datatype paths? (The same answer on every rank.) */
int tcomm_all_gather_fits_int(const tcomm_all_gather_plan_t *p, size_t outer)
{
    return outer <= INT_MAX && p->total <= INT_MAX &&
           p->total * p->es <= INT_MAX && outer * p->total <= INT_MAX;
}

/* A sender's rows travel as separate messages when a row is at least
 * this big (each then lands in place by Open MPI's single-copy CMA
 * rendezvous), else as one message received through a vector type (one
 * message, but copied twice through shared memory). */
#define TCOMM_ROW_MSG_BYTES ((size_t)32 << 10)
/* Requests per window of rows: 8 KiB of MPI_Request on the stack. */
#define TCOMM_WINDOW_REQS 1024

/* Up to this many output bytes the gather goes through a temporary on
 * the stack (a few memcpy of little data beat any datatype). */
#define TCOMM_ALL_GATHER_STACK ((size_t)16 << 10)

/* The pull pays once the largest input is this big (below, its two
 * extra small MPI calls and the system calls cost more than they save;
 * measured where it runs now, without a node segment: doc/performance.md). */
#define TCOMM_PULL_MIN_BYTES ((size_t)64 << 10)

static int pull_pays(const tcomm_all_gather_plan_t *p, size_t outer,
                     const size_t *seg)
{
    size_t most = 0;
    for (int r = 0; r < p->nranks; r++)
        if (seg[r] > most)
            most = seg[r];
    return outer * most * p->es >= TCOMM_PULL_MIN_BYTES;
}

/* The dispatch, measured on 2 ranks, [64, n/64] f32, lower quartile of
 * 40 interleaved calls on a shared 2-core machine (noisy: ratios moved
 * by +-0.3 between runs), ratio to raw MPI_Allgather of the same bytes:
 *
 *   bytes   (a)tmp (b)a2aw (c)rows (c')vec (d)pipe  kept
 *   1 MiB    1.16   0.88    1.51    0.62    1.27   vec   (8 KiB rows)
 *   2 MiB    1.40   0.78    0.98    0.56    1.26   vec   (16 KiB rows)
 *   4 MiB    2.85   3.17    1.28    1.68    1.71   rows  (32 KiB rows)
 *   8 MiB    2.71   3.03    1.27    2.37    2.35   rows
 *  16 MiB    1.72   1.50    1.05    1.33    1.45   rows
 *
 * Why: MPI_Allgather of contiguous blocks is one CMA copy per byte;
 * anything through a temporary or a derived datatype is two copies
 * (copy-in/copy-out through vader's fragments, or allgather + unpack);
 * rows landing in place keep the single copy but pay ~2-5 us per
 * message, which is hidden once rows are tens of KiB. So: per sender,
 * rows as messages when they are >= 32 KiB, else one vector message.
 * Nothing is allocated (no agreement needed); the choice per sender
 * depends only on seg[] and the dtype, which every rank knows.
 *
 * On one node with the node segment (any number of ranks), the
 * backend does not come here from 4 KiB a rank: the node protocol's
 * single copy (src/mpi/node/node_gather.c) goes first along every dim.
 * It fixed the cliff at 8-128 KiB, where (c') ran: vader cannot read a
 * non-contiguous receive type in place, so the bytes went twice through
 * its fragments, and the old (e), with its two MPI calls, started at
 * 256 KiB. What remains here: up to 16 KiB of output a temporary
 * on the stack (one MPI_Allgatherv and a few memcpy, no allocation to
 * agree on; it beats (c')); (e), the MPI-synchronised pull, from
 * 64 KiB a rank where the node protocol does not run (a timeout set:
 * no node segment); the table above otherwise. Numbers in
 * doc/performance.md ("Single-copy gathers on one node"). */
int tcomm_mpi_all_gather_dim(const void *in, void *out, tcomm_dtype_t dtype,
                             size_t outer, const size_t *seg, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(dtype), type;
    MPI_Request req[TCOMM_WINDOW_REQS];
    tcomm_all_gather_plan_t p;
    int rc = tcomm_all_gather_plan_init(&p, dtype, outer, seg, comm), nr = 0,
        win;
    size_t es, o0, o;

    if (rc != MPI_SUCCESS)
        return rc;
    es = p.es;
    if (p.nranks == 1 || outer == 0) {
        tcomm_all_gather_unpack_one(&p, in, out, outer, 0, seg);
        tcomm_all_gather_plan_free(&p);
        return MPI_SUCCESS;
    }
    if (outer == 1) { /* blocks are contiguous: straight into out */
        rc = tcomm_mpi_allgatherv(in, seg[p.rank], out, seg, p.off, dtype,
                                  comm);
        tcomm_all_gather_plan_free(&p);
        return rc;
    }
    if (outer * p.total * es <= TCOMM_ALL_GATHER_STACK) {
        /* small: one MPI_Allgatherv into a temporary on the stack (no
         * allocation to agree on), placed by memcpy */
        char tmp[TCOMM_ALL_GATHER_STACK];
        rc = tcomm_mpi_allgatherv(in, p.cnt[p.rank], tmp, p.cnt, p.dsp,
                                  dtype, comm);
        if (rc == MPI_SUCCESS)
            tcomm_host_gather_unpack(tmp, out, es, outer, p.nranks, seg);
        tcomm_all_gather_plan_free(&p);
        return rc;
    }
    if (pull_pays(&p, outer, seg)) {
        int done;
        rc = tcomm_all_gather_pull(&p, in, out, outer, seg, comm, &done);
        if (rc != MPI_SUCCESS || done) {
            tcomm_all_gather_plan_free(&p);
            return rc;
        }
    }
    if (!tcomm_all_gather_fits_int(&p, outer) ||
        2 * p.nranks > TCOMM_WINDOW_REQS) {
        tcomm_all_gather_plan_free(&p);
        return tcomm_mpi_all_gather_dim_tmp(in, out, dtype, outer, seg, comm);
    }
#define ROWS_MODE(r) (seg[r] * es >= TCOMM_ROW_MSG_BYTES)
    /* one vector message from/to each small-row peer */
    for (int r = 0; r < p.nranks && rc == MPI_SUCCESS; r++) {
        if (r == p.rank || ROWS_MODE(r))
            continue;
        rc = tcomm_all_gather_rows_type(&p, base, outer, seg[r], &type);
        if (rc != MPI_SUCCESS || type == MPI_DATATYPE_NULL)
            continue;
        rc = MPI_Irecv((char *)out + p.off[r] * es, 1, type, r,
                       TCOMM_ALL_GATHER_TAG, comm, &req[nr++]);
        MPI_Type_free(&type);
    }
    for (int r = 0; r < p.nranks && !ROWS_MODE(p.rank) && seg[p.rank] &&
                    rc == MPI_SUCCESS; r++)
        if (r != p.rank)
            rc = MPI_Isend(in, (int)(outer * seg[p.rank]), base, r,
                           TCOMM_ALL_GATHER_TAG, comm, &req[nr++]);
    tcomm_all_gather_copy_own(&p, in, out, outer, seg);
    /* the big-row peers, a window of rows at a time */
    win = (TCOMM_WINDOW_REQS - nr) / (2 * p.nranks);
    for (o0 = 0; o0 < outer && rc == MPI_SUCCESS; o0 += (size_t)win) {
        size_t o1 = o0 + (size_t)win < outer ? o0 + (size_t)win : outer;
        int n0 = nr;
        for (int r = 0; r < p.nranks && rc == MPI_SUCCESS; r++) {
            if (r == p.rank)
                continue;
            for (o = o0; o < o1 && ROWS_MODE(r) && rc == MPI_SUCCESS; o++)
                rc = MPI_Irecv((char *)out + (o * p.total + p.off[r]) * es,
                               (int)seg[r], base, r, TCOMM_ALL_GATHER_TAG, comm,
                               &req[nr++]);
            for (o = o0; o < o1 && ROWS_MODE(p.rank) && rc == MPI_SUCCESS;
                 o++)
                rc = MPI_Isend((const char *)in + o * seg[p.rank] * es,
                               (int)seg[p.rank], base, r, TCOMM_ALL_GATHER_TAG,
                               comm, &req[nr++]);
        }
        if (rc == MPI_SUCCESS)
            rc = tcomm_mpi_waitall((size_t)(nr - n0), req + n0);
        nr = n0;
    }
#undef ROWS_MODE
    if (rc == MPI_SUCCESS)
        rc = tcomm_mpi_waitall((size_t)nr, req);
    tcomm_all_gather_plan_free(&p);
    return rc;
}
