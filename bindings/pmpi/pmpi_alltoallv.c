/* SPDX-License-Identifier: BSD-3-Clause */
/* The interposed MPI_Alltoallv.
 *
 * Unlike the other calls, nothing MPI requires to match tells every rank
 * the same about an alltoallv: the counts and displacements are each
 * rank's own. So a rank that could take the call asks the others in one
 * small PMPI_Allreduce(MIN) (on a communicator tcomm serves, never on
 * one of 1 rank) what they can do, and all act on the answer:
 * - every rank's counts are one block c (send and receive): tcomm's
 *   all_to_all, as MPI_Alltoall (its size gate: by default never, so
 *   by default no rank asks and MPI keeps every call, pmpi_types.c);
 * - else, displacements in rank order on every rank: tcomm's all_to_all_v
 *   (token exchange), when the largest rank's mean block reaches the
 *   MPI_Alltoallv entry of the table (by default never: measured slower,
 *   pmpi_types.c); its fresh output is copied to the receive
 *   displacements;
 * - else MPI does it. A rank whose own arguments tcomm cannot take (a
 *   derived type, a negative count) makes every rank pass it to MPI,
 *   which reports what is wrong.
 * The agreement costs about as much as a small MPI_Alltoallv itself
 * (doc/performance.md): after one that passed the call, the next calls
 * on that communicator pass without asking, 1, 2, 4 ... up to MAX_SKIP
 * of them while the answers stay "pass", none after a taken call. A
 * program of small calls then pays for one agreement in MAX_SKIP + 1
 * calls; a large call in such a window is MPI's, as without the
 * library. Under TCOMM_PMPI_MIN_BYTES=0 every call asks. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_pmpi.h"

enum { OK, BLOCK_MIN, NEG_BLOCK_MAX, NEG_KIB_MAX, NVOTE };
#define MAX_SKIP 16

/* This rank's vote: OK (predefined types of one size, counts >= 0, send
 * displacements in rank order), its block (-1: uneven), its mean block
 * in KiB (negated: MIN gives the largest). */
static void vote(const void *sbuf, const int scounts[], const int sdispls[],
                 MPI_Datatype stype, const int rcounts[], MPI_Datatype rtype,
                 int n, size_t *size, int v[NVOTE])
{
    size_t ssize = 0, total = 0;
    int in_place = sbuf == MPI_IN_PLACE;
    int ok = tcomm_pmpi_move_type(rtype, size) &&
             (in_place || (tcomm_pmpi_move_type(stype, &ssize) &&
                           ssize == *size && scounts && sdispls)) &&
             rcounts;
    int block = ok ? rcounts[0] : -1;
    for (int r = 0, at = 0; ok && r < n; r++) {
        int s = in_place ? rcounts[r] : scounts[r];
        ok = s >= 0 && rcounts[r] >= 0 &&
             (in_place || (sdispls[r] == at && at <= INT_MAX - s));
        at += s;
        total += (size_t)s;
        if (s != block || rcounts[r] != block)
            block = -1;
    }
    size_t kib = ok ? (total * *size / (size_t)n + 1023) / 1024 : 0;
    v[OK] = ok;
    v[BLOCK_MIN] = block;
    v[NEG_BLOCK_MAX] = -block;
    v[NEG_KIB_MAX] = -(int)(kib > INT_MAX ? INT_MAX : kib);
}

static int rdispls_ordered(const int rcounts[], const int rdispls[], int n)
{
    for (int r = 0, at = 0; r < n; at += rcounts[r], r++)
        if (rdispls[r] != at)
            return 0;
    return 1;
}

/* Received parts in rank order at `all` to their displacements. */
static void place(char *rbuf, const char *all, const int rcounts[],
                  const int rdispls[], int n, size_t size)
{
    for (int r = 0, at = 0; r < n; at += rcounts[r], r++)
        memmove(rbuf + (size_t)rdispls[r] * size, all + (size_t)at * size,
                (size_t)rcounts[r] * size);
}

/* The reverse: in place, the parts to send, at the displacements, in
 * rank order at `all`. */
static void gather_parts(char *all, const char *rbuf, const int rcounts[],
                         const int rdispls[], int n, size_t size)
{
    for (int r = 0, at = 0; r < n; at += rcounts[r], r++)
        memcpy(all + (size_t)at * size, rbuf + (size_t)rdispls[r] * size,
               (size_t)rcounts[r] * size);
}

/* Every rank sends and receives c elements per rank: tcomm's
 * all_to_all, into rbuf where its displacements are in rank order. */
static tcomm_status_t even(tcomm_comm_t *tc, const void *sbuf, void *rbuf,
                           const int rcounts[], const int rdispls[], int n,
                           size_t part, size_t size)
{
    size_t bytes = part * (size_t)n;
    int direct = rdispls_ordered(rcounts, rdispls, n);
    int in_place = sbuf == MPI_IN_PLACE;
    char *all = direct ? rbuf : malloc(bytes + 1);
    if (all && !direct && in_place) /* the input is at the displacements */
        gather_parts(all, rbuf, rcounts, rdispls, n, size);
    tcomm_tensor_t *out = all ? tcomm_pmpi_wrap(TCOMM_U8, all, bytes) : NULL;
    tcomm_tensor_t *in = in_place ? NULL
                                  : tcomm_pmpi_wrap(TCOMM_U8, (void *)sbuf,
                                                    bytes);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (out && (in || in_place)) {
        tcomm_pmpi_inside++;
        st = tcomm_all_to_all_into(tc, in ? in : out, 0, 0, out);
        tcomm_pmpi_inside--;
    }
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
    if (!direct && st == TCOMM_SUCCESS)
        place(rbuf, all, rcounts, rdispls, n, size);
    if (!direct)
        free(all);
    return st;
}

