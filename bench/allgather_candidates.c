/* SPDX-License-Identifier: BSD-3-Clause */
/* The in-place candidates of all_gather along a dim > 0 (see
 * src/mpi/all_gather_dim.c for the layout, the measurements and the
 * dispatch): (b) MPI_Alltoallw with a vector receive type per peer,
 * (c) one message per row and peer, (c') one vector-typed message per
 * peer, (d) the pipelined temporary path, and (e) the pull alone, with (c')
 * where it does not apply. The library takes (a), (c') and the pull. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "allgather_candidates.h"

int tcomm_mpi_all_gather_dim_alltoallw(const void *in, void *out,
                                       tcomm_dtype_t dtype, size_t outer,
                                       const size_t *seg, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(dtype), *st, *rt;
    tcomm_all_gather_plan_t p;
    int *sc, *sd, *rcn, *rd,
        rc = tcomm_all_gather_plan_init(&p, dtype, outer, seg, comm);
    int n = p.nranks;
    void *mem;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!tcomm_all_gather_fits_int(&p, outer)) {
        tcomm_all_gather_plan_free(&p);
        return tcomm_mpi_all_gather_dim_tmp(in, out, dtype, outer, seg, comm);
    }
    mem = malloc((size_t)n * (4 * sizeof(int) + 2 * sizeof(MPI_Datatype)));
    if (mem == NULL) {
        tcomm_all_gather_plan_free(&p);
        return MPI_ERR_NO_MEM;
    }
    st = mem;
    rt = st + n;
    sc = (int *)(rt + n);
    sd = sc + n;
    rcn = sd + n;
    rd = rcn + n;
    for (int r = 0; r < n; r++)
        rt[r] = base;
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
        st[r] = base;
        sc[r] = (int)(outer * seg[p.rank]);
        sd[r] = 0;
        rc = tcomm_all_gather_rows_type(&p, base, outer, seg[r], &rt[r]);
        rcn[r] = rt[r] == MPI_DATATYPE_NULL ? 0 : 1;
        if (rt[r] == MPI_DATATYPE_NULL)
            rt[r] = base;
        rd[r] = (int)(p.off[r] * p.es);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Alltoallw(in, sc, sd, st, out, rcn, rd, rt, comm);
    for (int r = 0; r < n; r++)
        if (rt[r] != base && rt[r] != MPI_DATATYPE_NULL)
            MPI_Type_free(&rt[r]);
    free(mem);
    tcomm_all_gather_plan_free(&p);
    return rc;
}

/* Rows in windows of this many, so that the request array is bounded. */
#define TCOMM_ROW_WINDOW 64

int tcomm_mpi_all_gather_dim_rows(const void *in, void *out,
                                  tcomm_dtype_t dtype, size_t outer,
                                  const size_t *seg, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(dtype);
    MPI_Request *req;
    tcomm_all_gather_plan_t p;
    int rc = tcomm_all_gather_plan_init(&p, dtype, outer, seg, comm), nr;
    size_t es, mine, o0, o;

    if (rc != MPI_SUCCESS)
        return rc;
    es = p.es;
    mine = seg[p.rank];
    for (int r = 0; r < p.nranks; r++)
        if (seg[r] > INT_MAX) {
            tcomm_all_gather_plan_free(&p);
            return tcomm_mpi_all_gather_dim_tmp(in, out, dtype, outer, seg,
                                                comm);
        }
    req = malloc(2 * (size_t)p.nranks * TCOMM_ROW_WINDOW * sizeof *req);
    if (req == NULL) {
        tcomm_all_gather_plan_free(&p);
        return MPI_ERR_NO_MEM;
    }
    tcomm_all_gather_copy_own(&p, in, out, outer, seg);
    for (o0 = 0; o0 < outer && rc == MPI_SUCCESS; o0 += TCOMM_ROW_WINDOW) {
        size_t o1 = o0 + TCOMM_ROW_WINDOW < outer ? o0 + TCOMM_ROW_WINDOW
                                                  : outer;
        nr = 0;
        for (int r = 0; r < p.nranks && rc == MPI_SUCCESS; r++) {
            if (r == p.rank)
                continue;
            for (o = o0; o < o1 && seg[r] && rc == MPI_SUCCESS; o++)
                rc = MPI_Irecv((char *)out + (o * p.total + p.off[r]) * es,
                               (int)seg[r], base, r, TCOMM_ALL_GATHER_TAG, comm,
                               &req[nr++]);
            for (o = o0; o < o1 && mine && rc == MPI_SUCCESS; o++)
                rc = MPI_Isend((const char *)in + o * mine * es, (int)mine,
                               base, r, TCOMM_ALL_GATHER_TAG, comm, &req[nr++]);
        }
        if (rc == MPI_SUCCESS)
            rc = tcomm_mpi_waitall((size_t)nr, req);
    }
    free(req);
    tcomm_all_gather_plan_free(&p);
    return rc;
}

