/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_TUNE at 1-4 ranks: a rule puts the named algorithm first for its
 * sizes (the TRACE line's path says which ran), a named algorithm that
 * does not apply to the call leaves the default choice, and the results
 * are the reference's either way; a rule that does not parse, on any
 * rank, or rules that differ between the ranks, make
 * tcomm_comm_create_mpi fail on every rank with a sentence naming
 * TCOMM_TUNE, and nobody hangs. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "log_capture.h"

/* f32 elements a rank; TCOMM_SINGLE_COPY=0 keeps the single copies and
 * the calls carried by the agreement (which would take 1 KiB) away, so
 * that the default choice is MPI_Reduce_scatter_block at every count */
enum { LEN = 256 };

static tcomm_graph_t *host;

static void set_tune(const char *tune)
{
    if (tune)
        setenv("TCOMM_TUNE", tune, 1);
    else
        unsetenv("TCOMM_TUNE");
    tcomm_config_reload();
}

/* reduce_scatter SUM of rank r's [r + i] along dim 0 of [nranks * LEN]:
 * this rank's chunk holds sum_r (r + me * LEN + i). Returns the path. */
static void reduce_scatter(tcomm_comm_t *comm, const char *want_path)
{
    size_t shape[1] = {(size_t)nranks * LEN};
    float *v = malloc(shape[0] * sizeof *v);
    for (size_t i = 0; i < shape[0]; i++)
        v[i] = (float)(rank + (int)i);
    tcomm_tensor_t *in = NULL, *out = NULL;
    OK(tcomm_tensor_from_host(host, TCOMM_F32, v, 1, shape, &in));
    setenv("TCOMM_DEBUG", "TRACE", 1);
    tcomm_config_reload();
    capture();
    tcomm_status_t st = tcomm_reduce_scatter(comm, in, TCOMM_SUM, 0, &out);
    release_lines(" TRACE: ", NULL);
    setenv("TCOMM_DEBUG", "WARN", 1);
    tcomm_config_reload();
    if (st != TCOMM_SUCCESS)
        fail("reduce_scatter: %s", tcomm_last_error());
    char path[64];
    if (nranks > 1 && strcmp(traced_path("reduce_scatter", path, sizeof path),
                             want_path))
        fail("reduce_scatter took path '%s', want '%s'", path, want_path);
    const float *o = out ? tcomm_tensor_data(out) : NULL;
    for (int i = 0; o && i < LEN; i++) {
        float want = 0;
        for (int r = 0; r < nranks; r++)
            want += (float)(r + rank * LEN + i);
        if (o[i] != want) {
            fail("reduce_scatter[%d] = %g, want %g", i, (double)o[i],
                 (double)want);
            break;
        }
    }
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
    free(v);
}

static void tuned(const char *tune, const char *want_path)
{
    tcomm_comm_t *comm = NULL;
    set_tune(tune);
    OK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    if (comm)
        reduce_scatter(comm, want_path);
    tcomm_comm_destroy(comm);
}

/* Every rank's create fails with INVALID_ARG, the sentence naming
 * TCOMM_TUNE and, on this rank, containing want. */
static void refused(const char *tune, const char *want, const char *what)
{
    tcomm_comm_t *comm = NULL;
    set_tune(tune);
    tcomm_status_t st = tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm);
    if (st != TCOMM_ERR_INVALID_ARG || comm ||
        !strstr(tcomm_last_error(), "TCOMM_TUNE") ||
        !strstr(tcomm_last_error(), want))
        fail("%s: status %d, '%s' (want INVALID_ARG naming TCOMM_TUNE and "
             "'%s')",
             what, st, tcomm_last_error(), want);
    if (comm)
        tcomm_comm_destroy(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    setenv("TCOMM_SINGLE_COPY", "0", 1);
    tcomm_config_reload();
    OK(tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &host));

    /* below 256 KiB: MPI_Reduce_scatter_block by default */
    tuned(NULL, "mpi_reduce_scatter_block");
    tuned("reduce_scatter:0-:mpi_reduce_scatter", "mpi_reduce_scatter");
    /* a range that does not hold the call changes nothing */
    tuned("reduce_scatter:1m-:mpi_reduce_scatter",
          "mpi_reduce_scatter_block");
    /* the collective carried over to the next rule */
    tuned("all_reduce:0-4k:mpi_allreduce,broadcast:0-:mpi_bcast,"
          "reduce_scatter:0-64k:mpi_reduce_scatter,64k-:node_reduce_scatter",
          "mpi_reduce_scatter");
    /* along dim 0 the reshaping algorithm does not apply: the default */
    tuned("reduce_scatter:0-:mpi_reduce_scatter_reshape",
          "mpi_reduce_scatter_block");

    refused("reduce_scatter:0-:eager", "\"eager\" is not an algorithm of "
            "reduce_scatter", "an unknown algorithm");
    refused("allreduce:0-:mpi_allreduce", "\"allreduce\" is not a collective",
            "an unknown collective");
    refused("all_reduce:4k-1k:mpi_allreduce", "\"4k-1k\"", "a bad range");
    refused("all_reduce", "collective:from-to:algorithm", "no range");
    if (nranks > 1) {
        /* rank 0 alone is wrong: every rank hears of it */
        refused(rank == 0 ? "all_reduce:0-:nonsense"
                          : "all_reduce:0-:mpi_allreduce",
                rank == 0 ? "nonsense" : "another rank", "one bad rank");
        refused(rank == 0 ? "all_reduce:0-:mpi_allreduce"
                          : "all_reduce:0-1k:mpi_allreduce",
                "differs between the ranks", "different rules");
    }
    set_tune(NULL);

    tcomm_graph_destroy(host);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: mpi_tune at %d ranks\n", all ? "FAIL" : "PASS", nranks);
    MPI_Finalize();
    return all ? EXIT_FAILURE : EXIT_SUCCESS;
}
