/* SPDX-License-Identifier: BSD-3-Clause */
/* osu_tcomm_alltoall's row of the table of collectives. As in OSU's
 * osu_alltoall, a message size is the bytes each rank sends to each rank
 * (the input holds world_size of them). That chunk is the 2-D
 * [rows, n/rows] of --dim (rows the largest divisor of n up to 64); the
 * input stacks world_size chunks along --split-dim and the output gathers
 * them along --concat-dim. --uneven calls tcomm_all_to_all_v with sizes
 * along split that differ from peer to peer and rank to rank (the token
 * exchange when split == concat: each rank still sends and receives n
 * elements per peer on average; the transpose otherwise: the same
 * send_sizes everywhere, the ranks' sizes along concat differing), and
 * the baseline is MPI_Alltoallv on the same counts. Inputs come from a
 * hash of (rank, index), so that a chunk taken from the wrong place or
 * rank fails -c (bench_value repeats every 8 elements). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "tcomm_bench.h"

typedef struct {
    size_t *sx, *sy;     /* --uneven shares of x and y, by position */
    size_t *send_sizes;  /* this rank's, for tcomm_all_to_all_v */
    int *sc, *sd, *rc, *rd; /* MPI_Alltoallv's counts and displacements */
    size_t x, y;         /* the chunk's extents along split and the other */
} a2a_t;

/* Exact in every dtype (0..127); mixes the index so chunks differ. */
static double a2a_value(int rank, size_t i)
{
    uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15u +
                 (uint64_t)rank * 0xbf58476d1ce4e5b9u + 1;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebu;
    h ^= h >> 29;
    return (double)(h & 127u);
}

