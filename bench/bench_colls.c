/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of collectives: for each, the shapes of a message size, the
 * bytes and bus factor of the bandwidth columns, one tcomm call, one raw
 * MPI call on the same bytes, and the expected output (-c). */
#include <stdlib.h>
#include <string.h>

#include "tcomm_bench.h"

static int is_half(tcomm_dtype_t dtype)
{
    return dtype == TCOMM_F16 || dtype == TCOMM_BF16;
}

/* Elements of a message; 0 when bytes is not a whole number of them. */
static size_t elements(const bench_run_t *r, size_t bytes)
{
    return bytes % r->esize ? 0 : bytes / r->esize;
}

/* The raw reduction of the same bytes in the baseline's dtype: the run's,
 * or --baseline-dtype's, or f32 for f16/bf16, which MPI cannot sum
 * (mpi_count 0: no baseline, the bytes are not whole elements of it). */
tcomm_dtype_t bench_baseline_dtype(const bench_run_t *r)
{
    bench_kind_t k = r->coll->kind;
    if (k != BENCH_ALLREDUCE && k != BENCH_REDUCE_SCATTER)
        return r->opt->dtype; /* the same bytes, whatever they hold */
    if (r->opt->baseline_dtype_set)
        return r->opt->baseline_dtype;
    return is_half(r->opt->dtype) ? TCOMM_F32 : r->opt->dtype;
}

static void reduction_type(bench_run_t *r, size_t count, size_t bytes)
{
    tcomm_dtype_t bd = bench_baseline_dtype(r);
    size_t size = bench_dtype_size(bd);
    r->mpi_type = bench_mpi_type(bd);
    r->mpi_count = bd == r->opt->dtype ? count
                   : bytes % size      ? 0
                                       : bytes / size;
}

static void set_1d(bench_run_t *r, size_t count)
{
    r->ndim = 1;
    r->in_shape[0] = r->out_shape[0] = count;
    r->in_count = r->out_count = count;
}

/* [rows, count/rows] with rows <= 64, rows dividing count and the extent
 * along dim a multiple of @p div; 0 when there is none. */
size_t bench_pick_rows(size_t count, int dim, size_t div)
{
    for (size_t rows = count < 64 ? count : 64; rows >= 1; rows--) {
        if (count % rows)
            continue;
        if ((dim == 0 ? rows : count / rows) % div == 0)
            return rows;
    }
    return 0;
}

/* ---- allreduce ---- */

static bench_size_t allreduce_setup(bench_run_t *r, size_t bytes)
{
    size_t count = elements(r, bytes);
    if (!count)
        return BENCH_SIZE_PARTIAL;
    set_1d(r, count);
    reduction_type(r, count, bytes);
    return BENCH_SIZE_OK;
}

static tcomm_status_t allreduce_run(bench_run_t *r)
{
    if (!r->opt->alloc)
        return tcomm_all_reduce_into(r->comm, r->in, TCOMM_SUM, r->out);
    tcomm_tensor_release(r->result);
    r->result = NULL;
    return tcomm_all_reduce(r->comm, r->in, TCOMM_SUM, &r->result);
}

static int allreduce_mpi(bench_run_t *r)
{
    return MPI_Allreduce(r->mpi_in, r->mpi_out, (int)r->mpi_count,
                         r->mpi_type, MPI_SUM, r->mpi);
}

static double sum_over_ranks(const bench_run_t *r, size_t i)
{
    double s = 0.0;
    for (int k = 0; k < r->np; k++)
        s += bench_input_value(r, k, i);
    return s;
}

static double allreduce_expect(const bench_run_t *r, size_t i)
{
    return sum_over_ranks(r, i);
}

/* ---- allgather ---- */

static bench_size_t allgather_setup(bench_run_t *r, size_t bytes)
{
    size_t count = elements(r, bytes);
    if (!count)
        return BENCH_SIZE_PARTIAL;
    size_t rows = bench_pick_rows(count, r->opt->dim, 1); /* 1 at worst */
    r->ndim = 2;
    r->in_shape[0] = r->out_shape[0] = rows;
    r->in_shape[1] = r->out_shape[1] = count / rows;
    r->out_shape[r->opt->dim] *= (size_t)r->np;
    r->in_count = count;
    r->out_count = count * (size_t)r->np;
    r->mpi_type = bench_mpi_type(r->opt->dtype);
    r->mpi_count = count;
    return BENCH_SIZE_OK;
}

static tcomm_status_t allgather_run(bench_run_t *r)
{
    if (!r->opt->alloc)
        return tcomm_all_gather_into(r->comm, r->in, r->opt->dim, r->out);
    tcomm_tensor_release(r->result);
    r->result = NULL;
    return tcomm_all_gather(r->comm, r->in, r->opt->dim, &r->result);
}

