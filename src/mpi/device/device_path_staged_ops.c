/* SPDX-License-Identifier: BSD-3-Clause */
/* The staged all_gather and reduce_scatter (pipeline: device_path_staged.c).
 * A step moves at most one staging chunk in total: every rank's piece is
 * chunk / size elements (at least one).
 *
 * all_gather: step k gathers elements [k*q, (k+1)*q) of every rank's
 * block (fewer, or none, where a block is shorter) with MPI_Allgatherv
 * into a pinned buffer, and copies each rank's piece to its place.
 * reduce_scatter (equal or uneven blocks): step k copies elements [k*q,
 * (k+1)*q) of every rank's block into a pinned buffer, reduce-scatters it
 * (MPI, or the host-side rank-order fold in deterministic mode) and
 * copies the result back. */
#include <stdlib.h>

#include "device_path.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_user_ops.h"

static size_t piece_elems(const tcomm_dev_t *d)
{
    size_t q = tcomm_staged_chunk_elems(d) / (size_t)d->st->size;
    return q ? q : 1;
}

/* Elements of block j (count[j] of them) in step k, q per step. */
static size_t step_piece(const size_t *count, size_t q, int j, size_t k)
{
    size_t at = k * q;
    if (at >= count[j])
        return 0;
    return count[j] - at < q ? count[j] - at : q;
}

/* ---- all_gather ---------------------------------------------------- */

typedef struct {
    tcomm_pipe_t p;
    const char *in;
    char *out;
    const size_t *count, *off;
    size_t q;
    int *icount, *idispl;
    char *send[2], *recv[2];
} ag_pipe_t;

static size_t ag_piece(const ag_pipe_t *g, int r, size_t k)
{
    return step_piece(g->count, g->q, r, k);
}

