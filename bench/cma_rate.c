/* SPDX-License-Identifier: BSD-3-Clause */
/* The rate of the kernel's cross-memory copy against memcpy on this
 * node (not installed): mpirun -np 2 bench/cma_rate. Each rank reads the
 * next rank's buffer into its own with process_vm_readv, all at once (as
 * the single-copy collectives do), then with memcpy through a mapping of
 * the peer's buffer (a memfd taken with pidfd_getfd, as the tensor
 * arenas are mapped: src/mpi/node/node_map.c), then memcpy's the same
 * bytes locally; best of 5 repeats per size, rank 0's figures. What it
 * measured is in doc/performance.md, "Cross-memory attach against
 * memcpy" and "Mapped tensor arenas": the single copies run at the first
 * column's rate for wrapped buffers, at the second's for tcomm's. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_BYTES ((size_t)8 << 20)
#define REPEATS 5

/* The peer's buffer (its memfd fd in pid) mapped here, or NULL. */
static char *map_peer(pid_t pid, int fd)
{
    char *p = NULL;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int mine = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    if (mine >= 0) {
        p = mmap(NULL, MAX_BYTES, PROT_READ, MAP_SHARED, mine, 0);
        p = p == MAP_FAILED ? NULL : p;
        close(mine);
    }
    if (pidfd >= 0)
        close(pidfd);
#else
    (void)pid;
    (void)fd;
#endif
    return p;
}

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
    int fd = memfd_create("cma_rate", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)MAX_BYTES) != 0 ||
        (src = mmap(NULL, MAX_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                    0)) == MAP_FAILED ||
        posix_memalign((void **)&dst, 4096, MAX_BYTES))
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(src, rank + 1, MAX_BYTES);
    memset(dst, 0, MAX_BYTES);
    uint64_t me[3] = {(uintptr_t)src, (uint64_t)getpid(), (uint64_t)fd};
    uint64_t *all = malloc(3 * sizeof(uint64_t) * (size_t)np);
    MPI_Allgather(me, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    int peer = (rank + 1) % np;
    pid_t ppid = (pid_t)all[3 * peer + 1];
    char *mapped = map_peer(ppid, (int)all[3 * peer + 2]);
    if (rank == 0)
        printf("# bytes  process_vm_readv(us)  GB/s  mapped memcpy(us)  GB/s"
               "  memcpy(us)  GB/s\n");
    for (size_t n = 4096; n <= MAX_BYTES; n *= 2) {
        int iters = (int)((64u << 20) / n);
        iters = iters > 2000 ? 2000 : iters;
        double c = best_of(1, ppid, all[3 * peer], dst, src, n, iters);
        double p = mapped ? best_of(0, 0, 0, dst, mapped, n, iters) : -1.0;
        double m = best_of(0, 0, 0, dst, src, n, iters);
        if (rank == 0 && (c < 0 || p < 0))
            printf("%zu: process_vm_readv or pidfd_getfd refused (ptrace "
                   "rights?)\n", n);
        else if (rank == 0)
            printf("%8zu  %10.2f  %5.1f  %10.2f  %5.1f  %10.2f  %5.1f\n", n,
                   c * 1e6, n / c * 1e-9, p * 1e6, n / p * 1e-9, m * 1e6,
                   n / m * 1e-9);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every buffer alive until all read */
    free(all);
    if (mapped)
        munmap(mapped, MAX_BYTES);
    munmap(src, MAX_BYTES);
    close(fd);
    free(dst);
    MPI_Finalize();
    return 0;
}
