/* SPDX-License-Identifier: BSD-3-Clause */
/* The rate of the kernel's cross-memory copy against memcpy on this
 * node (not installed): mpirun -np 2 bench/cma_rate. Each rank reads the
 * next rank's buffer into its own with process_vm_readv, all at once (as
 * the single-copy collectives do), then memcpy's the same bytes locally;
 * best of 5 repeats per size, rank 0's figures. What it measured is in
 * doc/performance.md, "Cross-memory attach against memcpy": every
 * single-copy path of src/mpi/node/ is bound by the first column. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_BYTES ((size_t)8 << 20)
#define REPEATS 5

static double best_of(int cma, pid_t pid, uint64_t remote, char *dst,
                      const char *src, size_t n, int iters)
{
    double best = 1e30;
    for (int rep = 0; rep < REPEATS; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (cma) {
                struct iovec l = {dst, n}, r = {(void *)(uintptr_t)remote, n};
                if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)n)
                    return -1.0;
            } else {
                memcpy(dst, src, n);
                __asm__ volatile("" ::"r"(dst) : "memory");
            }
        }
        t = (MPI_Wtime() - t) / iters;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    int rank, np;
    char *src = NULL, *dst = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (posix_memalign((void **)&src, 4096, MAX_BYTES) ||
        posix_memalign((void **)&dst, 4096, MAX_BYTES))
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(src, rank + 1, MAX_BYTES);
    memset(dst, 0, MAX_BYTES);
    uint64_t me[2] = {(uintptr_t)src, (uint64_t)getpid()};
    uint64_t *all = malloc(2 * sizeof(uint64_t) * (size_t)np);
    MPI_Allgather(me, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, MPI_COMM_WORLD);
    int peer = (rank + 1) % np;
    if (rank == 0)
        printf("# bytes  process_vm_readv(us)  GB/s   memcpy(us)  GB/s\n");
    for (size_t n = 16384; n <= MAX_BYTES; n *= 2) {
        int iters = (int)((64u << 20) / n);
        iters = iters > 2000 ? 2000 : iters;
        double c = best_of(1, (pid_t)all[2 * peer + 1], all[2 * peer], dst,
                           src, n, iters);
        double m = best_of(0, 0, 0, dst, src, n, iters);
        if (rank == 0 && c < 0)
            printf("%zu: process_vm_readv refused (ptrace rights?)\n", n);
        else if (rank == 0)
            printf("%8zu  %10.2f  %5.1f  %10.2f  %5.1f\n", n, c * 1e6,
                   n / c * 1e-9, m * 1e6, n / m * 1e-9);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every buffer alive until all read */
    free(all);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
