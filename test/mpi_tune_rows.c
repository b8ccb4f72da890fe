/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_TUNE over the tables of all_to_all, all_to_all_v,
 * reduce_scatter_v and barrier, at 1-4 ranks: a rule puts a row first
 * for a call it applies to where the default is another row (the TRACE
 * line's path says which ran, at 2-4 ranks; one rank takes single_rank),
 * a row that does not apply leaves the default, and every result is the
 * independent reference's (test/mpi_a2a_ref.c, test/mpi_reference.c),
 * the input unchanged. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_capture.h"
#include "mpi_a2a_ref.h"
#include "mpi_reference.h"
#include "tcomm_config.h"
#include "tcomm_internal.h"
#include "tcomm_mpi.h"

static tcomm_graph_t *host;

static void set(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* A communicator under TCOMM_TUNE=tune, TCOMM_SINGLE_COPY=copy,
 * TCOMM_TIMEOUT=timeout (NULL: unset). */
static tcomm_comm_t *comm_with(const char *tune, const char *copy,
                               const char *timeout)
{
    tcomm_comm_t *comm = NULL;
    set("TCOMM_TUNE", tune);
    set("TCOMM_SINGLE_COPY", copy);
    set("TCOMM_TIMEOUT", timeout);
    tcomm_config_reload();
    OK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    return comm;
}

static void trace_on(void)
{
    setenv("TCOMM_DEBUG", "TRACE", 1);
    tcomm_config_reload();
    capture();
}

/* Tracing off; the call of coll took want (at 2-4 ranks). */
static void traced(const char *what, const char *coll, const char *want)
{
    char path[64];
    release_lines(" TRACE: ", NULL);
    setenv("TCOMM_DEBUG", "WARN", 1);
    tcomm_config_reload();
    traced_path(coll, path, sizeof path);
    if (nranks > 1 && strcmp(path, want))
        fail("%s: path '%s', want '%s'", what, path, want);
}

/* The call's input unchanged; everything released. */
static void done(const char *what, tcomm_tensor_t *in, tcomm_tensor_t *out,
                 tcomm_comm_t *comm, void *data, size_t bytes)
{
    if (in && memcmp(tcomm_tensor_data(in), data, bytes))
        fail("%s: the input changed", what);
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
    tcomm_comm_destroy(comm);
    free(data);
}

static size_t numel(int nd, const size_t *shape)
{
    size_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    return n;
}

/* all_to_all (v = 0) or all_to_all_v of f32 laid out as rk, under the
 * settings; the path it must take at 2-4 ranks. */
static void a2a(const char *what, const char *tune, const char *copy, int v,
                int nd, const a2a_rank_t *rk, int s, int c, const char *want)
{
    size_t oshape[A2A_MAX_DIMS], n = numel(nd, rk[rank].shape);
    double *ref;
    size_t on = a2a_expect(TCOMM_F32, nd, s, c, nranks, rk, rank, oshape,
                           &ref);
    float *data = malloc(n * sizeof *data + 1);
    tcomm_tensor_t *in = NULL, *out = NULL;
    ref_fill(TCOMM_F32, -1, rank, data, n);
    OK(tcomm_tensor_from_host(host, TCOMM_F32, data, nd, rk[rank].shape,
                              &in));
    tcomm_comm_t *comm = comm_with(tune, copy, NULL);
    trace_on();
    tcomm_status_t st =
        !comm || !in ? TCOMM_ERR_INVALID_ARG
        : v ? tcomm_all_to_all_v(comm, in, s, rk[rank].send, c, &out)
            : tcomm_all_to_all(comm, in, s, c, &out);
    traced(what, v ? "all_to_all_v" : "all_to_all", want);
    if (on == (size_t)-1 || st != TCOMM_SUCCESS)
        fail("%s: %s", what, on == (size_t)-1 ? "broken layout"
                                              : tcomm_last_error());
    const float *o = out ? tcomm_tensor_data(out) : NULL;
    for (size_t i = 0; o && i < on; i++)
        if (o[i] != ref[i]) {
            fail("%s: [%zu] = %g, want %g", what, i, (double)o[i], ref[i]);
            break;
        }
    done(what, in, out, comm, data, n * sizeof *data);
    free(ref);
}

static void a2a_equal(const char *what, const char *tune, const char *copy,
                      size_t rows, size_t cols, int s, int c,
                      const char *want)
{
    a2a_rank_t rk[A2A_MAX_RANKS];
    size_t shape[2] = {rows, cols};
    a2a_equal_ranks(rk, nranks, 2, shape, s);
    a2a(what, tune, copy, 0, 2, rk, s, c, want);
}

/* all_to_all_v's token mode along dim s of [rows][cols] (pieces of unit
 * rows or columns). */
static void a2a_token(const char *what, const char *tune, const char *copy,
                      size_t rows, size_t cols, int s, size_t unit,
                      const char *want)
{
    a2a_rank_t rk[A2A_MAX_RANKS];
    size_t base[2] = {rows, cols};
    a2a_token_ranks(rk, nranks, 2, base, s, 1, unit);
    a2a(what, tune, copy, 1, 2, rk, s, s, want);
}

/* reduce_scatter_v SUM of f32 [rows][cols] along dim, rank r's chunk
 * sizes[r] along it. */
static void rsv(const char *what, const char *tune, size_t rows,
                size_t cols, int dim, const size_t *sizes, const char *want)
{
    size_t shape[2] = {rows, cols}, n = rows * cols;
    size_t inner = dim ? 1 : cols, before = 0;
    for (int r = 0; r < rank; r++)
        before += sizes[r];
    float *data = malloc(n * sizeof *data);
    tcomm_tensor_t *in = NULL, *out = NULL;
    ref_fill(TCOMM_F32, TCOMM_SUM, rank, data, n);
    OK(tcomm_tensor_from_host(host, TCOMM_F32, data, 2, shape, &in));
    tcomm_comm_t *comm = comm_with(tune, "0", NULL);
    trace_on();
    tcomm_status_t st = !comm || !in ? TCOMM_ERR_INVALID_ARG
                                     : tcomm_reduce_scatter_v(comm, in,
                                                              TCOMM_SUM, dim,
                                                              sizes, &out);
    traced(what, "reduce_scatter_v", want);
    if (st != TCOMM_SUCCESS)
        fail("%s: %s", what, tcomm_last_error());
    /* this rank's chunk: rows [before, +sizes[me]) along dim 0, or
     * columns of every row along dim 1 */
    const float *o = out ? tcomm_tensor_data(out) : NULL;
    size_t orows = dim ? rows : sizes[rank], ocols = dim ? sizes[rank] : cols;
    for (size_t i = 0; o && i < orows * ocols; i++) {
        size_t row = i / ocols, col = i % ocols;
        size_t at = dim ? row * cols + before + col
                        : (before + row) * inner + col;
        double want_v = ref_reduce(TCOMM_F32, TCOMM_SUM, nranks, at);
        if (!ref_match(TCOMM_F32, TCOMM_SUM, o[i], want_v)) {
            fail("%s: [%zu] = %g, want %g", what, i, (double)o[i], want_v);
            break;
        }
    }
    done(what, in, out, comm, data, n * sizeof *data);
}

/* An unchecked barrier (the backend's) under the settings. */
static void barrier(const char *what, const char *tune, const char *want)
{
    tcomm_comm_t *comm = comm_with(tune, NULL, NULL);
    if (comm)
        OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 0));
    trace_on();
    tcomm_status_t st = comm ? tcomm_barrier(comm) : TCOMM_ERR_INVALID_ARG;
    traced(what, "barrier", want);
    if (st != TCOMM_SUCCESS)
        fail("%s: %s", what, tcomm_last_error());
    tcomm_comm_destroy(comm);
}

