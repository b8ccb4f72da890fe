/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_scatter_v along a dim > 0, pipelined: the uneven form of
 * reduce_scatter_dim.c's pipe. in is [outer][total] with rank r's
 * columns at off[r] = sum(seg[<r]), seg[r] wide; out is [outer][seg[me]].
 * Group k is packed rank-major into one of two buffers while group k - 1
 * is reduced (MPI_Ireduce_scatter, progressed by MPI_Test between the
 * copies), and its result lands in out directly:
 *   rows mode (a row fits a group): rows [o0, o0 + nr), split_pack'd
 *     (block r: [nr][seg[r]]); the result is rows [o0, ...) of out;
 *   piece mode (wider rows): columns [q*P, (q+1)*P) of every rank's
 *     segment of one row (fewer, or none, where a segment is shorter).
 * A group holds at most TCOMM_RS_PIPE_BYTES of in, and at most the MPI
 * count limit of elements, so that two of them (and the two in-flight
 * count arrays, which MPI reads until completion) fit reduce_scatter's
 * per-thread cache: one agreed temporary, no per-call page faults.
 *
 * Why: as for reduce_scatter_dim.c's pipe, a group stays in cache
 * between its pack and its reduction where a whole packed input does not,
 * and the pack of one group overlaps the reduction of the other.
 * Measured against packing the whole input first and one
 * MPI_Reduce_scatter (2 ranks, f32 SUM, [64][n / 64], chunks 3:1, medians
 * of 40 calls, shared 2-core machine, separate runs at load 5-8): 1 MiB
 * 3.2 ms -> 0.24 ms, 4 MiB 36 -> 1.5, on par with reduce_scatter's
 * pipeline for equal chunks of the same bytes; at load 12, interleaved,
 * the two were within noise of each other (1 MiB 11.5 / 10.5 ms lower
 * quartile, 4 MiB 47 / 45): the gain needs the cores the ranks run on. */
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_mpi_reshape.h"

typedef struct {
    int n, me;
    size_t es, outer, total, maxseg;
    const size_t *seg;
    size_t rows;            /* rows mode: rows per group; 0: piece mode */
    size_t piece, per_row;  /* piece mode: P, groups per row */
    size_t ngroups, gbytes; /* bytes of one group's buffer */
} rsv_plan_t;

/* The two count arrays at the head of the temporary, cache-line sized. */
static size_t header_bytes(int n)
{
    return (2 * (size_t)n * sizeof(int) + 63) & ~(size_t)63;
}

/* 0 where there is no pipeline (fewer than two groups, no room). */
static int plan(rsv_plan_t *p, int n, int me, size_t es, size_t outer,
                const size_t *seg)
{
    size_t hdr = header_bytes(n), lim = tcomm_mpi_count_limit();
    *p = (rsv_plan_t){.n = n, .me = me, .es = es, .outer = outer,
                      .seg = seg};
    for (int r = 0; r < n; r++) {
        p->total += seg[r];
        p->maxseg = seg[r] > p->maxseg ? seg[r] : p->maxseg;
    }
    if (p->total == 0 || hdr >= 2 * TCOMM_RS_PIPE_BYTES)
        return 0;
    size_t most = (2 * TCOMM_RS_PIPE_BYTES - hdr) / (2 * es);
    most = most < lim ? most : lim;
    if (p->total <= most) {
        p->rows = most / p->total;
        p->ngroups = (outer + p->rows - 1) / p->rows;
        p->gbytes = p->rows * p->total * es;
    } else {
        p->piece = most / (size_t)n ? most / (size_t)n : 1;
        p->per_row = (p->maxseg + p->piece - 1) / p->piece;
        p->ngroups = outer * p->per_row;
        p->gbytes = (size_t)n * p->piece * es;
    }
    return p->ngroups >= 2;
}

/* Pack group k into grp, its counts into c; *at: where its result goes
 * in out (elements). */
static void pack(const rsv_plan_t *p, const char *in, size_t k, char *grp,
                 int *c, size_t *at)
{
    size_t es = p->es;
    if (p->rows) {
        size_t o0 = k * p->rows;
        size_t nr = p->outer - o0 < p->rows ? p->outer - o0 : p->rows;
        for (int r = 0; r < p->n; r++)
            c[r] = (int)(nr * p->seg[r]);
        tcomm_host_split_pack(in + o0 * p->total * es, grp, es, nr, p->n,
                              p->seg);
        *at = o0 * p->seg[p->me];
        return;
    }
    size_t o = k / p->per_row, a = k % p->per_row * p->piece, off = 0;
    const char *row = in + o * p->total * es;
    for (int r = 0; r < p->n; off += p->seg[r++]) {
        size_t len = p->seg[r] > a ? p->seg[r] - a : 0;
        len = len < p->piece ? len : p->piece;
        c[r] = (int)len;
        memcpy(grp, row + (off + a) * es, len * es);
        grp += len * es;
    }
    *at = o * p->seg[p->me] + a;
}

int tcomm_mpi_reduce_scatter_v_pipe(const void *in, void *out,
                                    tcomm_dtype_t dtype, MPI_Op op,
                                    size_t outer, const size_t *seg,
                                    MPI_Comm comm, int *done)
{
    MPI_Datatype type = tcomm_mpi_datatype(dtype);
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    size_t es = tcomm_dtype_size(dtype), at;
    int n, me, rc, flag;
    rsv_plan_t p;

    *done = 0;
    if (es == 0)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &n)) != MPI_SUCCESS ||
        (rc = MPI_Comm_rank(comm, &me)) != MPI_SUCCESS)
        return rc;
    if (!plan(&p, n, me, es, outer, seg))
        return MPI_SUCCESS;
    *done = 1;
    size_t hdr = header_bytes(n);
    _Alignas(64) char stack[TCOMM_RS_STACK];
    char *buf;
    rc = tcomm_rs_alloc(hdr + 2 * p.gbytes, stack, &buf, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int *cnt = (int *)(void *)buf;
    char *tmp = buf + hdr;
    size_t next_at;
    pack(&p, in, 0, tmp, cnt, &next_at);
    for (size_t k = 0; k < p.ngroups && rc == MPI_SUCCESS; k++) {
        int s = (int)(k % 2);
        at = next_at;
        rc = MPI_Ireduce_scatter(tmp + (size_t)s * p.gbytes,
                                 (char *)out + at * es, cnt + s * n, type,
                                 op, comm, &req[s]);
        /* the other buffer is free: its group completed at k - 1 */
        if (rc == MPI_SUCCESS && k + 1 < p.ngroups) {
            rc = MPI_Test(&req[s], &flag, MPI_STATUS_IGNORE);
            pack(&p, in, k + 1, tmp + (size_t)(s ^ 1) * p.gbytes,
                 cnt + (s ^ 1) * n, &next_at);
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req[s], MPI_STATUS_IGNORE);
    }
    tcomm_rs_free(buf, stack);
    return rc;
}
