/* SPDX-License-Identifier: BSD-3-Clause */
/* The staged path, for MPI that is not CUDA-aware: chunks of
 * TCOMM_STAGING_CHUNK bytes go device -> pinned host -> MPI -> pinned
 * host -> device through two slots of pinned buffers, so that the copies
 * of chunk k+1 run on the graph's stream while the host runs the MPI call
 * of chunk k. Reductions use the host kernels (MPI user ops, or the
 * rank-order fold in deterministic mode). This file: the pipeline, and
 * the staged all_reduce and broadcast. */
#include <limits.h>

#include "device_path.h"
#include "tcomm_config.h"
#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_user_ops.h"

size_t tcomm_staged_chunk_elems(const tcomm_dev_t *d)
{
    size_t m = tcomm_config()->staging_chunk / d->el;
    if (m == 0)
        m = 1;
    return m > INT_MAX ? (size_t)INT_MAX : m;
}

/* Slot s's work: stage_in(k, s) is marked by event s; the copies of step
 * k+1 are queued before the host waits for step k. Stream order keeps a
 * slot's reuse safe: stage_in(k+2) is queued after stage_out(k), and the
 * host writes slot s (exchange(k+2)) only after waiting for it. */
tcomm_status_t tcomm_pipe_run(tcomm_pipe_t *p)
{
    const tcomm_dev_t *d = p->d;
    tcomm_status_t rc = TCOMM_SUCCESS;

    if (p->steps > 0) {
        rc = p->stage_in(p, 0, 0);
        if (rc == TCOMM_SUCCESS)
            rc = d->sp->record(d->ctx, 0);
    }
    for (size_t k = 0; k < p->steps && rc == TCOMM_SUCCESS; k++) {
        int s = (int)(k & 1);
        if (k + 1 < p->steps) {
            rc = p->stage_in(p, k + 1, s ^ 1);
            if (rc == TCOMM_SUCCESS)
                rc = d->sp->record(d->ctx, s ^ 1);
        }
        if (rc == TCOMM_SUCCESS)
            rc = d->sp->wait(d->ctx, s);
        if (rc == TCOMM_SUCCESS)
            rc = p->exchange(p, k, s);
        if (rc == TCOMM_SUCCESS)
            rc = p->stage_out(p, k, s);
    }
    tcomm_status_t sy = d->sp->synchronize(d->ctx);
    return rc != TCOMM_SUCCESS ? rc : sy;
}

/* ---- all_reduce ---------------------------------------------------- */

typedef struct {
    tcomm_pipe_t p;
    const char *in;
    char *out;
    size_t n, m;
    tcomm_op_t op;
    MPI_Op mop;
    char *buf[2], *scr[2];
} ar_pipe_t;

static size_t ar_count(const ar_pipe_t *a, size_t k)
{
    size_t left = a->n - k * a->m;
    return left < a->m ? left : a->m;
}

static tcomm_status_t ar_in(tcomm_pipe_t *p, size_t k, int s)
{
    ar_pipe_t *a = (ar_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    return d->sp->to_host_async(d->ctx, a->buf[s], a->in + k * a->m * d->el,
                                ar_count(a, k) * d->el);
}

static tcomm_status_t ar_exchange(tcomm_pipe_t *p, size_t k, int s)
{
    ar_pipe_t *a = (ar_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    size_t c = ar_count(a, k);
    if (a->scr[s]) {
        tcomm_folder_t host = { NULL };
        return tcomm_fold_all_reduce(d, &host, a->op, a->buf[s], a->buf[s],
                                     c, a->scr[s]);
    }
    TCOMM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, a->buf[s], (int)c,
                                  tcomm_mpi_datatype(d->dtype), a->mop,
                                  d->st->comm));
    return tcomm_space_finish(&tcomm_memspace_host, NULL, d->dtype, a->op,
                              a->buf[s], c, d->st->size);
}

