/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_scatter along a dim > 0: in is [outer][nranks * chunk], out is
 * [outer][chunk], the reduction of columns [rank * chunk, (rank+1) *
 * chunk) of every rank's in.
 *
 * Candidates (bench/reshape_candidates.c; numbers at the dispatch):
 *   pack: scatter_pack into a rank-major temporary, then one
 *         MPI_Reduce_scatter_block whose result lands in out directly
 *         (block r of the temporary is [outer][chunk], out's shape);
 *   pipe: the same in groups of at most TCOMM_RS_PIPE_BYTES: pack group
 *         k + 1 while group k is reduced (MPI_Ireduce_scatter_block,
 *         progressed by MPI_Test). A group is several whole rows, or,
 *         when one row is wider than a group, a range of columns of one
 *         row, so that its temporary never exceeds two groups whatever
 *         the shape.
 *
 * Temporaries and agreement: a temporary that one rank fails to
 * allocate while the others go ahead would leave the others waiting in
 * the collective. Temporaries up to TCOMM_RS_STACK bytes live on the
 * stack; larger ones are malloc'd and the ranks agree with one small
 * MPI_Allreduce that every rank got its buffer (MPI_ERR_NO_MEM on every
 * rank otherwise). That costs one latency (~1-2 us on shared memory)
 * against transfers of at least TCOMM_RS_STACK bytes (see the bench). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_mpi_reshape.h"


/* A per-thread cached temporary: a fresh malloc above glibc's mmap
 * threshold is an mmap whose pages fault in on every call, which cost
 * more than the reduction itself (1 MiB: 1.6 ms instead of 0.4). It is
 * allocated once, at the most the dispatch ever asks for (the
 * pipeline's two groups), so that it never moves or grows: it used to
 * follow the largest call seen, up to 8 MiB, and so kept growing in a
 * long run (doc/reliability.md, soak). Larger temporaries (only pack
 * called directly asks for them) are malloc'd per call. A thread's
 * cache is freed when the thread exits. */
#define TCOMM_RS_CACHE (2 * TCOMM_RS_PIPE_BYTES)
static _Thread_local char *rs_cache;
static pthread_key_t rs_key;
static pthread_once_t rs_once = PTHREAD_ONCE_INIT;
static int rs_key_ok;

static void rs_key_init(void)
{
    rs_key_ok = pthread_key_create(&rs_key, free) == 0;
}

/* This thread's cache, or NULL if it cannot have one. */
static char *rs_cache_get(void)
{
    if (rs_cache != NULL)
        return rs_cache;
    pthread_once(&rs_once, rs_key_init);
    if (!rs_key_ok) /* it could not be freed at thread exit */
        return NULL;
    char *p = malloc(TCOMM_RS_CACHE);
    if (p != NULL && pthread_setspecific(rs_key, p) != 0) {
        free(p);
        p = NULL;
    }
    return rs_cache = p;
}

/* Allocate bytes (on the stack buffer if it fits, else the cache or the
 * heap) and agree with the other ranks that everybody has one. */
int tcomm_rs_alloc(size_t bytes, char *stack, char **buf, MPI_Comm comm)
{
    int ok, all = 0, rc;

    if (bytes <= TCOMM_RS_STACK) {
        *buf = stack;
        return MPI_SUCCESS;
    }
    *buf = bytes <= TCOMM_RS_CACHE ? rs_cache_get() : NULL;
    if (*buf == NULL)
        *buf = malloc(bytes);
    ok = *buf != NULL;
    rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && !all)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        if (*buf != rs_cache)
            free(*buf);
        *buf = NULL;
    }
    return rc;
}

void tcomm_rs_free(char *buf, char *stack)
{
    if (buf != stack && buf != rs_cache)
        free(buf);
}

int tcomm_mpi_reduce_scatter_dim_pack(const void *in, void *out,
                                      tcomm_dtype_t dtype, MPI_Op op,
                                      size_t outer, size_t chunk,
                                      MPI_Comm comm)
{
    size_t es = tcomm_dtype_size(dtype);
    char stack[TCOMM_RS_STACK], *tmp;
    int nranks, rc;

    if (es == 0)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS)
        return rc;
    rc = tcomm_rs_alloc((size_t)nranks * outer * chunk * es, stack, &tmp,
                        comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_host_scatter_pack(in, tmp, es, outer, nranks, chunk);
    rc = tcomm_mpi_reduce_scatter_block(tmp, out, outer * chunk, dtype, op,
                                        comm);
    tcomm_rs_free(tmp, stack);
    return rc;
}

/* The pipeline's groups: rows [o0, o0 + nr) and columns [c0, c0 + nc)
 * of every rank's chunk; nr > 1 only when nc is the whole chunk, so
 * that the group's result is contiguous in out. */
typedef struct {
    size_t es, chunk, width; /* width: bytes of one row of in */
    size_t rows, cols;       /* a full group's rows and columns */
    size_t per_row;          /* groups per row of rows */
    size_t outer, ngroups;
    int nranks;
} rs_pipe_t;

