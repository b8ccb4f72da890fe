/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_scatter along a dim > 0: in is [outer][nranks * chunk], out is
 * [outer][chunk], the reduction of columns [rank * chunk, (rank+1) *
 * chunk) of every rank's in.
 *
 * Candidates (bench/reshape_candidates.c; numbers at the dispatch):
 *   pack: scatter_pack into a rank-major temporary, then one
 *         MPI_Reduce_scatter_block whose result lands in out directly
 *         (block r of the temporary is [outer][chunk], out's shape);
 *   pipe: the same in groups of rows: pack group k + 1 while group k is
 *         reduced (MPI_Ireduce_scatter_block, progressed by MPI_Test).
 *
 * Temporaries and agreement: a temporary that one rank fails to
 * allocate while the others go ahead would leave the others waiting in
 * the collective. Temporaries up to TCOMM_RS_STACK bytes live on the
 * stack; larger ones are malloc'd and the ranks agree with one small
 * MPI_Allreduce that every rank got its buffer (MPI_ERR_NO_MEM on every
 * rank otherwise). That costs one latency (~1-2 us on shared memory)
 * against transfers of at least TCOMM_RS_STACK bytes (see the bench). */
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_mpi_reshape.h"

#define TCOMM_RS_STACK ((size_t)16 << 10)

/* A per-thread cached temporary of up to TCOMM_RS_CACHE bytes: a fresh
 * malloc of a MiB or more is an mmap whose pages fault in on every call,
 * which cost more than the reduction itself (1 MiB: 1.6 ms instead of
 * 0.4). Bigger temporaries are malloc'd and freed per call. */
#define TCOMM_RS_CACHE ((size_t)8 << 20)
static _Thread_local char *rs_cache;
static _Thread_local size_t rs_cache_size;

/* Allocate bytes (on the stack buffer if it fits, else the cache or the
 * heap) and agree with the other ranks that everybody has one. */
static int rs_alloc(size_t bytes, char *stack, char **buf, MPI_Comm comm)
{
    int ok, all = 0, rc;

    if (bytes <= TCOMM_RS_STACK) {
        *buf = stack;
        return MPI_SUCCESS;
    }
    if (bytes <= TCOMM_RS_CACHE && bytes > rs_cache_size) {
        char *p = realloc(rs_cache, bytes);
        if (p != NULL) {
            rs_cache = p;
            rs_cache_size = bytes;
        }
    }
    *buf = bytes <= rs_cache_size ? rs_cache : malloc(bytes);
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

static void rs_free(char *buf, char *stack)
{
    if (buf != stack && buf != rs_cache)
        free(buf);
}

int tcomm_mpi_reduce_scatter_dim_pack(const void *in, void *out,
                                      tcomm_dtype_t dtype, MPI_Op op,
                                      size_t outer, size_t chunk,
                                      MPI_Comm comm)
{
    size_t es = tcomm_kernel_elsize(dtype);
    char stack[TCOMM_RS_STACK], *tmp;
    int nranks, rc;

    if (es == 0)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS)
        return rc;
    rc = rs_alloc((size_t)nranks * outer * chunk * es, stack, &tmp, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_host_scatter_pack(in, tmp, es, outer, nranks, chunk);
    rc = tcomm_mpi_reduce_scatter_block(tmp, out, outer * chunk, dtype, op,
                                        comm);
    rs_free(tmp, stack);
    return rc;
}

/* Bytes of in per pipeline group. */
#ifndef TCOMM_RS_PIPE_BYTES
#define TCOMM_RS_PIPE_BYTES ((size_t)256 << 10)
#endif

/* Pack rows [o0, o0 + rows) of in into a rank-major group buffer,
 * testing req between ranks so that the previous group progresses. */
static int pack_group(const char *in, char *grp, size_t es, size_t o0,
                      size_t rows, int nranks, size_t chunk,
                      MPI_Request *req)
{
    size_t rb = chunk * es, width = (size_t)nranks * rb;
    int flag, rc = MPI_SUCCESS;

    for (int r = 0; r < nranks && rc == MPI_SUCCESS; r++) {
        const char *s = in + o0 * width + (size_t)r * rb;
        char *d = grp + (size_t)r * rows * rb;
        for (size_t o = 0; o < rows; o++)
            memcpy(d + o * rb, s + o * width, rb);
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
    size_t es = tcomm_kernel_elsize(dtype), rows, ngroups, width, k;
    char stack[TCOMM_RS_STACK], *tmp;
    int nranks, rc;

    if (es == 0)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &nranks)) != MPI_SUCCESS)
        return rc;
    width = (size_t)nranks * chunk * es;
    rows = width ? TCOMM_RS_PIPE_BYTES / width : outer;
    rows = rows ? rows : 1;
    rows = rows < outer ? rows : outer;
    ngroups = rows ? (outer + rows - 1) / rows : 0;
    if (ngroups < 2 || rows * chunk > (size_t)tcomm_mpi_count_limit ||
        rows * chunk > 0x7fffffff)
        return tcomm_mpi_reduce_scatter_dim_pack(in, out, dtype, op, outer,
                                                 chunk, comm);
    rc = rs_alloc(2 * rows * width, stack, &tmp, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = pack_group(in, tmp, es, 0, rows, nranks, chunk, &req[1]);
    for (k = 0; k < ngroups && rc == MPI_SUCCESS; k++) {
        size_t gr = k + 1 < ngroups ? rows : outer - k * rows;
        char *grp = tmp + (k % 2) * rows * width;
        rc = MPI_Ireduce_scatter_block(grp, (char *)out + k * rows * chunk *
                                                              es,
                                       (int)(gr * chunk), base, op, comm,
                                       &req[k % 2]);
        if (rc == MPI_SUCCESS && k + 1 < ngroups) {
            size_t nr = k + 2 < ngroups ? rows : outer - (k + 1) * rows;
            /* the other buffer is free: its group completed at k - 1 */
            rc = pack_group(in, tmp + ((k + 1) % 2) * rows * width, es,
                            (k + 1) * rows, nr, nranks, chunk, &req[k % 2]);
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req[k % 2], MPI_STATUS_IGNORE);
    }
    rs_free(tmp, stack);
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
    size_t es = tcomm_kernel_elsize(dtype);
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
