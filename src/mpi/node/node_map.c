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
 * kept while a communicator uses it: mapping it anew per call would
 * fault every page in again; the last communicator's destruction unmaps
 * it.
 *
 * The table is process-wide (communicators with the same peer share a
 * mapping), changed under a lock and read without one: a slot is
 * complete before the pid that names it is stored (release). */
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

#define MAPS 256 /* peer arenas at once; past that they stay on CMA */

/* A mapped arena, keyed by what identifies it: the pid alone is reused
 * by a restarted or spawned peer, or the next job step, whose arena may
 * even lie at the same address; its memfd's dev/ino is new. */
typedef struct {
    _Atomic pid_t pid;     /* 0: a free slot */
    _Atomic int retired;   /* a newer arena of pid's replaced it */
    uint64_t dev, ino;
    uint64_t base, size;   /* the arena in pid */
    char *here;            /* NULL: could not be mapped */
    int refs;              /* node segments holding it (under lock) */
} map_t;

static map_t maps[MAPS];
static _Atomic int nmaps; /* slots ever used: readers scan this many */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
void tcomm_node_map_publish(tcomm_node_segment_t *s)
{
    tcomm_arena_info_t info;
    if (tcomm_node_segment_arena_set(s) || !tcomm_arena_info(&info))
        return;
    tcomm_node_arena_line_t a = {.fd = info.fd,
                                 .base = info.base,
                                 .size = info.size,
                                 .dev = info.dev,
                                 .ino = info.ino};
    tcomm_node_segment_publish_arena(s, &a);
}

/* pid's current arena, or NULL. Lock-free: a slot's fields are
 * written before its pid is stored (release); a slot that a segment
 * holds is never rewritten, and lookups only ask for the peers of the
 * caller's own segments. */
static const map_t *find(pid_t pid)
{
    int n = atomic_load_explicit(&nmaps, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&maps[i].pid, memory_order_acquire) ==
                pid &&
            !atomic_load_explicit(&maps[i].retired, memory_order_acquire))
            return &maps[i];
    return NULL;
}

/* The peer's memfd mapped here, or NULL. */
static char *map_arena(const tcomm_node_arena_line_t *a)
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

static void unmap(map_t *m) /* under lock, refs == 0 */
{
    if (m->here)
        munmap(m->here, m->size);
    m->here = NULL;
    atomic_store_explicit(&m->pid, 0, memory_order_release);
}

int tcomm_node_map_take(const tcomm_node_arena_line_t *a)
{
    pid_t pid = (pid_t)a->pid;
    int free_slot = -1, n;
    pthread_mutex_lock(&lock);
    n = atomic_load_explicit(&nmaps, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        map_t *m = &maps[i];
        pid_t p = atomic_load_explicit(&m->pid, memory_order_relaxed);
        if (p == 0) {
            free_slot = free_slot < 0 ? i : free_slot;
        } else if (p == pid && !atomic_load_explicit(&m->retired,
                                                     memory_order_relaxed)) {
            if (m->dev == a->dev && m->ino == a->ino && m->base == a->base &&
                m->size == a->size) {
                m->refs++;
                pthread_mutex_unlock(&lock);
                return i;
            }
            /* pid's earlier process is gone: its arena is stale */
            atomic_store_explicit(&m->retired, 1, memory_order_release);
            if (m->refs == 0)
                unmap(m);
        }
    }
    int i = free_slot >= 0 ? free_slot : n < MAPS ? n : -1;
    if (i >= 0) {
        map_t *m = &maps[i];
        m->dev = a->dev;
        m->ino = a->ino;
        m->base = a->base;
        m->size = a->size;
        m->here = map_arena(a);
        m->refs = 1;
        atomic_store_explicit(&m->retired, 0, memory_order_relaxed);
        atomic_store_explicit(&m->pid, pid, memory_order_release);
        if (i == n)
            atomic_store_explicit(&nmaps, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
    return i;
}

void tcomm_node_map_drop(int slot)
{
    if (slot < 0 || slot >= MAPS)
        return;
    pthread_mutex_lock(&lock);
    map_t *m = &maps[slot];
    if (atomic_load_explicit(&m->pid, memory_order_relaxed) != 0 &&
        --m->refs == 0)
        unmap(m);
    pthread_mutex_unlock(&lock);
}

void tcomm_node_map_peer(tcomm_node_segment_t *s, int rank, pid_t pid)
{
    int *held = tcomm_node_segment_map_slots(s);
    tcomm_node_arena_line_t a;
    if (held[rank] || !tcomm_node_segment_peer_arena(s, rank, &a) ||
        (pid_t)a.pid != pid)
        return;
    int slot = tcomm_node_map_take(&a);
    held[rank] = slot >= 0 ? slot + 1 : -1; /* -1: table full, tried */
}

void tcomm_node_map_release(tcomm_node_segment_t *s)
{
    int *held = tcomm_node_segment_map_slots(s);
    for (int r = 0; r < tcomm_node_segment_size(s); r++)
        if (held[r] > 0)
            tcomm_node_map_drop(held[r] - 1);
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
    return lookup(pid, remote, len);
}
