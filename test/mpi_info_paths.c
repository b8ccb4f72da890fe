/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_DEBUG=INFO names the path of every collective, at 1-4 ranks: on
 * the mpi backend, every (collective, path) that a TRACE line reports
 * has an INFO line "tcomm[rank R] INFO: COLL: ... [path=P]" on that rank.
 * The calls are chosen to reach the paths whose INFO bits used to
 * collide (reduce_scatter's mpi_reduce_scatter and reduce_scatter_v's
 * mpi_reduce_scatter_block; the single-copy paths and the sim device
 * paths) and those that logged nothing (eager, all_to_all, all_to_all_v,
 * single rank); at INFO alone the lines are there too. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_sim.h"
#include "tcomm_test_hooks.h"
#include "log_capture.h"

/* Is there an INFO line of this rank for coll that names path? */
static int has_info(const char *coll, const char *path, size_t path_len)
{
    char head[64], tail[160];
    snprintf(head, sizeof head, "tcomm[rank %d] INFO: %s: ", rank, coll);
    snprintf(tail, sizeof tail, " [path=%.*s]", (int)path_len, path);
    for (int i = 0; i < nlines; i++) {
        size_t n = strlen(lines[i]), t = strlen(tail);
        if (!strncmp(lines[i], head, strlen(head)) && n >= t &&
            !strcmp(lines[i] + n - t, tail))
            return 1;
    }
    return 0;
}

/* Every successful call's (coll, path) of the TRACE lines has its INFO
 * line; returns how many calls were checked. */
static int every_path_logged(const char *what)
{
    int calls = 0;
    for (int i = 0; i < nlines; i++) {
        const char *c = strstr(lines[i], " coll="),
                   *p = strstr(lines[i], " path=");
        if (!strstr(lines[i], " TRACE: ") || !c || !p ||
            !strstr(lines[i], "status=TCOMM_SUCCESS"))
            continue;
        char coll[64];
        snprintf(coll, sizeof coll, "%.*s", (int)strcspn(c + 6, " "), c + 6);
        size_t pl = strcspn(p + 6, " ");
        calls++;
        if (!has_info(coll, p + 6, pl))
            fail("%s: no INFO line '%s: ... [path=%.*s]' (call: %s)", what,
                 coll, (int)pl, p + 6, lines[i]);
    }
    return calls;
}

static tcomm_tensor_t *vec(tcomm_graph_t *g, size_t n)
{
    tcomm_tensor_t *t = NULL;
    OK(tcomm_tensor_empty(g, TCOMM_F32, 1, &n, &t));
    return t;
}

static void drop(tcomm_tensor_t **t)
{
    tcomm_tensor_release(*t);
    *t = NULL;
}

/* One call of each collective on g, f32 along dim 0; each input of each
 * rank is `each` elements per rank (each * 4 bytes per peer). */
static void calls(tcomm_comm_t *comm, tcomm_graph_t *g, size_t each)
{
    size_t n = (size_t)nranks, sizes[4] = {each, each, each, each};
    tcomm_tensor_t *a = vec(g, n * each), *out = NULL;
    OK(tcomm_all_reduce(comm, a, TCOMM_SUM, &out));
    drop(&out);
    OK(tcomm_reduce_scatter(comm, a, TCOMM_SUM, 0, &out));
    drop(&out);
    OK(tcomm_reduce_scatter_v(comm, a, TCOMM_SUM, 0, sizes, &out));
    drop(&out);
    OK(tcomm_all_gather(comm, a, 0, &out));
    drop(&out);
    OK(tcomm_broadcast(comm, a, 0, &out));
    drop(&out);
    OK(tcomm_all_to_all(comm, a, 0, 0, &out));
    drop(&out);
    OK(tcomm_all_to_all_v(comm, a, 0, sizes, 0, &out));
    drop(&out);
    drop(&a);
}

/* TRACE (and so INFO) on a new communicator: its paths at host sizes
 * that skip the agreement's round (64 KiB per peer, or the NO_EAGER
 * hook), deterministic, on sim device tensors, and the eager round. */