static tcomm_status_t ar_out(tcomm_pipe_t *p, size_t k, int s)
{
    ar_pipe_t *a = (ar_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    return d->sp->from_host_async(d->ctx, a->out + k * a->m * d->el,
                                  a->buf[s], ar_count(a, k) * d->el);
}

tcomm_status_t tcomm_staged_all_reduce(const tcomm_dev_t *d,
                                       const void *in, void *out, size_t n,
                                       tcomm_op_t op)
{
    ar_pipe_t a = { .p = { d, 0, ar_in, ar_exchange, ar_out },
                    .in = in, .out = out, .n = n, .op = op };
    size_t size = (size_t)d->st->size;
    char *pinned;

    a.m = tcomm_staged_chunk_elems(d);
    if (a.m > n && n > 0)
        a.m = n;
    a.p.steps = n == 0 ? 0 : (n + a.m - 1) / a.m;
    size_t scr = d->det ? (a.m / size + 1) * size : 0;
    if (!d->det)
        TCOMM_MPI_CHECK(tcomm_mpi_op(d->dtype, op, &a.mop));
    TCOMM_TRY(d->sp->staging(d->ctx, 2 * (a.m + scr) * d->el,
                             (void **)&pinned));
    for (int s = 0; s < 2; s++) {
        a.buf[s] = pinned + (size_t)s * (a.m + scr) * d->el;
        a.scr[s] = scr ? a.buf[s] + a.m * d->el : NULL;
    }
    return tcomm_pipe_run(&a.p);
}

/* ---- broadcast ----------------------------------------------------- */

typedef struct {
    tcomm_pipe_t p;
    const char *in;
    char *out;
    size_t n, m;
    int root;
    char *buf[2];
} bc_pipe_t;

static size_t bc_count(const bc_pipe_t *b, size_t k)
{
    size_t left = b->n - k * b->m;
    return left < b->m ? left : b->m;
}

static tcomm_status_t bc_in(tcomm_pipe_t *p, size_t k, int s)
{
    bc_pipe_t *b = (bc_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    if (d->st->rank != b->root)
        return TCOMM_SUCCESS;
    return d->sp->to_host_async(d->ctx, b->buf[s], b->in + k * b->m * d->el,
                                bc_count(b, k) * d->el);
}

static tcomm_status_t bc_exchange(tcomm_pipe_t *p, size_t k, int s)
{
    bc_pipe_t *b = (bc_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    TCOMM_MPI_CHECK(MPI_Bcast(b->buf[s], (int)bc_count(b, k),
                              tcomm_mpi_datatype(d->dtype), b->root,
                              d->st->comm));
    return TCOMM_SUCCESS;
}

static tcomm_status_t bc_out(tcomm_pipe_t *p, size_t k, int s)
{
    bc_pipe_t *b = (bc_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    if (d->st->rank == b->root)
        return TCOMM_SUCCESS;
    return d->sp->from_host_async(d->ctx, b->out + k * b->m * d->el,
                                  b->buf[s], bc_count(b, k) * d->el);
}

tcomm_status_t tcomm_staged_broadcast(const tcomm_dev_t *d, const void *in,
                                      void *out, size_t n, int root)
{
    bc_pipe_t b = { .p = { d, 0, bc_in, bc_exchange, bc_out },
                    .in = in, .out = out, .n = n, .root = root };
    char *pinned;

    b.m = tcomm_staged_chunk_elems(d);
    if (b.m > n && n > 0)
        b.m = n;
    b.p.steps = n == 0 ? 0 : (n + b.m - 1) / b.m;
    if (d->st->rank == root && in != out)
        TCOMM_TRY(d->sp->copy_async(d->ctx, out, in, n * d->el));
    TCOMM_TRY(d->sp->staging(d->ctx, 2 * b.m * d->el, (void **)&pinned));
    b.buf[0] = pinned;
    b.buf[1] = pinned + b.m * d->el;
    return tcomm_pipe_run(&b.p);
}
