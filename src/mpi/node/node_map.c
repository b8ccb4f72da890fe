/* SPDX-License-Identifier: BSD-3-Clause */
/* The peers' tensor arenas, mapped (contract in tcomm_node_map.h).
 *
 * A rank publishes its arena (memfd number, address, size, identity) on
 * its arena line of the node segment before the note of the first call
 * after the arena exists. A peer that reads that note reads the line
 * too, takes a copy of the memfd with pidfd_getfd (the permission is
 * cross-memory attach's: PTRACE_MODE_ATTACH), checks that it is the
 * memfd named (a pid in this namespace could name another process; the
 * caller has checked the namespace) and maps it whole. The mapping is
 * kept for the life of the process: mapping it anew per call would
 * fault every page in again.
 *
 * The table is process-wide (every communicator shares it), appended
 * under a lock and read without one: an entry is complete before the
 * count that covers it is stored (release). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tcomm_host_arena.h"
#include "tcomm_node_map.h"
#include "tcomm_test_hooks.h"

#define MAPS 256 /* peer processes; past that they stay on CMA */

typedef struct {
    pid_t pid;
    uint64_t base, size; /* the arena in pid */
    char *here;          /* NULL: could not be mapped */
} map_t;

static map_t maps[MAPS];
static _Atomic int nmaps;
static _Atomic uint64_t copies;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void tcomm_node_map_publish(tcomm_shm_min_t *s)
{
    tcomm_arena_info_t info;
    if (tcomm_shm_arena_set(s) || !tcomm_arena_info(&info))
        return;
    tcomm_shm_arena_t a = {.fd = info.fd, .base = info.base,
                           .size = info.size, .dev = info.dev,
                           .ino = info.ino};
    tcomm_shm_publish_arena(s, &a);
}

static const map_t *find(pid_t pid)
{
    int n = atomic_load_explicit(&nmaps, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (maps[i].pid == pid)
            return &maps[i];
    return NULL;
}

/* The peer's memfd mapped here, or NULL. */
static char *map_arena(const tcomm_shm_arena_t *a)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    char *here = NULL;
    struct stat sb;
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)a->pid, 0);
    if (pidfd < 0)
        return NULL;
    int fd = (int)syscall(SYS_pidfd_getfd, pidfd, (int)a->fd, 0);
    close(pidfd);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &sb) == 0 && (uint64_t)sb.st_dev == a->dev &&
        (uint64_t)sb.st_ino == a->ino && (uint64_t)sb.st_size >= a->size) {
        void *p = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_NORESERVE, fd, 0);
        here = p == MAP_FAILED ? NULL : p;
    }
    close(fd);
    return here;
#else
    (void)a;
    return NULL;
#endif
}

void tcomm_node_map_peer(tcomm_shm_min_t *s, int rank, pid_t pid)
{
    tcomm_shm_arena_t a;
    if (find(pid) || !tcomm_shm_peer_arena(s, rank, &a) ||
        (pid_t)a.pid != pid)
        return;
    pthread_mutex_lock(&lock);
    int n = atomic_load_explicit(&nmaps, memory_order_relaxed);
    if (!find(pid) && n < MAPS) {
        maps[n] = (map_t){pid, a.base, a.size, map_arena(&a)};
        atomic_store_explicit(&nmaps, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
}

static char *lookup(pid_t pid, uint64_t remote, size_t len)
{
    const map_t *m = find(pid);
    if (!m || !m->here || remote < m->base || len > m->size ||
        remote - m->base > m->size - len ||
        tcomm_test_hook(TCOMM_HOOK_NO_MAP))
        return NULL;
    return m->here + (remote - m->base);
}

int tcomm_node_is_mapped(pid_t pid, uint64_t remote, size_t len)
{
    return lookup(pid, remote, len) != NULL;
}

char *tcomm_node_mapped(pid_t pid, uint64_t remote, size_t len)
{
    char *here = lookup(pid, remote, len);
    if (here)
        atomic_fetch_add_explicit(&copies, 1, memory_order_relaxed);
    return here;
}

uint64_t tcomm_node_mapped_copies(void)
{
    return atomic_load_explicit(&copies, memory_order_relaxed);
}