static void test_every_path(const char *single_copy)
{
    char what[64];
    snprintf(what, sizeof what, "TCOMM_SINGLE_COPY=%s", single_copy);
    setenv("TCOMM_SINGLE_COPY", single_copy, 1);
    setenv("TCOMM_DEBUG", "TRACE", 1);
    tcomm_config_reload();
    tcomm_comm_t *comm = NULL;
    tcomm_graph_t *host = NULL, *sim = NULL;
    OK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    OK(tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &host));
    OK(tcomm_graph_create_sim(0, &sim));
    capture();
    calls(comm, host, 65536);
    tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 1);
    calls(comm, host, 16);
    OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1));
    calls(comm, host, 16);
    OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0));
    calls(comm, sim, 16);
    tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 0);
    calls(comm, host, 16); /* the agreement's round carries them */
    OK(tcomm_barrier(comm));
    OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 0));
    OK(tcomm_barrier(comm));
    release_lines(" INFO: ", " TRACE: ");
    int n = every_path_logged(what);
    if (n != 5 * 7 + 2)
        fail("%s: %d successful calls traced, wanted %d", what, n, 5 * 7 + 2);
    /* the paths whose INFO bits collided with another's */
    if (nranks > 1 && !strcmp(single_copy, "0")) {
        if (!has_info("reduce_scatter", "mpi_reduce_scatter", 18))
            fail("%s: no INFO line for reduce_scatter's "
                 "mpi_reduce_scatter",
                 what);
        if (!has_info("reduce_scatter_v", "mpi_reduce_scatter_block", 24))
            fail("%s: no INFO line for reduce_scatter_v's "
                 "mpi_reduce_scatter_block",
                 what);
    }
    /* the round carries inputs through the node's shared memory */
    if (nranks > 1 && !strcmp(single_copy, "1") &&
        !has_info("all_to_all_v", "eager", 5))
        fail("%s: no INFO line for all_to_all_v's eager path", what);
    if (nranks == 1 && !has_info("all_to_all", "single_rank_zero_copy", 21))
        fail("%s: no INFO line for a single rank's all_to_all", what);
    if (failures)
        for (int i = 0; i < nlines; i++)
            printf("rank %d:   %s\n", rank, lines[i]);
    OK(tcomm_comm_destroy(comm));
    OK(tcomm_graph_destroy(sim));
    OK(tcomm_graph_destroy(host));
}

/* At INFO alone: all_to_all and all_to_all_v name their paths, once per
 * communicator and path (a second call adds no line). */
static void test_info_level(void)
{
    setenv("TCOMM_DEBUG", "INFO", 1);
    tcomm_config_reload();
    tcomm_comm_t *comm = NULL;
    tcomm_graph_t *host = NULL;
    OK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    OK(tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &host));
    size_t n = (size_t)nranks, sizes[4] = {2048, 2048, 2048, 2048};
    tcomm_tensor_t *a = vec(host, n * 2048), *out = NULL;
    capture();
    for (int i = 0; i < 2; i++) {
        OK(tcomm_all_to_all(comm, a, 0, 0, &out));
        drop(&out);
        OK(tcomm_all_to_all_v(comm, a, 0, sizes, 0, &out));
        drop(&out);
    }
    release_lines(" INFO: ", " TRACE: ");
    int a2a = 0, a2av = 0;
    char h1[64], h2[64];
    snprintf(h1, sizeof h1, "tcomm[rank %d] INFO: all_to_all: ", rank);
    snprintf(h2, sizeof h2, "tcomm[rank %d] INFO: all_to_all_v: ", rank);
    for (int i = 0; i < nlines; i++) {
        const char *p = strstr(lines[i], " [path=");
        int named = p && (nranks == 1 ? !strncmp(p + 7, "single_rank", 11)
                                      : !strncmp(p + 7, "mpi_alltoall", 12));
        a2a += !strncmp(lines[i], h1, strlen(h1)) && named;
        a2av += !strncmp(lines[i], h2, strlen(h2)) && named;
    }
    if (a2a != 1 || a2av != 1)
        fail("INFO: %d all_to_all and %d all_to_all_v lines naming their "
             "path, wanted 1 each",
             a2a, a2av);
    drop(&a);
    OK(tcomm_comm_destroy(comm));
    OK(tcomm_graph_destroy(host));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    test_every_path("1");
    test_every_path("0");
    test_info_level();
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_info_paths at %d ranks: %s (%d failures)\n", nranks,
               all ? "FAIL" : "pass", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
