/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain MPI program that never calls a collective: a ring of
 * MPI_Sendrecv. Under libtcomm_pmpi it must run and end as without it
 * (no tcomm handle is ever made). Prints to argv[1].RANK if given. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", argv[1], rank);
        if (!freopen(path, "w", stdout))
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long v = rank + 1, sum = v;
    for (int step = 1; step < size; step++) {
        long in;
        MPI_Sendrecv(&v, 1, MPI_LONG, (rank + 1) % size, 0, &in, 1, MPI_LONG,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        v = in;
        sum += in;
    }
    printf("%d ring sum %ld\n", rank, sum);
    MPI_Finalize();
    return 0;
}
