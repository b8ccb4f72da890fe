/* SPDX-License-Identifier: BSD-3-Clause */
/* Node rank 0 creates a POSIX shared memory object (zero-filled), every
 * rank of the node maps it, and it is unlinked once all have: nothing is
 * left in /dev/shm even if the job dies, and unmapping is local, so
 * destroying a communicator never waits for a peer (an MPI_Win_free
 * would, and a failed peer may never call it). */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tcomm_node_shm_map.h"

int tcomm_node_shm_map(MPI_Comm node, size_t len, void **p)
{
    static atomic_uint counter;
    char name[64] = "";
    int me, ok = 1, all_ok = 0, fd = -1, rc;

    *p = NULL;
    if ((rc = MPI_Comm_rank(node, &me)) != MPI_SUCCESS)
        return rc;
    if (me == 0) {
        snprintf(name, sizeof name, "/tcomm-%ld-%u", (long)getpid(),
                 atomic_fetch_add(&counter, 1));
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        ok = fd >= 0 && ftruncate(fd, (off_t)len) == 0;
    }
    if ((rc = MPI_Bcast(name, sizeof name, MPI_CHAR, 0, node)) != MPI_SUCCESS)
        goto out;
    if (me != 0)
        ok = (fd = shm_open(name, O_RDWR, 0)) >= 0;
    if (ok) {
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ok = m != MAP_FAILED;
        *p = ok ? m : NULL;
    }
    rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node);
    if (rc == MPI_SUCCESS && !all_ok && *p) {
        munmap(*p, len);
        *p = NULL;
    }
out:
    if (fd >= 0)
        close(fd);
    if (me == 0 && fd >= 0)
        shm_unlink(name);
    return rc;
}