/* Uneven counts, send displacements in rank order: tcomm's
 * all_to_all_v. In place, the input is rbuf's parts at the receive
 * displacements, gathered into a copy first (tcomm's output is fresh,
 * and must not be read from while written). */
static tcomm_status_t uneven(tcomm_comm_t *tc, const void *sbuf,
                             const int scounts[], void *rbuf,
                             const int rcounts[], const int rdispls[], int n,
                             size_t size)
{
    int in_place = sbuf == MPI_IN_PLACE;
    const int *sc = in_place ? rcounts : scounts;
    size_t stack[64], *sizes = n <= 64 ? stack : malloc((size_t)n *
                                                       sizeof *sizes);
    size_t total = 0;
    tcomm_tensor_t *in = NULL, *out = NULL;
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    char *copy = NULL;
    if (sizes) {
        for (int r = 0; r < n; r++)
            total += sizes[r] = (size_t)sc[r] * size;
        copy = in_place ? malloc(total + 1) : NULL;
        if (copy)
            gather_parts(copy, rbuf, rcounts, rdispls, n, size);
        if (!in_place || copy)
            in = tcomm_pmpi_wrap(TCOMM_U8, in_place ? copy : (void *)sbuf,
                                 total);
    }
    if (in) {
        tcomm_pmpi_inside++;
        st = tcomm_all_to_all_v(tc, in, 0, sizes, 0, &out);
        tcomm_pmpi_inside--;
    }
    if (st == TCOMM_SUCCESS)
        place(rbuf, tcomm_tensor_data(out), rcounts, rdispls, n, size);
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
    free(copy);
    if (sizes != stack)
        free(sizes);
    return st;
}

TCOMM_PMPI_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[],
                                    const int sdispls[], MPI_Datatype stype,
                                    void *rbuf, const int rcounts[],
                                    const int rdispls[], MPI_Datatype rtype,
                                    MPI_Comm comm)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_ALLTOALLV;
    tcomm_comm_t *tc = NULL;
    tcomm_pmpi_backoff_t *b = NULL;
    int n = 0, me = 0, v[NVOTE], all[NVOTE];
    size_t size = 0;
    if (tcomm_pmpi_on && !tcomm_pmpi_inside &&
        (tcomm_pmpi_min_bytes(fn) != (size_t)-1 ||
         tcomm_pmpi_min_bytes(PMPI_FN_ALLTOALL) != (size_t)-1))
        tc = tcomm_pmpi_comm_a2av(comm, &n, &me, &b);
    /* TCOMM_PMPI_MIN_BYTES=0 (take what can be taken) never backs off */
    int backs_off = n > 1 && tcomm_pmpi_min_bytes(PMPI_FN_ALLTOALL) > 0;
    if (tc && backs_off && b->skip > 0) {
        b->skip--;
        tc = NULL; /* every rank skips this one */
    }
    if (tc) {
        vote(sbuf, scounts, sdispls, stype, rcounts, rtype, n, &size, v);
        if (n == 1) {
            memcpy(all, v, sizeof all);
        } else {
            tcomm_pmpi_inside++;
            int rc = PMPI_Allreduce(v, all, NVOTE, MPI_INT, MPI_MIN, comm);
            tcomm_pmpi_inside--;
            if (rc != MPI_SUCCESS)
                all[OK] = 0; /* the same error on every rank: MPI's turn */
        }
    }
    int block = tc && all[OK] && all[BLOCK_MIN] == -all[NEG_BLOCK_MAX]
                    ? all[BLOCK_MIN] : -1;
    size_t mean = tc && all[OK] ? (size_t)-all[NEG_KIB_MAX] * 1024 : 0;
    int take = block > 0 ? (size_t)block * size >=
                               tcomm_pmpi_min_bytes(PMPI_FN_ALLTOALL)
                         : block < 0 && mean > 0 &&
                               mean >= tcomm_pmpi_min_bytes(fn);
    if (tc && backs_off) { /* the back-off after an agreement */
        b->window = take ? 0 : b->window ? 2 * b->window : 1;
        if (b->window > MAX_SKIP)
            b->window = MAX_SKIP;
        b->skip = b->window;
    }
    if (!take) {
        tcomm_pmpi_passed(fn, comm);
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
                              rdispls, rtype, comm);
    }
    double t0 = tcomm_pmpi_now();
    size_t bytes = 0;
    for (int r = 0; r < n; r++)
        bytes += (size_t)rcounts[r] * size;
    tcomm_status_t st =
        block > 0 ? even(tc, sbuf, rbuf, rcounts, rdispls, n,
                         (size_t)block * size, size)
                  : uneven(tc, sbuf, scounts, rbuf, rcounts, rdispls, n, size);
    return tcomm_pmpi_done(fn, comm, st, bytes, t0, NULL, NULL);
}