/* Under TCOMM_TIMEOUT the front end's agreement is the barrier, so the
 * backend's timed row is called through the backend itself (as an
 * outside front end would): its INFO line names the row that ran. */
static void timed_barrier(const char *what, const char *tune)
{
    tcomm_comm_t *comm = comm_with(tune, NULL, "60");
    if (!comm || nranks == 1) { /* one rank: no timeout layer */
        tcomm_comm_destroy(comm);
        return;
    }
    setenv("TCOMM_DEBUG", "INFO", 1);
    tcomm_config_reload();
    capture();
    tcomm_coll_args_t args = {.size = sizeof args,
                              .coll = TCOMM_COLL_BARRIER};
    comm->seq++; /* a collective entered, as the front end counts them */
    tcomm_status_t st = comm->ops->collective(comm->state, &args);
    release_lines("[path=", NULL);
    setenv("TCOMM_DEBUG", "WARN", 1);
    tcomm_config_reload();
    if (st != TCOMM_SUCCESS)
        fail("%s: status %d", what, st);
    if (nlines != 1 || !strstr(lines[0], "[path=timeout_barrier]"))
        fail("%s: %d INFO lines, the first '%s' (want one naming "
             "timeout_barrier)", what, nlines, nlines ? lines[0] : "");
    tcomm_comm_destroy(comm);
}