static tcomm_status_t ag_in(tcomm_pipe_t *p, size_t k, int s)
{
    ag_pipe_t *g = (ag_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    size_t c = ag_piece(g, d->st->rank, k);
    if (c == 0)
        return TCOMM_SUCCESS;
    return d->sp->to_host_async(d->ctx, g->send[s], g->in + k * g->q * d->el,
                                c * d->el);
}

static tcomm_status_t ag_exchange(tcomm_pipe_t *p, size_t k, int s)
{
    ag_pipe_t *g = (ag_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    MPI_Datatype type = tcomm_mpi_datatype(d->dtype);
    for (int r = 0; r < d->st->size; r++) {
        g->icount[r] = (int)ag_piece(g, r, k);
        g->idispl[r] = (int)((size_t)r * g->q);
    }
    TCOMM_MPI_CHECK(MPI_Allgatherv(g->send[s], g->icount[d->st->rank], type,
                                   g->recv[s], g->icount, g->idispl, type,
                                   d->st->comm));
    return TCOMM_SUCCESS;
}

static tcomm_status_t ag_out(tcomm_pipe_t *p, size_t k, int s)
{
    ag_pipe_t *g = (ag_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    for (int r = 0; r < d->st->size; r++) {
        size_t c = ag_piece(g, r, k);
        if (c == 0)
            continue;
        TCOMM_TRY(d->sp->from_host_async(
            d->ctx, g->out + (g->off[r] + k * g->q) * d->el,
            g->recv[s] + (size_t)r * g->q * d->el, c * d->el));
    }
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_staged_all_gather(const tcomm_dev_t *d,
                                       const void *in, void *out,
                                       const size_t *count,
                                       const size_t *off)
{
    ag_pipe_t g = { .p = { d, 0, ag_in, ag_exchange, ag_out },
                    .in = in, .out = out, .count = count, .off = off };
    size_t size = (size_t)d->st->size, longest = 0;
    char *pinned;

    g.q = piece_elems(d);
    for (size_t r = 0; r < size; r++)
        longest = count[r] > longest ? count[r] : longest;
    if (g.q > longest && longest > 0)
        g.q = longest;
    g.p.steps = (longest + g.q - 1) / g.q;
    g.icount = malloc(2 * size * sizeof *g.icount);
    if (!g.icount)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_all_gather: out of host memory for %zu "
                           "ranks' counts", size);
    g.idispl = g.icount + size;
    size_t slot = (1 + size) * g.q * d->el;
    tcomm_status_t rc = d->sp->staging(d->ctx, 2 * slot, (void **)&pinned);
    if (rc == TCOMM_SUCCESS) {
        for (int s = 0; s < 2; s++) {
            g.send[s] = pinned + (size_t)s * slot;
            g.recv[s] = g.send[s] + g.q * d->el;
        }
        rc = tcomm_pipe_run(&g.p);
    }
    free(g.icount);
    return rc;
}

/* ---- reduce_scatter ------------------------------------------------ */

/* Block j (count[j] elements at in + off[j]) gives its piece [k*q,
 * (k+1)*q) to step k, fewer or none where it is shorter; the pieces sit
 * back to back in the slot. Every rank has the same counts, so the ranks
 * agree on the steps and each step's counts. */
typedef struct {
    tcomm_pipe_t p;
    const char *in;
    char *out;
    const size_t *count, *off;
    size_t q;
    int equal;      /* equal blocks: MPI_Reduce_scatter_block */
    size_t *piece, *at; /* this step's pieces and their slot offsets */
    int *icount;
    tcomm_op_t op;
    MPI_Op mop;
    char *send[2], *recv[2], *scr[2];
} rs_pipe_t;

static size_t rs_piece(const rs_pipe_t *r, int j, size_t k)
{
    return step_piece(r->count, r->q, j, k);
}

/* The step's pieces and slot offsets (the host runs this before the
 * stage_in and the exchange of the step). */
static void rs_plan(rs_pipe_t *r, size_t k)
{
    size_t at = 0;
    for (int j = 0; j < r->p.d->st->size; j++) {
        r->piece[j] = rs_piece(r, j, k);
        r->at[j] = at;
        r->icount[j] = (int)r->piece[j];
        at += r->piece[j];
    }
}

static tcomm_status_t rs_in(tcomm_pipe_t *p, size_t k, int s)
{
    rs_pipe_t *r = (rs_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    size_t at = 0;
    for (int j = 0; j < d->st->size; j++) {
        size_t len = rs_piece(r, j, k);
        if (len)
            TCOMM_TRY(d->sp->to_host_async(
                d->ctx, r->send[s] + at * d->el,
                r->in + (r->off[j] + k * r->q) * d->el, len * d->el));
        at += len;
    }
    return TCOMM_SUCCESS;
}

static tcomm_status_t rs_exchange(tcomm_pipe_t *p, size_t k, int s)
{
    rs_pipe_t *r = (rs_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    rs_plan(r, k);
    size_t len = r->piece[d->st->rank];
    if (r->scr[s]) {
        tcomm_folder_t host = { NULL };
        return tcomm_fold_reduce_scatter_v(d, &host, r->op, r->send[s],
                                           r->piece, r->at, r->recv[s],
                                           r->scr[s]);
    }
    MPI_Datatype type = tcomm_mpi_datatype(d->dtype);
    if (r->equal)
        TCOMM_MPI_CHECK(MPI_Reduce_scatter_block(r->send[s], r->recv[s],
                                                 (int)len, type, r->mop,
                                                 d->st->comm));
    else
        TCOMM_MPI_CHECK(MPI_Reduce_scatter(r->send[s], r->recv[s],
                                           r->icount, type, r->mop,
                                           d->st->comm));
    return tcomm_space_finish(&tcomm_memspace_host, NULL, d->dtype, r->op,
                              r->recv[s], len, d->st->size);
}

static tcomm_status_t rs_out(tcomm_pipe_t *p, size_t k, int s)
{
    rs_pipe_t *r = (rs_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    size_t len = rs_piece(r, d->st->rank, k);
    if (len == 0)
        return TCOMM_SUCCESS;
    return d->sp->from_host_async(d->ctx, r->out + k * r->q * d->el,
                                  r->recv[s], len * d->el);
}

tcomm_status_t tcomm_staged_reduce_scatter_v(const tcomm_dev_t *d,
                                             const void *in, void *out,
                                             const size_t *count,
                                             const size_t *off,
                                             tcomm_op_t op)
{
    rs_pipe_t r = { .p = { d, 0, rs_in, rs_exchange, rs_out },
                    .in = in, .out = out, .count = count, .off = off,
                    .equal = 1, .op = op };
    size_t size = (size_t)d->st->size, longest = 0;
    char *pinned;

    for (size_t j = 0; j < size; j++) {
        longest = count[j] > longest ? count[j] : longest;
        r.equal &= count[j] == count[0];
    }
    r.q = piece_elems(d);
    if (r.q > longest && longest > 0)
        r.q = longest;
    r.p.steps = (longest + r.q - 1) / r.q;
    if (!d->det)
        TCOMM_MPI_CHECK(tcomm_mpi_op(d->dtype, op, &r.mop));
    size_t *a = tcomm_dev_counts(d, 3);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    r.piece = a;
    r.at = a + size;
    r.icount = (int *)(a + 2 * size); /* size ints fit in size size_ts */
    size_t scr = d->det ? size * r.q : 0;
    size_t slot = (size * r.q + r.q + scr) * d->el;
    tcomm_status_t rc = d->sp->staging(d->ctx, 2 * slot, (void **)&pinned);
    if (rc == TCOMM_SUCCESS) {
        for (int s = 0; s < 2; s++) {
            r.send[s] = pinned + (size_t)s * slot;
            r.recv[s] = r.send[s] + size * r.q * d->el;
            r.scr[s] = scr ? r.recv[s] + r.q * d->el : NULL;
        }
        rc = tcomm_pipe_run(&r.p);
    }
    free(a);
    return rc;
}

tcomm_status_t tcomm_staged_reduce_scatter(const tcomm_dev_t *d,
                                           const void *in, void *out,
                                           size_t count, tcomm_op_t op)
{
    size_t size = (size_t)d->st->size;
    size_t *a = tcomm_dev_counts(d, 2);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    for (size_t j = 0; j < size; j++) {
        a[j] = count;
        a[size + j] = j * count;
    }
    tcomm_status_t rc = tcomm_staged_reduce_scatter_v(d, in, out, a,
                                                      a + size, op);
    free(a);
    return rc;
}
