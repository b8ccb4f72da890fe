/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI backend's all_to_all and all_to_all_v on host tensors: the
 * call's layout as blocks of rows (tcomm_mpi_alltoall.h), then
 *   - contiguous blocks on every rank (split and concat along dims with
 *     nothing but sizes of 1 before them, dim 0 above all): one
 *     MPI_Alltoall (equal chunks) or MPI_Alltoallv on the tensors' own
 *     buffers, nothing allocated (alltoall_flat.c);
 *   - strided blocks, equal chunks: the measured dispatch of
 *     alltoall_strided.c;
 *   - uneven blocks on one node: the single copies of
 *     alltoall_v_pull.c where every buffer is mapped or the blocks are
 *     large and strided;
 *   - strided blocks, uneven: split_pack -> MPI_Alltoallv ->
 *     gather_unpack, each side only where it is strided.
 * Every choice must be the same on every rank (they are collectives), so
 * it rests on what every rank knows: in the equal call and the transpose
 * mode, every rank's shapes; in the token mode, the dims before the split
 * dim (they agree) and, for the count limit, the largest extent along the
 * dim of any rank's input or output (the front end's exchange). */
#include <stdint.h>
#include <stdlib.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_mpi_alltoall.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_call.h"

static tcomm_status_t plan_error(int rc, const char *fn)
{
    return tcomm_mpi_status(rc, fn, __FILE__, __LINE__);
}

/* in along split, out along concat: the rows of both sides. */
static void plan_sides(tcomm_a2a_plan_t *p, const tcomm_tensor_t *in,
                       int split, const size_t *send_sizes, size_t each_s,
                       const tcomm_tensor_t *out, int concat,
                       const size_t *recv_sizes, size_t each_r)
{
    size_t inner;
    tcomm_dim_split(in, split, &p->souter, &inner);
    p->stotal = in->shape[split] * inner;
    tcomm_a2a_plan_cols(p->sw, p->soff, p->nranks, send_sizes, each_s,
                        inner);
    tcomm_dim_split(out, concat, &p->router, &inner);
    p->rtotal = out->shape[concat] * inner;
    tcomm_a2a_plan_cols(p->rw, p->roff, p->nranks, recv_sizes, each_r,
                        inner);
}

/* The call of kind coll took path: its TRACE word and INFO line. */
static void note(tcomm_mpi_state_t *st, tcomm_coll_kind_t coll,
                 tcomm_path_t path)
{
    static const char *const what[] = {
        [TCOMM_PATH_MPI_ALLTOALL] = "MPI_Alltoall on host buffers",
        [TCOMM_PATH_MPI_ALLTOALLV] = "MPI_Alltoallv on host buffers",
        [TCOMM_PATH_MPI_ALLTOALL_PIECES] =
            "pieces between pairs (counts above MPI's int)",
        [TCOMM_PATH_MPI_ALLTOALL_PULL] = "single copies on one node",
        [TCOMM_PATH_MPI_ALLTOALL_V_PULL] = "single copies on one node",
        [TCOMM_PATH_MPI_ALLTOALL_VECTOR] = "MPI vector datatypes per peer",
        [TCOMM_PATH_MPI_ALLTOALL_ROWS] = "rows as MPI messages",
        [TCOMM_PATH_MPI_ALLTOALLW] = "MPI_Alltoallw, a datatype per peer",
    };
    tcomm_note_path(st->owner, coll, path, "%s: %s",
                    coll == TCOMM_COLL_ALL_TO_ALL ? "all_to_all"
                                                  : "all_to_all_v",
                    what[tcomm_path_exchange(path)]);
}

static tcomm_status_t run(tcomm_mpi_state_t *st, tcomm_a2a_plan_t *p,
                          const tcomm_tensor_t *in, tcomm_tensor_t *out,
                          int any_strided, tcomm_coll_kind_t coll,
                          const char *fn)
{
    tcomm_path_t path = TCOMM_PATH_MPI_ALLTOALL;
    int rc;
    p->st = st; /* the pull's node protocol */
    if (p->equal && any_strided)
        rc = tcomm_a2a_strided(p, in->data, out->data, st->comm, &path);
    else
        rc = tcomm_a2a_pack(p, in->data, out->data, any_strided, st->comm,
                            &path);
    note(st, coll, path);
    tcomm_a2a_plan_free(p);
    return tcomm_mpi_status(rc, fn, __FILE__, __LINE__);
}

/* Equal chunks contiguous on both sides (only sizes of 1 before either
 * dim, dim 0 above all): one MPI_Alltoall, before any plan is made, so
 * that the common call costs what MPI's does; or on one node the pull
 * of the mapped tier only (flat_pull), since by cross-memory attach it
 * was no faster than MPI_Alltoall, which makes the same copies. */
static int flat_equal(const tcomm_tensor_t *in, int split, int concat)
{
    int lead = split > concat ? split : concat;
    for (int d = 0; d < lead; d++)
        if (in->shape[d] != 1)
            return 0;
    return in->numel <= tcomm_mpi_count_limit();
}

