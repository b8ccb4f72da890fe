/* SPDX-License-Identifier: BSD-3-Clause */
/* The NCCL backend's all_to_all, all_to_all_v and reduce_scatter_v on
 * CUDA graphs, under mpirun at 1 and 2 ranks, one device per rank (exit
 * 77 without enough devices). At 2 ranks the matrix of test/a2a_matrix.c
 * runs through NCCL in default and deterministic mode (there also the
 * bits of the rank-order fold). At 1 rank the front end answers every
 * collective itself, so the backend's entries are also called directly
 * (world size 1 NCCL: the result is the input) to run their packing,
 * exchange and reduction paths on every dtype and dim. */
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_matrix.h"
#include "gpu_util.h"
#include "tcomm_internal.h"
#include "tcomm_nccl.h"

static int rank, nranks, failures;

#define CHECK(ok, ...)                                                         \
    do {                                                                       \
        if (!(ok)) {                                                           \
            failures++;                                                        \
            fprintf(stderr, "rank %d line %d: ", rank, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, " [%s]\n", tcomm_last_error());                    \
        }                                                                      \
    } while (0)

static void matrix(tcomm_comm_t *comm, tcomm_graph_t *g, int det)
{
    tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, det);
    matrix_ctx_t c = {.comm = comm, .graph = g, .rank = rank, .nranks = nranks};
    a2a_matrix(&c);
    if (det)
        a2a_matrix_ordered_fold(&c);
    CHECK(!c.fail[0], "a2a matrix (deterministic %d): %s", det, c.fail);
}

/* kind 0: all_to_all, 1: all_to_all_v (token mode when split == concat),
 * 2: reduce_scatter_v along split; on [3, 4, 2], the result is the
 * input bit for bit. */
static void direct_case(tcomm_comm_t *comm, tcomm_graph_t *g, tcomm_dtype_t d,
                        int kind, int op, int split, int concat)
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
        st = ops->all_to_all(comm->state, in, split, concat, out);
    else if (kind == 1)
        st = ops->all_to_all_v(comm->state, in, split, &shape[split], concat,
                               &shape[concat], out);
    else
        st = ops->reduce_scatter_v(comm->state, in, (tcomm_op_t)op, split,
                                   &shape[split], out);
    CHECK(st == TCOMM_SUCCESS, "direct %d %s op %d dims %d %d", kind,
          tcomm_dtype_name(d), op, split, concat);
    memset(got, 0, sizeof got);
    tcomm_tensor_to_host(out, got, n * es);
    CHECK(!memcmp(got, host, n * es),
          "direct %d %s op %d dims %d %d: the result differs from the input",
          kind, tcomm_dtype_name(d), op, split, concat);
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
}

static void direct_entries(tcomm_comm_t *comm, tcomm_graph_t *g)
{
    for (int det = 0; det < 2; det++) {
        comm->deterministic = det;
        for (int d = 0; d < TCOMM_DTYPE_COUNT; d++) {
            for (int s = 0; s < 3; s++)
                for (int k = 0; k < 3; k++) {
                    direct_case(comm, g, (tcomm_dtype_t)d, 0, 0, s, k);
                    direct_case(comm, g, (tcomm_dtype_t)d, 1, 0, s, k);
                }
            for (int op = 0; op < TCOMM_OP_COUNT; op++)
                for (int dim = 0; dim < 3; dim++)
                    direct_case(comm, g, (tcomm_dtype_t)d, 2, op, dim, dim);
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
    matrix(comm, g, 0);
    matrix(comm, g, 1);
    if (nranks == 1)
        direct_entries(comm, g);
    if (nranks > 1) { /* last: a failed dispatch makes the handle unusable */
        size_t shape[2] = {2 * (size_t)nranks, 3};
        tcomm_tensor_t *in, *out = NULL;
        tcomm_tensor_empty(host, TCOMM_F32, 2, shape, &in);
        CHECK(tcomm_all_to_all(comm, in, 0, 1, &out) == TCOMM_ERR_UNSUPPORTED,
              "host tensors are refused");
        tcomm_tensor_release(in);
    }
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(host);
    tcomm_graph_destroy(g);
    int any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("gpu_nccl_a2a at %d ranks: %s\n", nranks, any ? "FAIL" : "pass");
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
