/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all on host tensors: its named algorithms, in the order they
 * are tried (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one
 * first). The byte ranges count the input's bytes: an equal call, so
 * every rank has the same shapes and every answer below is the same on
 * every rank. The call is blocks of rows (tcomm_mpi_all_to_all.h); a
 * side's blocks are strided where a size > 1 comes before its dim. */
#include <stdint.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_all_to_all.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_call.h"

/* The INFO line's words for a path of the flat exchange. */
static const char *path_what(tcomm_path_t path)
{
    switch (tcomm_path_exchange(path)) {
    case TCOMM_PATH_MPI_ALLTOALL: return "MPI_Alltoall on host buffers";
    case TCOMM_PATH_MPI_ALLTOALLV: return "MPI_Alltoallv on host buffers";
    default: return "pieces between pairs (counts above MPI's int)";
    }
}

static tcomm_status_t status(int rc)
{
    return tcomm_mpi_status(rc, "tcomm_all_to_all", __FILE__, __LINE__);
}

/* Contiguous blocks on both sides, equal, within the count limit: only
 * sizes of 1 before either dim (dim 0 above all). */
static int flat(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    int lead = a->dim > a->concat_dim ? a->dim : a->concat_dim;
    (void)st;
    return tcomm_shape_prod(in->shape, 0, lead) == 1 &&
           in->numel <= tcomm_mpi_count_limit();
}

/* The plan of the call, its arrays allocated (free:
 * tcomm_all_to_all_plan_free). */
static int plan(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a,
                tcomm_all_to_all_plan_t *p)
{
    const tcomm_tensor_t *in = a->in;
    int rc = tcomm_all_to_all_plan_alloc(p, in->dtype, st->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t c = in->shape[a->dim] / (size_t)st->size;
    tcomm_all_to_all_plan_sides(
        p, in, a->dim, NULL, c, a->out, a->concat_dim, NULL,
        a->dim == a->concat_dim ? c : in->shape[a->concat_dim]);
    p->equal = 1;
    p->fits = in->numel <= tcomm_mpi_count_limit();
    p->st = st;
    return MPI_SUCCESS;
}

/* The plan's first blocks only, for the rows' applies (no allocation). */
static void first_blocks(const tcomm_mpi_state_t *st,
                         const tcomm_coll_args_t *a, tcomm_all_to_all_plan_t *p,
                         size_t *sw, size_t *rw)
{
    const tcomm_tensor_t *in = a->in;
    size_t c = in->shape[a->dim] / (size_t)st->size, inner;
    *p = (tcomm_all_to_all_plan_t){.nranks = st->size,
                                   .rank = st->rank,
                                   .dtype = in->dtype,
                                   .equal = 1,
                                   .sw = sw,
                                   .rw = rw};
    p->es = tcomm_dtype_size(in->dtype);
    p->fits = in->numel <= tcomm_mpi_count_limit();
    tcomm_dim_split(in, a->dim, &p->souter, &inner);
    p->stotal = in->shape[a->dim] * inner;
    *sw = c * inner;
    tcomm_dim_split(a->out, a->concat_dim, &p->router, &inner);
    p->rtotal = a->out->shape[a->concat_dim] * inner;
    *rw = (a->dim == a->concat_dim ? c : in->shape[a->concat_dim]) * inner;
}

/* Strided somewhere, and within what (b)-(d) take (int counts, the
 * count limit); *two: strided on both sides. */
static int strided_fits(const tcomm_mpi_state_t *st,
                        const tcomm_coll_args_t *a, int *two, size_t *run)
{
    tcomm_all_to_all_plan_t p;
    size_t sw, rw;
    first_blocks(st, a, &p, &sw, &rw);
    *two = p.souter > 1 && p.router > 1;
    *run = tcomm_all_to_all_common_run(&p) * p.es;
    return (p.souter > 1 || p.router > 1) && p.fits &&
           tcomm_all_to_all_fits_int(&p);
}

static int vector_applies(const tcomm_mpi_state_t *st,
                          const tcomm_coll_args_t *a)
{
    int two;
    size_t run;
    return strided_fits(st, a, &two, &run);
}

static int rows_applies(const tcomm_mpi_state_t *st,
                        const tcomm_coll_args_t *a)
{
    int two;
    size_t run;
    return strided_fits(st, a, &two, &run) && run >= TCOMM_ALL_TO_ALL_RUN_MIN;
}

static int alltoallw_applies(const tcomm_mpi_state_t *st,
                             const tcomm_coll_args_t *a)
{
    int two;
    size_t run;
    return strided_fits(st, a, &two, &run) && two;
}

/* The single copies on one node (src/mpi/node/all_to_all_copies.c): for
 * contiguous blocks the mapped tier only, through the node segment,
 * since by cross-memory attach it was no faster than MPI_Alltoall, which
 * makes the same copies; for strided blocks (within the int counts) from the
 * sizes of TCOMM_ALL_TO_ALL_PULL_MIN by attach, or the mapped tier where the
 * node's code says so. Where a rank could not copy, every rank goes on to the
 * next row, which rewrites out whole. */
static tcomm_status_t pull_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    int is_flat = flat(st, a), two = 0, tier, done = 0, rc;
    size_t run;
    if (is_flat && (!st->segment || !tcomm_node_copy_allowed(st)))
        return TCOMM_MPI_NOT_APPLIED;
    if (!is_flat && !strided_fits(st, a, &two, &run))
        return TCOMM_MPI_NOT_APPLIED;
    tcomm_all_to_all_plan_t p;
    if ((rc = plan(st, a, &p)) != MPI_SUCCESS)
        return status(rc);
    tier = tcomm_all_to_all_pull_tier(
        &p, is_flat ? SIZE_MAX : TCOMM_ALL_TO_ALL_PULL_MIN(two));
    if (is_flat ? tier == TCOMM_NODE_MAPPED : tier != TCOMM_NODE_MPI)
        rc = tcomm_all_to_all_pull(&p, a->in->data, a->out->data, st->comm,
                                   tier, &done);
    tcomm_all_to_all_plan_free(&p);
    return rc == MPI_SUCCESS && !done ? TCOMM_MPI_NOT_APPLIED : status(rc);
}

