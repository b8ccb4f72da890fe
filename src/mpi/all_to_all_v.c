/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all_v on host tensors: its named algorithms, in the order they
 * are tried (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one
 * first). The byte ranges count the mean bytes of the ranks' inputs,
 * found in the table of every rank's sizes that the front end exchanged
 * (0 without it: then only the MPI rows apply), so the same on every
 * rank. Every other answer rests on what every rank knows too: in the
 * transpose mode every rank's shapes; in the token mode the dims before
 * the split dim (they agree) and, for the count limit, the largest
 * extent along the dim of any rank's input or output. */
#include <stdint.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_all_to_all.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_call.h"

static tcomm_status_t status(int rc)
{
    return tcomm_mpi_status(rc, "tcomm_all_to_all_v", __FILE__, __LINE__);
}

static size_t mean_bytes(const tcomm_mpi_state_t *st,
                         const tcomm_coll_args_t *a)
{
    if (!a->size_table)
        return 0;
    return tcomm_all_to_all_v_mean_bytes(a->in, a->dim, a->concat_dim,
                                         a->size_table, st->size);
}

/* The transpose mode: every rank's layout from the sizes every rank has
 * (rank q's input has sum(send) along split and recv[q] along concat;
 * its output send[q] along split and sum(recv) along concat). Does some
 * rank have strided blocks, do all fit the count limit? */
static void transpose_global(const tcomm_tensor_t *in, int s, int c,
                             const size_t *send, const size_t *recv, int n,
                             int *any_strided, int *fits)
{
    size_t lim = tcomm_mpi_count_limit(), ssum = 0, rsum = 0;
    for (int r = 0; r < n; r++) {
        ssum += send[r];
        rsum += recv[r];
    }
    *any_strided = 0;
    *fits = 1;
    for (int q = 0; q < n; q++) {
        size_t ni = 1, no = 1, souter = 1, router = 1;
        for (int d = 0; d < in->ndim; d++) {
            size_t di = d == s ? ssum : d == c ? recv[q] : in->shape[d];
            size_t dout = d == s ? send[q] : d == c ? rsum : in->shape[d];
            ni *= di;
            no *= dout;
            if (d < s)
                souter *= di;
            if (d < c)
                router *= dout;
        }
        *any_strided |= souter > 1 || router > 1;
        *fits &= ni <= lim && no <= lim;
    }
}

/* Is some rank's side strided, do all fit the count limit? */
static void global(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a,
                   int *any_strided, int *fits)
{
    const tcomm_tensor_t *in = a->in;
    if (a->dim != a->concat_dim) {
        transpose_global(in, a->dim, a->concat_dim, a->send_sizes,
                         a->recv_sizes, st->size, any_strided, fits);
        return;
    }
    /* token mode: the dims before split agree; the counts do not, but the
     * front end's exchange saw every rank's extent */
    size_t inner = 1, lim = tcomm_mpi_count_limit();
    for (int d = 0; d < in->ndim; d++)
        inner *= d == a->dim ? 1 : in->shape[d];
    size_t extent = a->size_table ? a->extent_max : SIZE_MAX;
    *any_strided = tcomm_shape_prod(in->shape, 0, a->dim) > 1;
    *fits = inner == 0 || extent <= lim / inner;
}

/* This rank's plan of the call (free: tcomm_all_to_all_plan_free). */
static int plan(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a,
                tcomm_all_to_all_plan_t *p, int *any_strided)
{
    int rc = tcomm_all_to_all_plan_alloc(p, a->in->dtype, st->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_all_to_all_plan_sides(p, a->in, a->dim, a->send_sizes, 0, a->out,
                                a->concat_dim, a->recv_sizes, 0);
    p->equal = 0;
    p->st = st;
    global(st, a, any_strided, &p->fits);
    return MPI_SUCCESS;
}

static int pull_applies(const tcomm_mpi_state_t *st,
                        const tcomm_coll_args_t *a)
{
    return a->size_table && tcomm_node_copy_allowed(st);
}

/* Single copies on one node (src/mpi/node/all_to_all_v_copies.c): by
 * memcpy where every peer's buffer is mapped, by cross-memory attach from
 * TCOMM_ALL_TO_ALL_PULL_MIN for strided blocks (the node code's tiers). Where a
 * rank could not copy, every rank goes on to the next row. */
static tcomm_status_t pull_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    tcomm_all_to_all_plan_t p;
    int any_strided, done = 0, rc = plan(st, a, &p, &any_strided);
    if (rc == MPI_SUCCESS)
        rc = tcomm_all_to_all_v_pull(&p, a->in, a->dim, a->concat_dim,
                                     a->size_table, a->out, &done);
    tcomm_all_to_all_plan_free(&p);
    return rc == MPI_SUCCESS && !done ? TCOMM_MPI_NOT_APPLIED : status(rc);
}

/* No rank's blocks strided: the buffers go to MPI as they are. */
static int contiguous(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    int any_strided, fits;
    global(st, a, &any_strided, &fits);
    return !any_strided;
}

/* split_pack where this rank's input is strided, the flat exchange
 * (MPI_Alltoallv, or pieces between pairs above the count limit, the
 * path says which), gather_unpack where its output is; a temporary
 * anywhere makes every rank agree that all have theirs first. */
static tcomm_status_t pack_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    tcomm_all_to_all_plan_t p;
    int any_strided, rc = plan(st, a, &p, &any_strided);
    if (rc == MPI_SUCCESS)
        rc =
            tcomm_all_to_all_pack_noted(st, &tcomm_mpi_all_to_all_v_table, &p,
                                        a->in->data, a->out->data, any_strided);
    return status(rc);
}

static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_NODE_ALL_TO_ALL_V, "single copies on one node",
     TCOMM_NODE_MAPPED_MIN, TCOMM_MPI_ANY_SIZE, pull_applies, pull_run},
    {TCOMM_PATH_MPI_ALLTOALLV, "contiguous blocks everywhere: MPI_Alltoallv", 0,
     TCOMM_MPI_ANY_SIZE, contiguous, pack_run},
    {TCOMM_PATH_PACK_MPI_ALLTOALLV_UNPACK,
     "a temporary where strided: "
     "split_pack, MPI_Alltoallv, gather_unpack",
     0, TCOMM_MPI_ANY_SIZE, NULL, pack_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_all_to_all_v_table, TCOMM_COLL_ALL_TO_ALL_V,
                "all_to_all_v", "mean input bytes of the ranks", mean_bytes);