static int allgather_mpi(bench_run_t *r)
{
    return MPI_Allgather(r->mpi_in, (int)r->mpi_count, r->mpi_type,
                         r->mpi_out, (int)r->mpi_count, r->mpi_type, r->mpi);
}

static double allgather_expect(const bench_run_t *r, size_t i)
{
    size_t ocols = r->out_shape[1], rows = r->in_shape[0];
    size_t cols = r->in_shape[1], a = i / ocols, b = i % ocols;
    if (r->opt->dim == 0)
        return bench_input_value(r, (int)(a / rows),
                                 (a % rows) * cols + b);
    return bench_input_value(r, (int)(b / cols), a * cols + b % cols);
}

/* ---- reduce_scatter ---- */

/* Equal chunks: a count that world_size does not divide is rounded down
 * to one it does (only for world sizes that are not powers of two), and
 * the size reported is the bytes actually reduced. */
static bench_size_t reduce_scatter_setup(bench_run_t *r, size_t bytes)
{
    size_t count = elements(r, bytes);
    if (!count)
        return BENCH_SIZE_PARTIAL;
    size_t whole = count - count % (size_t)r->np;
    if (!whole)
        return BENCH_SIZE_FEW;
    size_t rows = bench_pick_rows(whole, r->opt->dim, (size_t)r->np);
    if (!rows)
        return BENCH_SIZE_NO_ROWS;
    bytes = whole * r->esize;
    r->bytes = bytes;
    r->ndim = 2;
    r->in_shape[0] = r->out_shape[0] = rows;
    r->in_shape[1] = r->out_shape[1] = whole / rows;
    r->out_shape[r->opt->dim] /= (size_t)r->np;
    r->in_count = whole;
    r->out_count = whole / (size_t)r->np;
    reduction_type(r, r->out_count, bytes / (size_t)r->np);
    return whole == count ? BENCH_SIZE_OK : BENCH_SIZE_ROUNDED;
}

static tcomm_status_t reduce_scatter_run(bench_run_t *r)
{
    int dim = r->opt->dim;
    if (!r->opt->alloc)
        return tcomm_reduce_scatter_into(r->comm, r->in, TCOMM_SUM, dim,
                                         r->out);
    tcomm_tensor_release(r->result);
    r->result = NULL;
    return tcomm_reduce_scatter(r->comm, r->in, TCOMM_SUM, dim, &r->result);
}

/* Form 0: MPI_Reduce_scatter_block; form 1: MPI_Reduce_scatter with
 * equal counts (what OSU's osu_reduce_scatter times; Open MPI runs the
 * two through different algorithms). */