/* One MPI_Alltoall on the tensors' own buffers, nothing allocated: the
 * common call costs what MPI's does. */
static tcomm_status_t alltoall_run(tcomm_mpi_state_t *st,
                                   const tcomm_coll_args_t *a)
{
    const tcomm_tensor_t *in = a->in;
    int count = (int)(in->numel / (size_t)st->size);
    MPI_Datatype type = tcomm_mpi_datatype(in->dtype);
    return status(MPI_Alltoall(in->data, count, type, a->out->data, count,
                               type, st->comm));
}

/* (b)-(d) of all_to_all_strided.c on the call's plan. */
static tcomm_status_t strided_run(tcomm_mpi_state_t *st,
                                  const tcomm_coll_args_t *a,
                                  int (*fn)(const tcomm_all_to_all_plan_t *,
                                            const void *, void *, MPI_Comm))
{
    tcomm_all_to_all_plan_t p;
    int rc = plan(st, a, &p);
    if (rc == MPI_SUCCESS)
        rc = fn(&p, a->in->data, a->out->data, st->comm);
    tcomm_all_to_all_plan_free(&p);
    return status(rc);
}

static tcomm_status_t vector_run(tcomm_mpi_state_t *st,
                                 const tcomm_coll_args_t *a)
{
    return strided_run(st, a, tcomm_all_to_all_vector);
}

static tcomm_status_t rows_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    return strided_run(st, a, tcomm_all_to_all_rows);
}

static tcomm_status_t alltoallw_run(tcomm_mpi_state_t *st,
                                    const tcomm_coll_args_t *a)
{
    return strided_run(st, a, tcomm_all_to_all_alltoallw);
}

int tcomm_all_to_all_pack_noted(struct tcomm_mpi_state *st,
                                const struct tcomm_mpi_coll_table *t,
                                tcomm_all_to_all_plan_t *p, const void *in,
                                void *out, int any_tmp)
{
    tcomm_path_t path =
        p->equal ? TCOMM_PATH_MPI_ALLTOALL : TCOMM_PATH_MPI_ALLTOALLV;
    int rc = tcomm_all_to_all_pack(p, in, out, any_tmp, st->comm, &path);
    tcomm_all_to_all_plan_free(p);
    tcomm_mpi_algo_note(st, t, path, path_what(path));
    return rc;
}

/* (a): split_pack where this rank's input is strided, the flat exchange
 * (MPI_Alltoall, or pieces between pairs above the count limit),
 * gather_unpack where its output is; the path says which, per rank. */
static tcomm_status_t pack_run(tcomm_mpi_state_t *st,
                               const tcomm_coll_args_t *a)
{
    tcomm_all_to_all_plan_t p;
    int rc = plan(st, a, &p);
    if (rc == MPI_SUCCESS)
        rc = tcomm_all_to_all_pack_noted(st, &tcomm_mpi_all_to_all_table, &p,
                                         a->in->data, a->out->data,
                                         p.souter > 1 || p.router > 1);
    return status(rc);
}

