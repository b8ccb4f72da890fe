/* SPDX-License-Identifier: BSD-3-Clause */
/* The all-to-all of device blocks (all_to_all, all_to_all_v): rank j
 * receives block j (scount[j] elements at send + soff[j]); rank r's
 * block for us lands at recv + roff[r].
 *
 * direct: the stream is synchronized and the device pointers go to
 *   tcomm_dev_alltoallv (point to point, pieces of at most the MPI count
 *   limit);
 * staged: the pipeline of device_path_staged.c; step k moves elements
 *   [k*q, (k+1)*q) of every block (fewer, or none, where a block is
 *   shorter), q = staging chunk / size, through the slots' pinned send
 *   and receive areas (block j at j * q of each), with the same
 *   tcomm_dev_alltoallv on the host buffers. A rank's steps depend on its
 *   own counts only: a step's messages pair up since the sender's block
 *   for us is exactly our block from it, cut into the same pieces. */
#include <stdlib.h>

#include "device_path.h"
#include "tcomm_mpi_kernels.h"

typedef struct {
    tcomm_pipe_t p;
    const char *send;
    char *recv;
    const size_t *scount, *soff, *rcount, *roff;
    size_t q;
    size_t *ps, *pr, *at; /* this step's pieces; slot offsets j * q */
    char *sbuf[2], *rbuf[2];
} xc_pipe_t;

static size_t xc_piece(const xc_pipe_t *x, size_t count, size_t k)
{
    size_t at = k * x->q;
    if (at >= count)
        return 0;
    return count - at < x->q ? count - at : x->q;
}

static tcomm_status_t xc_in(tcomm_pipe_t *p, size_t k, int s)
{
    xc_pipe_t *x = (xc_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    for (int j = 0; j < d->st->size; j++) {
        size_t c = xc_piece(x, x->scount[j], k);
        if (c)
            TCOMM_TRY(d->sp->to_host_async(
                d->ctx, x->sbuf[s] + (size_t)j * x->q * d->el,
                x->send + (x->soff[j] + k * x->q) * d->el, c * d->el));
    }
    return TCOMM_SUCCESS;
}

static tcomm_status_t xc_exchange(tcomm_pipe_t *p, size_t k, int s)
{
    xc_pipe_t *x = (xc_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    for (int j = 0; j < d->st->size; j++) {
        x->ps[j] = xc_piece(x, x->scount[j], k);
        x->pr[j] = xc_piece(x, x->rcount[j], k);
    }
    return tcomm_dev_alltoallv(d, x->sbuf[s], x->ps, x->at, x->rbuf[s],
                               x->pr, x->at);
}

static tcomm_status_t xc_out(tcomm_pipe_t *p, size_t k, int s)
{
    xc_pipe_t *x = (xc_pipe_t *)p;
    const tcomm_dev_t *d = p->d;
    for (int r = 0; r < d->st->size; r++) {
        size_t c = xc_piece(x, x->rcount[r], k);
        if (c)
            TCOMM_TRY(d->sp->from_host_async(
                d->ctx, x->recv + (x->roff[r] + k * x->q) * d->el,
                x->rbuf[s] + (size_t)r * x->q * d->el, c * d->el));
    }
    return TCOMM_SUCCESS;
}

static tcomm_status_t staged_exchange(const tcomm_dev_t *d, const void *send,
                                      const size_t *scount,
                                      const size_t *soff, void *recv,
                                      const size_t *rcount,
                                      const size_t *roff)
{
    xc_pipe_t x = { .p = { d, 0, xc_in, xc_exchange, xc_out },
                    .send = send, .recv = recv, .scount = scount,
                    .soff = soff, .rcount = rcount, .roff = roff };
    size_t size = (size_t)d->st->size, longest = 0;
    for (size_t j = 0; j < size; j++) {
        longest = scount[j] > longest ? scount[j] : longest;
        longest = rcount[j] > longest ? rcount[j] : longest;
    }
    x.q = tcomm_staged_chunk_elems(d) / size;
    x.q = x.q ? x.q : 1;
    if (x.q > longest && longest > 0)
        x.q = longest;
    x.p.steps = (longest + x.q - 1) / x.q;
    if (x.p.steps == 0) /* nothing to move, nothing queued to wait for */
        return d->sp->synchronize(d->ctx);
    size_t *a = tcomm_dev_counts(d, 3);
    if (!a)
        return TCOMM_ERR_NO_MEMORY;
    x.ps = a;
    x.pr = a + size;
    x.at = a + 2 * size;
    for (size_t j = 0; j < size; j++)
        x.at[j] = j * x.q;
    size_t slot = 2 * size * x.q * d->el;
    char *pinned;
    tcomm_status_t rc = d->sp->staging(d->ctx, 2 * slot, (void **)&pinned);
    if (rc == TCOMM_SUCCESS) {
        for (int s = 0; s < 2; s++) {
            x.sbuf[s] = pinned + (size_t)s * slot;
            x.rbuf[s] = x.sbuf[s] + size * x.q * d->el;
        }
        rc = tcomm_pipe_run(&x.p);
    }
    free(a);
    return rc;
}

tcomm_status_t tcomm_dev_exchange(const tcomm_dev_t *d, const void *send,
                                  const size_t *scount, const size_t *soff,
                                  void *recv, const size_t *rcount,
                                  const size_t *roff)
{
    if (!tcomm_dev_use_direct(d))
        return staged_exchange(d, send, scount, soff, recv, rcount, roff);
    TCOMM_TRY(d->sp->synchronize(d->ctx));
    return tcomm_dev_alltoallv(d, send, scount, soff, recv, rcount, roff);
}