static int reduce_scatter_mpi(bench_run_t *r)
{
    if (r->mpi_form == 0)
        return MPI_Reduce_scatter_block(r->mpi_in, r->mpi_out,
                                        (int)r->mpi_count, r->mpi_type,
                                        MPI_SUM, r->mpi);
    if (!r->mpi_counts) {
        r->mpi_counts = malloc((size_t)r->np * sizeof(int));
        if (!r->mpi_counts) {
            fprintf(stderr, "%s: rank %d: out of memory\n", r->opt->prog,
                    r->rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (int k = 0; k < r->np; k++)
        r->mpi_counts[k] = (int)r->mpi_count;
    return MPI_Reduce_scatter(r->mpi_in, r->mpi_out, r->mpi_counts,
                              r->mpi_type, MPI_SUM, r->mpi);
}

static void reduce_scatter_release(bench_run_t *r)
{
    free(r->mpi_counts);
    r->mpi_counts = NULL;
}

static double reduce_scatter_expect(const bench_run_t *r, size_t i)
{
    size_t ocols = r->out_shape[1], cols = r->in_shape[1];
    size_t a = i / ocols, b = i % ocols, rank = (size_t)r->rank;
    if (r->opt->dim == 0)
        return sum_over_ranks(r, (rank * r->out_shape[0] + a) * cols + b);
    return sum_over_ranks(r, a * cols + rank * ocols + b);
}

/* ---- broadcast (in place, root 0, like OSU's single buffer) ---- */

static bench_size_t bcast_setup(bench_run_t *r, size_t bytes)
{
    size_t count = elements(r, bytes);
    if (!count)
        return BENCH_SIZE_PARTIAL;
    set_1d(r, count);
    r->mpi_type = bench_mpi_type(r->opt->dtype);
    r->mpi_count = count;
    return BENCH_SIZE_OK;
}

static tcomm_status_t bcast_run(bench_run_t *r)
{
    if (!r->opt->alloc)
        return tcomm_broadcast_into(r->comm, r->in, 0, r->in);
    tcomm_tensor_release(r->result);
    r->result = NULL;
    return tcomm_broadcast(r->comm, r->in, 0, &r->result);
}

static int bcast_mpi(bench_run_t *r)
{
    return MPI_Bcast(r->mpi_in, (int)r->mpi_count, r->mpi_type, 0, r->mpi);
}

static double bcast_expect(const bench_run_t *r, size_t i)
{
    return bench_input_value(r, 0, i);
}

/* ---- reduce (root 0, as OSU's osu_reduce) ---- */

static tcomm_status_t reduce_run(bench_run_t *r)
{
    return tcomm_reduce_into(r->comm, r->in, TCOMM_SUM, 0,
                             r->rank == 0 ? r->out : NULL);
}

static int reduce_mpi(bench_run_t *r)
{
    return MPI_Reduce(r->mpi_in, r->mpi_out, (int)r->mpi_count, r->mpi_type,
                      MPI_SUM, 0, r->mpi);
}

/* The sum on the root; elsewhere out stays poisoned (bench_poison). */
static double reduce_expect(const bench_run_t *r, size_t i)
{
    unsigned char poison[8];
    if (r->rank == 0)
        return sum_over_ranks(r, i);
    bench_poison(poison, sizeof poison);
    return bench_load(r->opt->dtype, poison, 0);
}

/* ---- barrier ---- */

static bench_size_t barrier_setup(bench_run_t *r, size_t bytes)
{
    r->ndim = 0;
    r->in_count = r->out_count = 0;
    r->mpi_type = MPI_BYTE;
    r->mpi_count = 1;
    return BENCH_SIZE_OK;
}

static tcomm_status_t barrier_run(bench_run_t *r)
{
    return tcomm_barrier(r->comm);
}

static int barrier_mpi(bench_run_t *r)
{
    return MPI_Barrier(r->mpi);
}

/* ---- bandwidth (nccl-tests definitions) ---- */

static double bytes_per_rank(const bench_run_t *r)
{
    return (double)r->bytes;
}

static double bytes_total(const bench_run_t *r)
{
    return (double)r->bytes * r->np;
}

static double no_bytes(const bench_run_t *r)
{
    return 0.0;
}

static double factor_allreduce(int np)
{
    return 2.0 * (np - 1) / np;
}

static double factor_ring(int np)
{
    return (double)(np - 1) / np;
}

static double factor_one(int np)
{
    return 1.0;
}

static const bench_coll_t colls[BENCH_ALLTOALL] = {
    {BENCH_ALLREDUCE, "allreduce", "Allreduce", 1, 0, allreduce_setup,
     bytes_per_rank, factor_allreduce, allreduce_run, allreduce_mpi,
     allreduce_expect, NULL, NULL},
    {BENCH_ALLGATHER, "allgather", "Allgather", 1, 1, allgather_setup,
     bytes_total, factor_ring, allgather_run, allgather_mpi,
     allgather_expect, NULL, NULL},
    {BENCH_REDUCE_SCATTER, "reduce_scatter", "Reduce_scatter", 1, 1,
     reduce_scatter_setup, bytes_per_rank, factor_ring, reduce_scatter_run,
     reduce_scatter_mpi, reduce_scatter_expect, NULL,
     reduce_scatter_release},
    {BENCH_BCAST, "bcast", "Broadcast", 1, 0, bcast_setup, bytes_per_rank,
     factor_one, bcast_run, bcast_mpi, bcast_expect, NULL, NULL},
    {BENCH_BARRIER, "barrier", "Barrier", 0, 0, barrier_setup, no_bytes,
     factor_one, barrier_run, barrier_mpi, NULL, NULL, NULL},
    {BENCH_REDUCE, "reduce", "Reduce", 1, 0, allreduce_setup, bytes_per_rank,
     factor_one, reduce_run, reduce_mpi, reduce_expect, NULL, NULL},
};

const bench_coll_t *bench_coll_find(const char *name)
{
    for (int i = 0; i < BENCH_KIND_COUNT; i++)
        if (strcmp(bench_coll_at(i)->name, name) == 0)
            return bench_coll_at(i);
    return NULL;
}

const bench_coll_t *bench_coll_at(int index)
{
    if (index == BENCH_ALLTOALL)
        return &bench_alltoall_coll; /* a file of its own */
    return index >= 0 && index < BENCH_ALLTOALL ? &colls[index] : NULL;
}

int bench_mpi_forms(const bench_run_t *r)
{
    return r->coll->kind == BENCH_REDUCE_SCATTER ? 2 : 1;
}

const char *bench_mpi_call(const bench_run_t *r, int form)
{
    switch (r->coll->kind) {
    case BENCH_ALLREDUCE: return "MPI_Allreduce";
    case BENCH_ALLGATHER: return "MPI_Allgather";
    case BENCH_REDUCE_SCATTER:
        return form ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block";
    case BENCH_BCAST: return "MPI_Bcast";
    case BENCH_BARRIER: return "MPI_Barrier";
    case BENCH_REDUCE: return "MPI_Reduce";
    case BENCH_ALLTOALL:
        return r->opt->uneven ? "MPI_Alltoallv" : "MPI_Alltoall";
    case BENCH_KIND_COUNT: break;
    }
    return "?";
}