static void all_to_all_rows(void)
{
    size_t n = (size_t)nranks;
    /* flat, 16 KiB a rank: the pull by default with single copies */
    a2a_equal("mpi_alltoall first", "all_to_all:0-:mpi_alltoall", "1",
              n * 1024, 4, 0, 0, "mpi_alltoall");
    /* (its default too: nothing goes before it) */
    a2a_equal("node_all_to_all first", "all_to_all:0-:node_all_to_all", "1", 16,
              n * 256, 1, 1, "node_all_to_all");
    /* strided on both sides, 2 KiB a rank per peer: the temporary by
     * default (below 16 KiB) */
    a2a_equal("mpi_alltoall_vector first",
              "all_to_all:0-:mpi_alltoall_vector", "0", 16, n * 32, 1, 1,
              "mpi_alltoall_vector");
    a2a_equal("mpi_alltoallw first", "all_to_all:0-:mpi_alltoallw", "0", 16,
              n * 32, 1, 1, "mpi_alltoallw");
    /* runs of 32 KiB, 64 KiB a rank per peer: vector below 256 KiB */
    a2a_equal("all_to_all_rows first", "all_to_all:0-:all_to_all_rows", "0", 2,
              n * 8192, 1, 1, "all_to_all_rows");
    /* the word an earlier release spelled it with still names it */
    a2a_equal("the earlier word mpi_alltoall_rows",
              "all_to_all:0-:mpi_alltoall_rows", "0", 2, n * 8192, 1, 1,
              "all_to_all_rows");
    /* 64 KiB strided on both sides: vector by default */
    a2a_equal("pack first", "all_to_all:0-:pack+mpi_alltoall+unpack", "0",
              16, n * 1024, 1, 1, "pack+mpi_alltoall+unpack");
    /* runs of 128 B: the rows do not apply, the default (the temporary) */
    a2a_equal("all_to_all_rows, not applying", "all_to_all:0-:all_to_all_rows",
              "0", 16, n * 32, 1, 1, "pack+mpi_alltoall+unpack");
    a2a_equal("mpi_alltoall, not applying", "all_to_all:0-:mpi_alltoall",
              "0", 16, n * 32, 1, 1, "pack+mpi_alltoall+unpack");
    a2a_equal("a range that does not hold the call",
              "all_to_all:1m-:mpi_alltoallw", "0", 16, n * 32, 1, 1,
              "pack+mpi_alltoall+unpack");
}