/* The plan of an equal call (allocated): every rank has these shapes. */
static void equal_plan(tcomm_a2a_plan_t *p, tcomm_mpi_state_t *st,
                       const tcomm_tensor_t *in, int split, int concat,
                       tcomm_tensor_t *out)
{
    size_t c = in->shape[split] / (size_t)st->size;
    plan_sides(p, in, split, NULL, c, out, concat, NULL,
               split == concat ? c : in->shape[concat]);
    p->equal = 1;
    p->fits = in->numel <= tcomm_mpi_count_limit();
    p->st = st;
}

/* The flat exchange through the peers' mapped arenas. 1: done. */
static int flat_pull(tcomm_mpi_state_t *st, const tcomm_tensor_t *in,
                     int split, int concat, tcomm_tensor_t *out, int *rc)
{
    tcomm_a2a_plan_t p;
    int done = 0;
    if (in->nbytes < TCOMM_NODE_MAPPED_MIN || !st->shm_min ||
        !tcomm_node_copy_allowed(st) ||
        tcomm_a2a_plan_alloc(&p, in->dtype, st->comm) != MPI_SUCCESS)
        return 0;
    equal_plan(&p, st, in, split, concat, out);
    if (tcomm_a2a_pull_tier(&p, SIZE_MAX) == TCOMM_NODE_MAPPED)
        *rc = tcomm_a2a_pull(&p, in->data, out->data, st->comm,
                             TCOMM_NODE_MAPPED, &done);
    tcomm_a2a_plan_free(&p);
    return *rc != MPI_SUCCESS || done;
}

tcomm_status_t tcomm_mpi_all_to_all(void *state, const tcomm_tensor_t *in,
                                    int split_dim, int concat_dim,
                                    tcomm_tensor_t *out)
{
    tcomm_mpi_state_t *st = state;
    int rc = MPI_SUCCESS;
    if (flat_equal(in, split_dim, concat_dim)) {
        if (flat_pull(st, in, split_dim, concat_dim, out, &rc)) {
            note(st, TCOMM_COLL_ALL_TO_ALL, TCOMM_PATH_MPI_ALLTOALL_PULL);
            return tcomm_mpi_status(rc, "tcomm_all_to_all", __FILE__,
                                    __LINE__);
        }
        int count = (int)(in->numel / (size_t)st->size);
        MPI_Datatype type = tcomm_mpi_datatype(in->dtype);
        note(st, TCOMM_COLL_ALL_TO_ALL, TCOMM_PATH_MPI_ALLTOALL);
        return tcomm_mpi_status(MPI_Alltoall(in->data, count, type,
                                             out->data, count, type,
                                             st->comm),
                                "tcomm_all_to_all", __FILE__, __LINE__);
    }
    tcomm_a2a_plan_t p;
    rc = tcomm_a2a_plan_alloc(&p, in->dtype, st->comm);
    if (rc != MPI_SUCCESS)
        return plan_error(rc, "tcomm_all_to_all");
    equal_plan(&p, st, in, split_dim, concat_dim, out);
    return run(st, &p, in, out, p.souter > 1 || p.router > 1,
               TCOMM_COLL_ALL_TO_ALL, "tcomm_all_to_all");
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

tcomm_status_t tcomm_mpi_all_to_all_v(void *state,
                                      const tcomm_coll_args_t *args)
{
    const tcomm_tensor_t *in = args->in;
    tcomm_tensor_t *out = args->out;
    int split_dim = args->dim, concat_dim = args->concat_dim;
    const size_t *send_sizes = args->send_sizes;
    const size_t *recv_sizes = args->recv_sizes;
    tcomm_mpi_state_t *st = state;
    tcomm_a2a_plan_t p;
    int any_strided, rc = tcomm_a2a_plan_alloc(&p, in->dtype, st->comm);
    if (rc != MPI_SUCCESS)
        return plan_error(rc, "tcomm_all_to_all_v");
    plan_sides(&p, in, split_dim, send_sizes, 0, out, concat_dim,
               recv_sizes, 0);
    p.equal = 0;
    if (split_dim == concat_dim) {
        /* token mode: the dims before split agree; the counts do not,
         * but the front end's exchange saw every rank's extent */
        size_t inner = 1, lim = tcomm_mpi_count_limit();
        for (int d = 0; d < in->ndim; d++)
            inner *= d == split_dim ? 1 : in->shape[d];
        size_t extent = args->size_table ? args->extent_max : SIZE_MAX;
        any_strided = p.souter > 1;
        p.fits = inner == 0 || extent <= lim / inner;
    } else {
        transpose_global(in, split_dim, concat_dim, send_sizes, recv_sizes,
                         st->size, &any_strided, &p.fits);
    }
    int done;
    p.st = st;
    rc = tcomm_a2a_v_pull(&p, in, split_dim, concat_dim, args->size_table,
                          out, &done);
    if (rc != MPI_SUCCESS || done) {
        note(st, TCOMM_COLL_ALL_TO_ALL_V, TCOMM_PATH_MPI_ALLTOALL_V_PULL);
        tcomm_a2a_plan_free(&p);
        return tcomm_mpi_status(rc, "tcomm_all_to_all_v", __FILE__,
                                __LINE__);
    }
    return run(st, &p, in, out, any_strided, TCOMM_COLL_ALL_TO_ALL_V,
               "tcomm_all_to_all_v");
}
