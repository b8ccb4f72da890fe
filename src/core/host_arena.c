/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared tensor arena (contract in tcomm_host_arena.h).
 *
 * One memfd per process, as large as the node's memory (at most
 * ARENA_MAX), mapped shared and without reserve: only the pages that
 * tensors touch cost memory. Blocks are carved first fit from a sorted
 * list of free ranges, in cache lines, and coalesced when freed. Freed
 * pages go back to the kernel (a hole punched in the memfd) at once for
 * blocks of PUNCH_NOW and more, and for the rest once IDLE_MAX bytes
 * were freed since the last time (every free range punched then): a
 * block allocated and freed per call keeps its pages, as a heap's
 * would, since a page of shared memory faulted in anew costs more than
 * a small collective (an all_to_all_v of 256 KiB took 12x MPI's time
 * when every free punched its block).
 *
 * After fork() the child shares the parent's pages (MAP_SHARED) but has
 * a copy of the free list: allocating or freeing there would hand the
 * same bytes to two processes. A child therefore never touches the
 * arena (an atfork handler marks it), and its frees of inherited blocks
 * do nothing.
 *
 * Under AddressSanitizer the arena keeps its checks on tensor memory
 * that malloc's blocks had: the bytes past a block (its padding and a
 * red zone of a cache line) and freed blocks are poisoned. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tcomm_config.h"
#include "tcomm_host_arena.h"
#include "tcomm_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define TCOMM_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TCOMM_ARENA_ASAN 1
#endif
#endif
#ifdef TCOMM_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define REDZONE ((size_t)TCOMM_CACHE_LINE)
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define REDZONE ((size_t)0)
#endif

#define ARENA_MAX ((uint64_t)256 << 30)
#define UNIT ((size_t)TCOMM_CACHE_LINE)
#define PAGE ((size_t)4096)
#define PUNCH_NOW ((size_t)32 << 20)
#define IDLE_MAX ((size_t)64 << 20)
#define FREE_MAX 4096 /* ranges; past that a freed block's addresses leak */

typedef struct {
    size_t off, len;
} range_t;

static struct {
    pthread_mutex_t lock;
    _Atomic int state; /* 0 not tried, 1 up, -1 unavailable */
    int forked;
    char *base;
    tcomm_arena_info_t info;
    range_t free[FREE_MAX];
    int nfree;
    size_t idle; /* bytes freed and not punched since the last sweep */
} arena = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void in_child(void)
{
    arena.forked = 1; /* the child has one thread: no lock needed */
}

static uint64_t arena_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && page > 0 ? (uint64_t)pages * page : 0;
    ram &= ~((uint64_t)PAGE - 1);
    return ram && ram < ARENA_MAX ? ram : ARENA_MAX;
}

static int arena_up(void) /* under the lock */
{
    int state = atomic_load_explicit(&arena.state, memory_order_relaxed);
    if (state)
        return state > 0;
    atomic_store_explicit(&arena.state, -1, memory_order_relaxed);
    if (!tcomm_config()->single_copy)
        return 0;
    uint64_t size = arena_bytes();
    int fd = memfd_create("tcomm-tensors", MFD_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return 0;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0 && fstat(fd, &sb) == 0)
        p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED || pthread_atfork(NULL, NULL, in_child) != 0) {
        if (p != MAP_FAILED)
            munmap(p, size);
        close(fd);
        return 0;
    }
    arena.base = p;
    arena.info = (tcomm_arena_info_t){fd, (uint64_t)(uintptr_t)p, size,
                                      (uint64_t)sb.st_dev,
                                      (uint64_t)sb.st_ino};
    arena.free[0] = (range_t){0, size};
    arena.nfree = 1;
    /* release: a thread that sees 1 sees base and info */
    atomic_store_explicit(&arena.state, 1, memory_order_release);
    return 1;
}

static void remove_at(int i)
{
    memmove(&arena.free[i], &arena.free[i + 1],
            (size_t)(arena.nfree - i - 1) * sizeof arena.free[0]);
    arena.nfree--;
}

static int insert_at(int i, range_t r)
{
    if (arena.nfree == FREE_MAX)
        return 0;
    memmove(&arena.free[i + 1], &arena.free[i],
            (size_t)(arena.nfree - i) * sizeof arena.free[0]);
    arena.free[i] = r;
    arena.nfree++;
    return 1;
}