static void all_to_all_v_rows(void)
{
    /* contiguous pieces, 8-32 KiB a rank: the pull by default */
    a2a_token("mpi_alltoallv first", "all_to_all_v:0-:mpi_alltoallv", "1",
              64, 64, 0, 16, "mpi_alltoallv");
    a2a_token("node_all_to_all_v first", "all_to_all_v:0-:node_all_to_all_v",
              "1", 64, 64, 0, 16, "node_all_to_all_v");
    /* contiguous: the temporary's row takes it without one */
    a2a_token("pack row first, contiguous",
              "all_to_all_v:0-:pack+mpi_alltoallv+unpack", "0", 64, 64, 0,
              16, "mpi_alltoallv");
    /* strided pieces: the MPI_Alltoallv row does not apply */
    a2a_token("mpi_alltoallv, not applying", "all_to_all_v:0-:mpi_alltoallv",
              "0", 8, 64, 1, 4, "pack+mpi_alltoallv+unpack");
}

static void reduce_scatter_v_rows(void)
{
    size_t equal[4], uneven[4], big[4], wide[4];
    for (int r = 0; r < nranks; r++) {
        equal[r] = 8;
        uneven[r] = (size_t)(r % 3) * 4 + 4;
        big[r] = 16384 * (size_t)(r + 1);
        wide[r] = 32768;
    }
    /* dim 0, equal: MPI_Reduce_scatter_block by default */
    rsv("mpi_reduce_scatter first", "reduce_scatter_v:0-:mpi_reduce_scatter",
        (size_t)nranks * 8, 16, 0, equal, "mpi_reduce_scatter");
    rsv("mpi_reduce_scatter_reshape, not applying",
        "reduce_scatter_v:0-:mpi_reduce_scatter_reshape", (size_t)nranks * 8,
        16, 0, equal, "mpi_reduce_scatter_block");
    /* dim 1, equal, two groups of 32768 columns a rank: the reshaping by
     * default */
    rsv("mpi_reduce_scatter_pipe first",
        "reduce_scatter_v:0-:mpi_reduce_scatter_pipe", 2,
        (size_t)nranks * 32768, 1, wide, "mpi_reduce_scatter_pipe");
    /* dim 1, uneven, in two groups at least: the pipeline by default */
    size_t cols = 0;
    for (int r = 0; r < nranks; r++)
        cols += big[r];
    rsv("mpi_reduce_scatter_pack first",
        "reduce_scatter_v:0-:mpi_reduce_scatter_pack", 2, cols, 1, big,
        "mpi_reduce_scatter_pack");
    /* dim 1, uneven, one group: split_pack whole by default */
    cols = 0;
    for (int r = 0; r < nranks; r++)
        cols += uneven[r];
    rsv("mpi_reduce_scatter_block, not applying",
        "reduce_scatter_v:0-:mpi_reduce_scatter_block", 4, cols, 1, uneven,
        "mpi_reduce_scatter_pack");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    OK(tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &host));

    all_to_all_rows();
    all_to_all_v_rows();
    reduce_scatter_v_rows();
    barrier("mpi_barrier by default", NULL, "mpi_barrier");
    barrier("timeout_barrier, not applying", "barrier:0-:timeout_barrier",
            "mpi_barrier");
    timed_barrier("timeout_barrier under TCOMM_TIMEOUT", NULL);
    timed_barrier("mpi_barrier under TCOMM_TIMEOUT, not applying",
                  "barrier:0-:mpi_barrier");

    set("TCOMM_TUNE", NULL);
    set("TCOMM_SINGLE_COPY", NULL);
    set("TCOMM_TIMEOUT", NULL);
    tcomm_config_reload();
    tcomm_graph_destroy(host);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: mpi_tune_rows at %d ranks\n", all ? "FAIL" : "PASS",
               nranks);
    MPI_Finalize();
    return all ? EXIT_FAILURE : EXIT_SUCCESS;
}