static void rs_pipe_plan(rs_pipe_t *p, size_t es, size_t outer,
                         size_t chunk, int nranks)
{
    /* elements of each rank's block in one group: count limits too */
    size_t most = TCOMM_RS_PIPE_BYTES / ((size_t)nranks * es);
    size_t lim = tcomm_mpi_count_limit();
    most = most < lim ? most : lim;
    most = most ? most : 1;
    p->es = es;
    p->chunk = chunk;
    p->width = (size_t)nranks * chunk * es;
    p->nranks = nranks;
    p->outer = outer;
    if (chunk <= most) { /* whole rows */
        p->cols = chunk;
        p->rows = chunk ? most / chunk : outer;
        p->rows = p->rows < outer ? p->rows : outer;
        p->rows = p->rows ? p->rows : 1;
        p->per_row = 1;
    } else { /* pieces of one row */
        p->cols = most;
        p->rows = 1;
        p->per_row = (chunk + most - 1) / most;
    }
    p->ngroups = (outer + p->rows - 1) / p->rows * p->per_row;
}

/* Group k's rows and columns. */
static void rs_group(const rs_pipe_t *p, size_t k, size_t *o0, size_t *nr,
                     size_t *c0, size_t *nc)
{
    size_t g = k / p->per_row, q = k % p->per_row;
    *o0 = g * p->rows;
    *nr = p->outer - *o0 < p->rows ? p->outer - *o0 : p->rows;
    *c0 = q * p->cols;
    *nc = p->chunk - *c0 < p->cols ? p->chunk - *c0 : p->cols;
}

/* Pack group k of in into a rank-major buffer [nranks][nr][nc],
 * testing req between ranks so that the previous group progresses. */
static int pack_group(const rs_pipe_t *p, const char *in, char *grp,
                      size_t k, MPI_Request *req)
{
    size_t o0, nr, c0, nc, rb = p->chunk * p->es;
    int flag, rc = MPI_SUCCESS;

    rs_group(p, k, &o0, &nr, &c0, &nc);
    for (int r = 0; r < p->nranks && rc == MPI_SUCCESS; r++) {
        const char *s = in + o0 * p->width + (size_t)r * rb + c0 * p->es;
        char *d = grp + (size_t)r * nr * nc * p->es;
        for (size_t o = 0; o < nr; o++)
            memcpy(d + o * nc * p->es, s + o * p->width, nc * p->es);
        if (*req != MPI_REQUEST_NULL)
            rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    }
    return rc;
}

int tcomm_mpi_reduce_scatter_dim_pipe(const void *in, void *out,
                                      tcomm_dtype_t dtype, MPI_Op op,
                                      size_t outer, size_t chunk,
                                      MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(dtype);
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    size_t es = tcomm_dtype_size(dtype), gbytes;
    char stack[TCOMM_RS_STACK], *tmp;
    rs_pipe_t p;
    int nranks, rc;

    if (es == 0)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS)
        return rc;
    rs_pipe_plan(&p, es, outer, chunk, nranks);
    if (p.ngroups < 2) /* at most one group's bytes: pack */
        return tcomm_mpi_reduce_scatter_dim_pack(in, out, dtype, op, outer,
                                                 chunk, comm);
    gbytes = (size_t)nranks * p.rows * p.cols * es;
    rc = tcomm_rs_alloc(2 * gbytes, stack, &tmp, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = pack_group(&p, in, tmp, 0, &req[1]);
    for (size_t k = 0; k < p.ngroups && rc == MPI_SUCCESS; k++) {
        size_t o0, nr, c0, nc;
        rs_group(&p, k, &o0, &nr, &c0, &nc);
        rc = MPI_Ireduce_scatter_block(tmp + (k % 2) * gbytes,
                                       (char *)out + (o0 * chunk + c0) * es,
                                       (int)(nr * nc), base, op, comm,
                                       &req[k % 2]);
        /* the other buffer is free: its group completed at k - 1 */
        if (rc == MPI_SUCCESS && k + 1 < p.ngroups)
            rc = pack_group(&p, in, tmp + ((k + 1) % 2) * gbytes, k + 1,
                            &req[k % 2]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req[k % 2], MPI_STATUS_IGNORE);
    }
    tcomm_rs_free(tmp, stack);
    return rc;
}

/* The dispatch, measured on 2 ranks, [64, n/64] f32 SUM, lower
 * quartile of 40 interleaved calls (shared 2-core machine, noisy),
 * ratio to raw MPI_Reduce_scatter_block of the same bytes: see the
 * table in the report and bench/reshape_candidates.c. pipe beats pack
 * at every size and even beats the raw call from 2 MiB up (0.3-0.7x):
 * Open MPI 4.1's reduce_scatter_block works on the whole buffer at
 * once, out of cache, while 512 KiB groups stay in cache. Below two
 * groups pipe is pack. */
int tcomm_mpi_reduce_scatter_dim(const void *in, void *out,
                                 tcomm_dtype_t dtype, MPI_Op op,
                                 size_t outer, size_t chunk, MPI_Comm comm)
{
    size_t es = tcomm_dtype_size(dtype);
    int nranks, rc;

    if (es == 0)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS)
        return rc;
    if (nranks == 1) {
        if (out != in && outer * chunk != 0)
            memcpy(out, in, outer * chunk * es);
        return MPI_SUCCESS;
    }
    if (outer <= 1) /* in is rank-major already */
        return tcomm_mpi_reduce_scatter_block(in, out, outer * chunk, dtype,
                                              op, comm);
    return tcomm_mpi_reduce_scatter_dim_pipe(in, out, dtype, op, outer,
                                             chunk, comm);
}