/* Take [at, at + len) out of free range i, which holds it. */
static int carve(int i, size_t at, size_t len)
{
    range_t r = arena.free[i];
    range_t left = {r.off, at - r.off};
    range_t right = {at + len, r.off + r.len - at - len};
    if (left.len && right.len) {
        if (!insert_at(i + 1, right))
            return 0;
        arena.free[i] = left;
    } else if (left.len) {
        arena.free[i] = left;
    } else if (right.len) {
        arena.free[i] = right;
    } else {
        remove_at(i);
    }
    return 1;
}

/* The span a block of bytes takes in the arena. */
static size_t units(size_t bytes)
{
    return ((bytes + UNIT - 1) & ~(UNIT - 1)) + REDZONE;
}

void *tcomm_arena_alloc(size_t bytes, size_t align)
{
    void *ptr = NULL;
    if (bytes < TCOMM_ARENA_MIN || bytes > SIZE_MAX - PAGE || align > PAGE)
        return NULL;
    size_t len = units(bytes);
    pthread_mutex_lock(&arena.lock);
    if (!arena.forked && arena_up()) {
        for (int i = 0; i < arena.nfree && !ptr; i++) {
            range_t r = arena.free[i];
            size_t at = (r.off + align - 1) & ~(align - 1);
            if (at - r.off <= r.len && r.len - (at - r.off) >= len &&
                carve(i, at, len))
                ptr = arena.base + at;
        }
    }
    pthread_mutex_unlock(&arena.lock);
    if (ptr) {
        ASAN_UNPOISON_MEMORY_REGION(ptr, bytes);
        ASAN_POISON_MEMORY_REGION((char *)ptr + bytes, len - bytes);
    }
    return ptr;
}

/* Through the mapping, not the descriptor: a program may close the
 * memfd's number and open a file of its own under it. */
static void punch(size_t off, size_t len)
{
    size_t lo = (off + PAGE - 1) & ~(PAGE - 1);
    size_t hi = (off + len) & ~(PAGE - 1);
    if (hi > lo) /* failing only keeps the pages */
        (void)madvise(arena.base + lo, hi - lo, MADV_REMOVE);
}

/* Pages of a block just freed: back to the kernel now, or at the next
 * sweep. Under the lock, after the block joined the free list. */
static void give_back(size_t off, size_t len)
{
    if (len >= PUNCH_NOW) {
        punch(off, len);
        return;
    }
    arena.idle += len;
    if (arena.idle < IDLE_MAX)
        return;
    for (int i = 0; i < arena.nfree; i++)
        punch(arena.free[i].off, arena.free[i].len);
    arena.idle = 0;
}

int tcomm_arena_owns(const void *ptr, size_t bytes)
{
    const char *p = ptr;
    /* base and size are set once, before any block exists */
    return atomic_load_explicit(&arena.state, memory_order_acquire) > 0 &&
           p >= arena.base &&
           (uint64_t)(p - arena.base) + bytes <= arena.info.size;
}

int tcomm_arena_free(void *ptr, size_t bytes)
{
    if (!ptr || !tcomm_arena_owns(ptr, bytes))
        return 0;
    size_t off = (size_t)((char *)ptr - arena.base), len = units(bytes);
    pthread_mutex_lock(&arena.lock);
    if (!arena.forked) {
        ASAN_POISON_MEMORY_REGION(ptr, len);
        int lo = 0, hi = arena.nfree; /* the first range after off */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (arena.free[mid].off < off)
                lo = mid + 1;
            else
                hi = mid;
        }
        range_t r = {off, len};
        int joins_prev = lo > 0 && arena.free[lo - 1].off +
                                           arena.free[lo - 1].len == off;
        int joins_next = lo < arena.nfree && off + len == arena.free[lo].off;
        if (joins_prev && joins_next) {
            arena.free[lo - 1].len += len + arena.free[lo].len;
            remove_at(lo);
        } else if (joins_prev) {
            arena.free[lo - 1].len += len;
        } else if (joins_next) {
            arena.free[lo] = (range_t){off, len + arena.free[lo].len};
        } else if (!insert_at(lo, r)) {
            punch(off, len); /* its addresses are lost, not its pages */
            len = 0;
        }
        if (len)
            give_back(off, len);
    }
    pthread_mutex_unlock(&arena.lock);
    return 1;
}

int tcomm_arena_info(tcomm_arena_info_t *info)
{
    int up;
    pthread_mutex_lock(&arena.lock);
    up = atomic_load_explicit(&arena.state, memory_order_relaxed) > 0 &&
         !arena.forked;
    if (up)
        *info = arena.info;
    pthread_mutex_unlock(&arena.lock);
    return up;
}

int tcomm_arena_foreign(const void *ptr)
{
    return arena.forked && tcomm_arena_owns(ptr, 1);
}
