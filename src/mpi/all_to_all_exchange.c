/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all's exchange of contiguous blocks, and candidate (a), the
 * temporary: split_pack -> that exchange -> gather_unpack.
 *
 * The exchange is one MPI call on the buffers it is given: MPI_Alltoall
 * when every block has the same size, MPI_Alltoallv otherwise. Counts or
 * displacements above tcomm_mpi_count_limit() (INT_MAX unless a test
 * lowers it; Open MPI 4 has no MPI-4 _c calls) go as pieces of at most
 * the limit between pairs, in the pairwise schedule: in step k every rank
 * sends to rank + k and receives from rank - k, so each step's messages
 * all match and no wait closes a cycle. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_mpi_all_to_all.h"
#include "tcomm_mpi_kernels.h"

#define TCOMM_ALL_TO_ALL_TAG 0x7a2a
/* Requests per window of pieces (each side), on the stack. */
#define PIECE_WINDOW 256

int tcomm_all_to_all_plan_alloc(tcomm_all_to_all_plan_t *p, tcomm_dtype_t dtype,
                                MPI_Comm comm)
{
    int rc;
    size_t *mem = p->stack;

    p->dtype = dtype;
    p->st = NULL;
    rc = tcomm_mpi_layout(dtype, comm, &p->es, &p->nranks, &p->rank);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p->nranks > TCOMM_STACK_RANKS &&
        !(mem = malloc(4 * (size_t)p->nranks * sizeof *mem)))
        return MPI_ERR_NO_MEM;
    p->sw = mem;
    p->soff = mem + p->nranks;
    p->rw = mem + 2 * p->nranks;
    p->roff = mem + 3 * p->nranks;
    return MPI_SUCCESS;
}

void tcomm_all_to_all_plan_free(tcomm_all_to_all_plan_t *p)
{
    if (p->sw != p->stack)
        free(p->sw);
}

void tcomm_all_to_all_plan_cols(size_t *w, size_t *off, int n,
                                const size_t *sizes, size_t each, size_t inner)
{
    size_t o = 0;
    for (int r = 0; r < n; r++) {
        w[r] = (sizes ? sizes[r] : each) * inner;
        off[r] = o;
        o += w[r];
    }
}

void tcomm_all_to_all_plan_sides(tcomm_all_to_all_plan_t *p,
                                 const tcomm_tensor_t *in, int split,
                                 const size_t *send_sizes, size_t each_s,
                                 const tcomm_tensor_t *out, int concat,
                                 const size_t *recv_sizes, size_t each_r)
{
    size_t inner;
    tcomm_dim_split(in, split, &p->souter, &inner);
    p->stotal = in->shape[split] * inner;
    tcomm_all_to_all_plan_cols(p->sw, p->soff, p->nranks, send_sizes, each_s,
                               inner);
    tcomm_dim_split(out, concat, &p->router, &inner);
    p->rtotal = out->shape[concat] * inner;
    tcomm_all_to_all_plan_cols(p->rw, p->roff, p->nranks, recv_sizes, each_r,
                               inner);
}

