/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Finalize with nonblocking collectives in flight completes them
 * first (src/mpi/finalize_hook.c): eight in-place all_reduce SUMs of 4 MiB are
 * started and not waited, rank 0 is late, MPI_Finalize runs; then every
 * request waits to success with the right values, and the communicator
 * is destroyed after MPI_Finalize. 1-4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tcomm_mpi.h"

#define N (1 << 20)
#define STARTS 8

int main(int argc, char **argv)
{
    int provided, rank, n, bad = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    tcomm_comm_t *c;
    tcomm_graph_t *g;
    tcomm_tensor_t *t;
    static float v[N];
    for (int i = 0; i < N; i++)
        v[i] = (float)(rank + i % 3);
    size_t s[1] = {N};
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &c) ||
        tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &g) ||
        tcomm_tensor_from_host(g, TCOMM_F32, v, 1, s, &t)) {
        fprintf(stderr, "setup: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    tcomm_request_t *r[STARTS];
    for (int k = 0; k < STARTS; k++)
        if (tcomm_all_reduce_start(c, t, TCOMM_SUM, t, &r[k])) {
            fprintf(stderr, "rank %d: start: %s\n", rank, tcomm_last_error());
            bad = 1;
        }
    if (rank == 0)
        usleep(20000); /* the others reach MPI_Finalize first */
    MPI_Finalize();
    tcomm_status_t st = bad ? TCOMM_ERR_INTERNAL : tcomm_wait_all(STARTS, r);
    if (st != TCOMM_SUCCESS) {
        fprintf(stderr, "rank %d: wait_all: %s\n", rank, tcomm_last_error());
        bad = 1;
    }
    if (!bad && tcomm_tensor_to_host(t, v, sizeof v) == TCOMM_SUCCESS) {
        /* each SUM in place multiplies by n what the first one summed */
        double scale = 1;
        for (int k = 1; k < STARTS; k++)
            scale *= n;
        for (int i = 0; i < N; i++) {
            double want = (n * (n - 1) / 2.0 + n * (i % 3)) * scale;
            if (v[i] != (float)want) {
                fprintf(stderr, "rank %d: [%d] = %g, want %g\n", rank, i,
                        v[i], want);
                bad = 1;
                break;
            }
        }
    }
    if (tcomm_comm_destroy(c) != TCOMM_SUCCESS)
        bad = 1;
    tcomm_tensor_release(t);
    tcomm_graph_destroy(g);
    if (!bad)
        printf("rank %d: the requests completed in MPI_Finalize\n", rank);
    return bad;
}