static a2a_t *state(bench_run_t *r)
{
    if (!r->coll_state) {
        size_t n = (size_t)r->np;
        a2a_t *a = calloc(1, sizeof(*a));
        size_t *z = a ? calloc(3 * n, sizeof(size_t)) : NULL;
        int *c = z ? calloc(4 * n, sizeof(int)) : NULL;
        if (!c) {
            fprintf(stderr, "%s: rank %d: out of memory\n", r->opt->prog,
                    r->rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        a->sx = z, a->sy = z + n, a->send_sizes = z + 2 * n;
        a->sc = c, a->sd = c + n, a->rc = c + 2 * n, a->rd = c + 3 * n;
        r->coll_state = a;
    }
    return r->coll_state;
}

static void a2a_release(bench_run_t *r)
{
    a2a_t *a = r->coll_state;
    if (a) {
        free(a->sx);
        free(a->sc);
        free(a);
    }
    r->coll_state = NULL;
}

/* n*v split into n shares, position k of (2k+1)/n * v (rounded down; the
 * last takes the rest): they differ, add up to n*v, and may be 0. */
static void shares(size_t v, int n, size_t *out)
{
    size_t left = v * (size_t)n;
    for (int k = 0; k < n - 1; k++) {
        out[k] = v * (size_t)(2 * k + 1) / (size_t)n;
        left -= out[k];
    }
    out[n - 1] = left;
}

static int split(const bench_run_t *r) { return r->opt->split_dim; }
static int concat(const bench_run_t *r) { return r->opt->concat_dim; }
static int token(const bench_run_t *r) { return split(r) == concat(r); }

/* Size along split of rank @p from's chunk for rank @p to. */
static size_t send_size(const bench_run_t *r, int from, int to)
{
    const a2a_t *a = r->coll_state;
    if (!r->opt->uneven)
        return a->x;
    return a->sx[token(r) ? (from + to) % r->np : to];
}

/* Size of rank @p rank's input along the dim that is not split's. */
static size_t other_size(const bench_run_t *r, int rank)
{
    const a2a_t *a = r->coll_state;
    return r->opt->uneven && !token(r) ? a->sy[rank] : a->y;
}

/* MPI_Alltoallv's counts on the same elements; 0 if one is above int. */
static int mpi_counts(bench_run_t *r)
{
    a2a_t *a = r->coll_state;
    size_t so = 0, ro = 0;
    for (int j = 0; j < r->np; j++) {
        size_t s = send_size(r, r->rank, j) * other_size(r, r->rank);
        size_t q = send_size(r, j, r->rank) * other_size(r, j);
        if (so + s > INT_MAX || ro + q > INT_MAX)
            return 0;
        a->sc[j] = (int)s, a->sd[j] = (int)so;
        a->rc[j] = (int)q, a->rd[j] = (int)ro;
        so += s, ro += q;
    }
    return 1;
}

static bench_size_t a2a_setup(bench_run_t *r, size_t bytes)
{
    a2a_t *a = state(r);
    size_t count = bytes % r->esize ? 0 : bytes / r->esize, n = (size_t)r->np;
    int s = split(r), c = concat(r);
    if (!count)
        return BENCH_SIZE_PARTIAL;
    size_t rows = bench_pick_rows(count, 0, 1); /* 1 at worst */
    size_t chunk[2] = {rows, count / rows};
    a->x = chunk[s];
    a->y = chunk[1 - s];
    shares(a->x, r->np, a->sx);
    shares(a->y, r->np, a->sy);
    for (int j = 0; j < r->np; j++)
        a->send_sizes[j] = send_size(r, r->rank, j);
    r->ndim = 2;
    r->in_shape[s] = a->x * n;
    r->in_shape[1 - s] = other_size(r, r->rank);
    r->out_shape[0] = r->in_shape[0];
    r->out_shape[1] = r->in_shape[1];
    r->out_shape[c] = 0; /* the pieces from every rank along concat */
    for (int k = 0; k < r->np; k++)
        r->out_shape[c] += token(r) ? send_size(r, k, r->rank)
                                    : other_size(r, k);
    if (!token(r))
        r->out_shape[s] = send_size(r, 0, r->rank); /* one chunk's */
    r->in_count = r->in_shape[0] * r->in_shape[1];
    r->out_count = r->out_shape[0] * r->out_shape[1];
    r->mpi_type = bench_mpi_type(r->opt->dtype);
    r->mpi_count = count; /* per peer (MPI_Alltoall) */
    if (r->opt->uneven && !mpi_counts(r))
        r->mpi_count = 0; /* no baseline at this size */
    return BENCH_SIZE_OK;
}

static tcomm_status_t a2a_run(bench_run_t *r)
{
    int s = split(r), c = concat(r);
    if (!r->opt->alloc && !r->opt->uneven)
        return tcomm_all_to_all_into(r->comm, r->in, s, c, r->out);
    tcomm_tensor_release(r->result);
    r->result = NULL;
    if (r->opt->uneven)
        return tcomm_all_to_all_v(r->comm, r->in, s,
                                  ((a2a_t *)r->coll_state)->send_sizes, c,
                                  &r->result);
    return tcomm_all_to_all(r->comm, r->in, s, c, &r->result);
}

static int a2a_mpi(bench_run_t *r)
{
    const a2a_t *a = r->coll_state;
    if (r->opt->uneven)
        return MPI_Alltoallv(r->mpi_in, a->sc, a->sd, r->mpi_type,
                             r->mpi_out, a->rc, a->rd, r->mpi_type, r->mpi);
    return MPI_Alltoall(r->mpi_in, (int)r->mpi_count, r->mpi_type,
                        r->mpi_out, (int)r->mpi_count, r->mpi_type, r->mpi);
}

/* Output element i: the rank whose piece holds it along concat, and
 * where that rank's input had it. */
static double a2a_expect(const bench_run_t *r, size_t i)
{
    int s = split(r), c = concat(r), me = r->rank, from = 0;
    size_t o[2] = {i / r->out_shape[1], i % r->out_shape[1]};
    size_t off = 0, piece;
    for (;; from++) {
        piece = token(r) ? send_size(r, from, me) : other_size(r, from);
        if (o[c] < off + piece || from == r->np - 1)
            break;
        off += piece;
    }
    size_t src[2] = {o[0], o[1]}, start = 0;
    for (int j = 0; j < me; j++)
        start += send_size(r, from, j);
    src[c] = o[c] - off;
    src[s] = start + (token(r) ? src[s] : o[s]);
    size_t cols = s == 1 ? ((const a2a_t *)r->coll_state)->x * r->np
                         : other_size(r, from);
    return bench_input_value(r, from, src[0] * cols + src[1]);
}

static double a2a_bytes(const bench_run_t *r)
{
    return (double)(r->in_count * r->esize); /* nccl-tests: all it sends */
}

static double a2a_factor(int np)
{
    return (double)(np - 1) / np;
}

const bench_coll_t bench_alltoall_coll = {
    BENCH_ALLTOALL, "alltoall", "All-to-All Personalized Exchange", 1, 0,
    a2a_setup, a2a_bytes, a2a_factor, a2a_run, a2a_mpi, a2a_expect,
    a2a_value, a2a_release,
};

void bench_alltoall_header(const bench_run_t *r)
{
    const bench_opts_t *o = r->opt;
    printf("# Size: bytes each rank sends to each rank%s (the input holds "
           "%d of them), a [rows<=64, n/rows] chunk;\n# split dim %d, "
           "concat dim %d, %s\n", o->uneven ? " on average" : "", r->np,
           o->split_dim, o->concat_dim,
           !o->uneven ? "equal chunks (tcomm_all_to_all)"
           : o->split_dim == o->concat_dim
               ? "uneven sizes per peer, token exchange (tcomm_all_to_all_v)"
               : "uneven sizes, transpose (tcomm_all_to_all_v)");
}

void bench_alltoall_json(FILE *f, const bench_run_t *r)
{
    fprintf(f, "\"split_dim\": %d, \"concat_dim\": %d, \"uneven\": %d, ",
            r->opt->split_dim, r->opt->concat_dim, r->opt->uneven);
}
