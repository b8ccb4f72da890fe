/* SPDX-License-Identifier: BSD-3-Clause */
/* The NCCL backend on CUDA graphs, under mpirun at 1 and 2 ranks, one
 * device per rank (exit 77 without enough devices). At 2 ranks the
 * shared correctness matrix (test/backend_matrix.c) runs through NCCL in
 * default and deterministic mode. At 1 rank the front end answers every
 * collective itself, so the backend's entries are also called directly
 * (world size 1 NCCL: the result is the input) to run its NCCL calls,
 * the gather-and-fold path and the reshaping kernels on every dtype. */
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_matrix.h"
#include "gpu_util.h"
#include "tcomm_internal.h"
#include "tcomm_nccl.h"

static int rank, nranks, failures;

#define CHECK(ok, ...)                                                      \
    do {                                                                    \
        if (!(ok)) {                                                        \
            failures++;                                                     \
            fprintf(stderr, "rank %d line %d: ", rank, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, " [%s]\n", tcomm_last_error());                 \
        }                                                                   \
    } while (0)

static void matrix(tcomm_comm_t *comm, tcomm_graph_t *g, int det)
{
    tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, det);
    matrix_ctx_t c = {.comm = comm, .graph = g, .rank = rank,
                      .nranks = nranks};
    backend_matrix(&c);
    CHECK(!c.fail[0], "matrix (deterministic %d): %s", det, c.fail);
}

/* The backend entry itself on [3, 4, 2] along dim: at world size 1 the
 * result is the input, bit for bit. */
static void direct_case(tcomm_comm_t *comm, tcomm_graph_t *g,
                        tcomm_dtype_t d, int kind, int op, int dim)
{
    size_t shape[3] = {3, 4, 2}, n = 24, es = tcomm_dtype_size(d);
    unsigned char host[24 * 8], got[24 * 8];
    for (size_t i = 0; i < n * es; i++)
        host[i] = (unsigned char)(i * 7 % 61); /* finite in every dtype */
    tcomm_tensor_t *in, *out;
    tcomm_tensor_from_host(g, d, host, 3, shape, &in);
    tcomm_tensor_empty(g, d, 3, shape, &out);
    const tcomm_backend_ops_t *ops = comm->ops;
    tcomm_status_t st;
    if (kind == 0)
        st = ops->all_reduce(comm->state, in, (tcomm_op_t)op, out);
    else if (kind == 1)
        st = ops->all_gather(comm->state, in, dim, &shape[dim], out);
    else if (kind == 2)
        st = ops->reduce_scatter(comm->state, in, (tcomm_op_t)op, dim, out);
    else
        st = ops->broadcast(comm->state, in, 0, out);
    CHECK(st == TCOMM_SUCCESS, "direct %d %s op %d dim %d", kind,
          tcomm_dtype_name(d), op, dim);
    tcomm_tensor_to_host(out, got, n * es);
    CHECK(!memcmp(got, host, n * es),
          "direct %d %s op %d dim %d: the result differs from the input",
          kind, tcomm_dtype_name(d), op, dim);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static void direct_entries(tcomm_comm_t *comm, tcomm_graph_t *g)
{
    for (int det = 0; det < 2; det++) {
        comm->deterministic = det;
        for (int d = 0; d < TCOMM_DTYPE_COUNT; d++) {
            for (int op = 0; op < TCOMM_OP_COUNT; op++) {
                direct_case(comm, g, (tcomm_dtype_t)d, 0, op, 0);
                for (int dim = 0; dim < 3; dim++)
                    direct_case(comm, g, (tcomm_dtype_t)d, 2, op, dim);
            }
            for (int dim = 0; dim < 3; dim++)
                direct_case(comm, g, (tcomm_dtype_t)d, 1, 0, dim);
            direct_case(comm, g, (tcomm_dtype_t)d, 3, 0, 0);
        }
    }
    comm->deterministic = 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int enough = gpu_count() >= nranks, all = 0;
    MPI_Allreduce(&enough, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            printf("SKIP: %d ranks need %d CUDA devices\n", nranks, nranks);
        MPI_Finalize();
        return GPU_SKIP;
    }
    cudaSetDevice(rank);
    tcomm_comm_t *comm = NULL;
    tcomm_graph_t *g = NULL, *host = NULL;
    tcomm_device_t dev = {TCOMM_DEVICE_CUDA, rank};
    tcomm_device_t hdev = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_comm_create_nccl(MPI_COMM_WORLD, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create(dev, &g) != TCOMM_SUCCESS ||
        tcomm_graph_create(hdev, &host) != TCOMM_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    tcomm_comm_info_t info;
    tcomm_comm_info(comm, &info);
    CHECK(!strcmp(info.backend, "nccl") && info.world_size == nranks,
          "info: %s %d", info.backend, info.world_size);
    matrix(comm, g, 0);
    matrix(comm, g, 1);
    if (nranks == 1)
        direct_entries(comm, g);
    if (nranks > 1) { /* last: a failed dispatch makes the handle unusable */
        size_t shape[1] = {4};
        tcomm_tensor_t *in, *out = NULL;
        tcomm_tensor_empty(host, TCOMM_F32, 1, shape, &in);
        CHECK(tcomm_all_reduce(comm, in, TCOMM_SUM, &out) ==
                  TCOMM_ERR_UNSUPPORTED, "host tensors are refused");
        tcomm_tensor_release(in);
    }
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(host);
    tcomm_graph_destroy(g);
    int any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("gpu_nccl at %d ranks: %s\n", nranks, any ? "FAIL" : "pass");
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