/* The ranges of the strided rows, measured on 2 ranks, [64, n/64] f32
 * (bench/alltoall_candidates, lower quartile of 40 interleaved calls on a
 * shared 2-core machine, ratios +-0.2 between runs), ratio to raw
 * MPI_Alltoall of the same bytes; split/concat 0/1 and 1/0 have one
 * strided side, 1/1 two:
 *
 *   bytes  s/c  (a)pack (b)a2aw (c)vec (d)rows (e)pull  kept
 *   4 KiB  0/1   1.80    2.32    2.59   7.25    6.11   pack
 *          1/0   1.50    3.52    3.24  13.35    7.72   pack
 *          1/1   1.62    4.48    4.35  13.17   36.09   pack
 *  64 KiB  0/1   1.31    1.38    1.30   1.77    1.28   pull
 *          1/0   2.18    2.23    1.65   3.55    1.58   pull
 *          1/1   2.40    2.31    1.68   2.81    5.35   vec
 * 256 KiB  0/1   1.38    1.34    1.57   5.21    1.11   pull
 *          1/0   2.19    1.40    1.83   1.69    1.27   pull
 *          1/1   2.13    1.42    1.90   1.80    2.96   a2aw
 *   1 MiB  0/1   1.47    1.76    1.68   2.33    1.10   pull
 *          1/0   1.51    1.77    1.95   3.45    1.16   pull
 *          1/1   1.99    1.81    1.97   3.43    1.49   pull
 *   4 MiB  0/1   1.75    1.76    1.61   1.41    0.86   pull
 *          1/0   2.42    6.19    4.61   1.87    0.90   pull
 *          1/1   2.94    4.04    4.30   1.65    0.85   pull
 *  16 MiB  0/1   1.73    3.42    3.26   1.09    1.02   pull
 *          1/0   1.73    3.31    3.43   1.09    1.01   pull
 *          1/1  10.18    4.40    4.28   1.18    0.66   pull
 *
 * A second run, at load 3-5, had the pull further ahead at 64 KiB (1.14
 * and 1.36 against 1.30-3.71); at 16 KiB it lost in the first run (1.37
 * and 1.69 against 0.90 and 0.96). Hence its threshold of 64 KiB.
 *
 * Why: MPI_Alltoall of contiguous blocks is one copy per byte (vader's
 * CMA rendezvous); a derived datatype or a temporary is two (copy-in/
 * copy-out, or the exchange plus pack/unpack), and one message per row
 * costs ~2-5 us a row, hidden only once rows are tens of KiB. The pull
 * is the single copy with the strides in its scatter lists; it has ~4 us
 * of fixed cost (two small MPI calls) and ~0.3 us per remote row, so it
 * goes first from 64 KiB with one strided side and from 1 MiB with two
 * (TCOMM_ALL_TO_ALL_PULL_MIN).
 * Below, and where it cannot run (not one node, no ptrace rights): the
 * temporary under 16 KiB (a few memcpy of little data beat any
 * datatype), per-peer vector messages under 256 KiB, then per-run
 * messages where a run has 32 KiB or more (TCOMM_ALL_TO_ALL_RUN_MIN), else
 * MPI_Alltoallw with two strided sides and the temporary with one. The
 * temporary is kept off two strided sides above 16 KiB: its buffer is twice the
 * tensor, and above glibc's 32 MiB mmap ceiling it comes fresh from mmap on
 * every call, its page faults costing 10x at 16 MiB. Every term is the same on
 * every rank of an equal call. */
static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_NODE_ALL_TO_ALL, "single copies on one node",
     TCOMM_NODE_MAPPED_MIN, TCOMM_MPI_ANY_SIZE, NULL, pull_run},
    {TCOMM_PATH_MPI_ALLTOALL,
     "contiguous blocks: MPI_Alltoall on host "
     "buffers",
     0, TCOMM_MPI_ANY_SIZE, flat, alltoall_run},
    {TCOMM_PATH_MPI_ALLTOALL_VECTOR, "MPI vector datatypes per peer",
     (size_t)16 << 10, (size_t)256 << 10, vector_applies, vector_run},
    {TCOMM_PATH_ALL_TO_ALL_ROWS, "rows as MPI messages", (size_t)256 << 10,
     TCOMM_MPI_ANY_SIZE, rows_applies, rows_run},
    {TCOMM_PATH_MPI_ALLTOALLW, "MPI_Alltoallw, a datatype per peer",
     (size_t)256 << 10, TCOMM_MPI_ANY_SIZE, alltoallw_applies, alltoallw_run},
    {TCOMM_PATH_PACK_MPI_ALLTOALL_UNPACK,
     "a temporary where strided: "
     "split_pack, MPI_Alltoall, gather_unpack",
     0, TCOMM_MPI_ANY_SIZE, NULL, pack_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_all_to_all_table, TCOMM_COLL_ALL_TO_ALL, "all_to_all",
                "input bytes", tcomm_mpi_input_bytes);