/* The pieces: every count and displacement is a size_t. */
static int flat_pieces(const char *sbuf, const size_t *scnt,
                       const size_t *sdsp, char *rbuf, const size_t *rcnt,
                       const size_t *rdsp, MPI_Datatype type, size_t es,
                       size_t lim, MPI_Comm comm)
{
    MPI_Request req[2 * PIECE_WINDOW];
    int n, me, rc;

    if ((rc = MPI_Comm_size(comm, &n)) != MPI_SUCCESS ||
        (rc = MPI_Comm_rank(comm, &me)) != MPI_SUCCESS)
        return rc;
    if (scnt[me])
        memcpy(rbuf + rdsp[me] * es, sbuf + sdsp[me] * es, scnt[me] * es);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        size_t so = 0, ro = 0;
        /* both sides cut a block into the same pieces: its size is the
         * same number on the sender and on the receiver */
        while (so < scnt[to] || ro < rcnt[from]) {
            int nr = 0;
            for (int i = 0; i < PIECE_WINDOW && ro < rcnt[from]; i++) {
                size_t c = rcnt[from] - ro < lim ? rcnt[from] - ro : lim;
                rc = MPI_Irecv(rbuf + (rdsp[from] + ro) * es, (int)c, type,
                               from, TCOMM_ALL_TO_ALL_TAG, comm, &req[nr++]);
                ro += c;
                if (rc != MPI_SUCCESS)
                    return rc;
            }
            for (int i = 0; i < PIECE_WINDOW && so < scnt[to]; i++) {
                size_t c = scnt[to] - so < lim ? scnt[to] - so : lim;
                rc = MPI_Isend(sbuf + (sdsp[to] + so) * es, (int)c, type, to,
                               TCOMM_ALL_TO_ALL_TAG, comm, &req[nr++]);
                so += c;
                if (rc != MPI_SUCCESS)
                    return rc;
            }
            if ((rc = tcomm_mpi_waitall((size_t)nr, req)) != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

static int alltoallv_int(const void *sbuf, const size_t *scnt,
                         const size_t *sdsp, void *rbuf, const size_t *rcnt,
                         const size_t *rdsp, MPI_Datatype type, int n,
                         MPI_Comm comm)
{
    int stack[4 * TCOMM_STACK_RANKS], *a = stack, rc;

    if (n < 1)
        return MPI_ERR_COMM;
    if (n > TCOMM_STACK_RANKS && !(a = malloc(4 * (size_t)n * sizeof *a)))
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < n; r++) {
        a[r] = (int)scnt[r];
        a[n + r] = (int)sdsp[r];
        a[2 * n + r] = (int)rcnt[r];
        a[3 * n + r] = (int)rdsp[r];
    }
    rc = MPI_Alltoallv(sbuf, a, a + n, type, rbuf, a + 2 * n, a + 3 * n,
                       type, comm);
    if (a != stack)
        free(a);
    return rc;
}

int tcomm_all_to_all_flat(const void *sbuf, const size_t *scnt,
                          const size_t *sdsp, void *rbuf, const size_t *rcnt,
                          const size_t *rdsp, int equal, int fits,
                          tcomm_dtype_t dtype, MPI_Comm comm,
                          tcomm_path_t *path)
{
    MPI_Datatype type = tcomm_mpi_datatype(dtype);
    size_t lim = tcomm_mpi_count_limit(), es = tcomm_dtype_size(dtype);
    int n, rc;

    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if ((rc = MPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return rc;
    if (fits && equal) {
        *path = TCOMM_PATH_MPI_ALLTOALL;
        return MPI_Alltoall(sbuf, (int)scnt[0], type, rbuf, (int)rcnt[0],
                            type, comm);
    }
    if (fits) {
        *path = TCOMM_PATH_MPI_ALLTOALLV;
        return alltoallv_int(sbuf, scnt, sdsp, rbuf, rcnt, rdsp, type, n,
                             comm);
    }
    *path = TCOMM_PATH_MPI_ALLTOALL_PIECES;
    return flat_pieces(sbuf, scnt, sdsp, rbuf, rcnt, rdsp, type, es, lim,
                       comm);
}

int tcomm_all_to_all_pack(const tcomm_all_to_all_plan_t *p, const void *in,
                          void *out, int any_tmp, MPI_Comm comm,
                          tcomm_path_t *path)
{
    int n = p->nranks, rc = MPI_SUCCESS, ok, all = 1;
    int pack = p->souter > 1, unpack = p->router > 1;
    size_t stack[4 * TCOMM_STACK_RANKS], *c = stack, es = p->es;
    char *stmp = NULL, *rtmp = NULL;

    if (n > TCOMM_STACK_RANKS)
        c = malloc(4 * (size_t)n * sizeof *c);
    /* one allocation for both: a second large one costs a fresh mmap
     * and its page faults on every call (glibc), 10x the exchange */
    if (pack || unpack) {
        size_t sb = pack ? p->souter * p->stotal * es : 0;
        stmp = malloc(sb + (unpack ? p->router * p->rtotal * es : 0) + 1);
        rtmp = stmp && unpack ? stmp + sb : NULL;
    }
    ok = c != NULL && (!(pack || unpack) || stmp);
    /* every rank must have its temporaries, or nobody goes on */
    if (any_tmp)
        rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && !(ok && all))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        size_t *scnt = c, *sdsp = c + n, *rcnt = c + 2 * n,
               *rdsp = c + 3 * n;
        for (int r = 0; r < n; r++) {
            scnt[r] = p->souter * p->sw[r];
            sdsp[r] = p->souter * p->soff[r];
            rcnt[r] = p->router * p->rw[r];
            rdsp[r] = p->router * p->roff[r];
        }
        if (pack)
            tcomm_host_split_pack(in, stmp, es, p->souter, n, p->sw);
        rc = tcomm_all_to_all_flat(pack ? stmp : in, scnt, sdsp,
                                   unpack ? rtmp : out, rcnt, rdsp, p->equal,
                                   p->fits, p->dtype, comm, path);
        if (rc == MPI_SUCCESS && unpack)
            tcomm_host_gather_unpack(rtmp, out, es, p->router, n, p->rw);
        *path = tcomm_path_packed(*path, pack, unpack);
    }
    free(stmp);
    if (c != stack)
        free(c);
    return rc;
}