int tcomm_mpi_all_gather_dim_vec(const void *in, void *out, tcomm_dtype_t dtype,
                                 size_t outer, const size_t *seg, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(dtype), type;
    MPI_Request sreq[2 * TCOMM_STACK_RANKS], *req = sreq;
    tcomm_all_gather_plan_t p;
    int rc = tcomm_all_gather_plan_init(&p, dtype, outer, seg, comm), nr = 0;
    size_t mine;

    if (rc != MPI_SUCCESS)
        return rc;
    mine = outer * seg[p.rank];
    if (!tcomm_all_gather_fits_int(&p, outer)) {
        tcomm_all_gather_plan_free(&p);
        return tcomm_mpi_all_gather_dim_tmp(in, out, dtype, outer, seg, comm);
    }
    if (p.nranks > TCOMM_STACK_RANKS &&
        (req = malloc(2 * (size_t)p.nranks * sizeof *req)) == NULL) {
        tcomm_all_gather_plan_free(&p);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < p.nranks && rc == MPI_SUCCESS; r++) {
        if (r == p.rank)
            continue;
        rc = tcomm_all_gather_rows_type(&p, base, outer, seg[r], &type);
        if (rc != MPI_SUCCESS || type == MPI_DATATYPE_NULL)
            continue;
        rc = MPI_Irecv((char *)out + p.off[r] * p.es, 1, type, r,
                       TCOMM_ALL_GATHER_TAG, comm, &req[nr++]);
        MPI_Type_free(&type); /* freed when the receive completes */
    }
    for (int r = 0; r < p.nranks && mine && rc == MPI_SUCCESS; r++)
        if (r != p.rank)
            rc = MPI_Isend(in, (int)mine, base, r, TCOMM_ALL_GATHER_TAG, comm,
                           &req[nr++]);
    tcomm_all_gather_copy_own(&p, in, out, outer, seg);
    if (rc == MPI_SUCCESS)
        rc = tcomm_mpi_waitall((size_t)nr, req);
    if (req != sreq)
        free(req);
    tcomm_all_gather_plan_free(&p);
    return rc;
}

/* Bytes of out per pipeline group. */
#define TCOMM_PIPE_BYTES ((size_t)256 << 10)

int tcomm_mpi_all_gather_dim_pipe(const void *in, void *out,
                                  tcomm_dtype_t dtype, size_t outer,
                                  const size_t *seg, MPI_Comm comm)
{
    MPI_Datatype base = tcomm_mpi_datatype(dtype);
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    tcomm_all_gather_plan_t p;
    int rc = tcomm_all_gather_plan_init(&p, dtype, outer, seg, comm), n,
        *ic = NULL;
    size_t rows, row_bytes, ngroups, k;
    char *tmp = NULL;

    if (rc != MPI_SUCCESS)
        return rc;
    n = p.nranks;
    row_bytes = p.total * p.es;
    rows = row_bytes ? TCOMM_PIPE_BYTES / row_bytes : outer;
    rows = rows ? rows : 1;
    rows = rows < outer ? rows : outer;
    ngroups = rows ? (outer + rows - 1) / rows : 0;
    if (ngroups < 2 || !tcomm_all_gather_fits_int(&p, rows)) {
        tcomm_all_gather_plan_free(&p);
        return tcomm_mpi_all_gather_dim_tmp(in, out, dtype, outer, seg, comm);
    }
    tmp = malloc(2 * rows * row_bytes);
    ic = malloc(4 * (size_t)n * sizeof *ic);
    if (tmp == NULL || ic == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    for (int r = 0; r < n; r++) { /* full groups, then the last one */
        size_t last = outer - (ngroups - 1) * rows;
        ic[r] = (int)(rows * seg[r]);
        ic[n + r] = (int)(rows * p.off[r]);
        ic[2 * n + r] = (int)(last * seg[r]);
        ic[3 * n + r] = (int)(last * p.off[r]);
    }
    for (k = 0; k <= ngroups && rc == MPI_SUCCESS; k++) {
        /* post group k, then unpack group k - 1 while it moves */
        if (k < ngroups) {
            int *c = k + 1 < ngroups ? ic : ic + 2 * n;
            rc = MPI_Iallgatherv((const char *)in + k * rows * seg[p.rank] *
                                                        p.es,
                                 c[p.rank], base, tmp + (k % 2) * rows *
                                                            row_bytes,
                                 c, c + n, base, comm, &req[k % 2]);
        }
        if (k > 0 && rc == MPI_SUCCESS) {
            size_t g = k - 1, gr = g + 1 < ngroups ? rows
                                                   : outer - g * rows;
            const char *blk = tmp + (g % 2) * rows * row_bytes;
            int flag;
            rc = MPI_Wait(&req[g % 2], MPI_STATUS_IGNORE);
            for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
                tcomm_all_gather_unpack_one(&p, blk + gr * p.off[r] * p.es,
                                            (char *)out + g * rows * row_bytes,
                                            gr, r, seg);
                if (k < ngroups)
                    rc = MPI_Test(&req[k % 2], &flag, MPI_STATUS_IGNORE);
            }
        }
    }
done:
    free(tmp);
    free(ic);
    tcomm_all_gather_plan_free(&p);
    return rc;
}

int tcomm_mpi_all_gather_dim_pull(const void *in, void *out,
                                  tcomm_dtype_t dtype, size_t outer,
                                  const size_t *seg, MPI_Comm comm)
{
    tcomm_all_gather_plan_t p;
    int done = 0, rc = tcomm_all_gather_plan_init(&p, dtype, outer, seg, comm);

    if (rc != MPI_SUCCESS)
        return rc;
    rc = tcomm_all_gather_pull(&p, in, out, outer, seg, comm, &done);
    tcomm_all_gather_plan_free(&p);
    if (rc == MPI_SUCCESS && !done)
        rc = tcomm_mpi_all_gather_dim_vec(in, out, dtype, outer, seg, comm);
    return rc;
}
