/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all, all_to_all_v and reduce_scatter_v on CUDA graphs (rank r
 * on device r % devices), under mpirun: the checks of
 * test/mpi_device_a2a_ref.c (the sim suite's inputs and references), on
 * the staged path (TCOMM_CUDA_AWARE=0) with small and default chunks,
 * deterministic or not, and on the direct path where MPI is CUDA-aware.
 * Exit 77 (skip) on every rank when any rank has no GPU. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_util.h"
#include "mpi_device_a2a_ref.h"
#include "mpi_reference.h"
#include "tcomm.h"
#include "tcomm_config.h"
#include "tcomm_mpi.h"

static int rank, size;

static long run(const char *name, const char *aware, const char *det,
                const char *chunk)
{
    tcomm_comm_t *comm;
    tcomm_graph_t *graph;
    tcomm_device_t dev = { TCOMM_DEVICE_CUDA, rank % gpu_count() };
    setenv("TCOMM_CUDA_AWARE", aware, 1);
    setenv("TCOMM_DETERMINISTIC", det, 1);
    setenv("TCOMM_STAGING_CHUNK", chunk, 1);
    tcomm_config_reload();
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create(dev, &graph) != TCOMM_SUCCESS) {
        fprintf(stderr, "gpu_all_to_all rank %d: setup failed: %s\n", rank,
                tcomm_last_error());
        return 1;
    }
    a2a_reset(name, rank, size);
    for (int dt = 0; dt < TCOMM_DTYPE_COUNT; dt++) {
        check_all_to_all(comm, graph, dt);
        check_all_to_all_v(comm, graph, dt);
        for (int op = 0; op < TCOMM_OP_COUNT; op++)
            if (op != TCOMM_AVG || ref_is_float((tcomm_dtype_t)dt))
                check_reduce_scatter_v(comm, graph, dt, op);
    }
    long bad = a2a_failures(), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %s\n", name, all ? "FAIL" : "pass");
    tcomm_graph_destroy(graph);
    tcomm_comm_destroy(comm);
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int have = gpu_count() > 0, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            printf("SKIP: no CUDA device on some rank\n");
        MPI_Finalize();
        return GPU_SKIP;
    }
    long bad = 0;
    bad += run("cuda staged, 64-byte chunks", "0", "0", "64");
    bad += run("cuda staged, 100-byte chunks, deterministic", "0", "1",
               "100");
    bad += run("cuda staged, default chunks", "0", "0", "4M");
    /* The direct path only where MPI says it is CUDA-aware. */
    unsetenv("TCOMM_CUDA_AWARE");
    tcomm_config_reload();
    tcomm_comm_t *probe;
    tcomm_comm_info_t info = { 0 };
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &probe) == TCOMM_SUCCESS) {
        tcomm_comm_info(probe, &info);
        tcomm_comm_destroy(probe);
    }
    if (info.cuda_aware) {
        bad += run("cuda direct, MPI ops", "1", "0", "4M");
        bad += run("cuda direct, deterministic fold", "1", "1", "4M");
    } else if (rank == 0) {
        printf("direct path: skipped (MPI is not CUDA-aware here)\n");
    }
    MPI_Finalize();
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
