/* SPDX-License-Identifier: BSD-3-Clause */
/* The soak's memory check: private resident memory at the start (after
 * the warm-up), the middle and the end of the random calls, and the
 * verdict on its growth.
 *
 * What is measured: RssAnon (heap, anonymous mappings, stacks: what the
 * process owns) after malloc_trim, so that free heap pages do not count.
 * Shared pages (Open MPI's shared-memory transport touches more of its
 * segment as traffic grows) are printed apart, not checked. soak.c fixes
 * glibc's mmap threshold, which otherwise rises to 32 MiB after the
 * first multi-MiB free and keeps later multi-MiB buffers in the heap,
 * so that the figure would follow the allocator's high-water mark.
 *
 * What must hold: what legitimately grows with use (tcomm's
 * reduce_scatter temporary, Open MPI's free lists and unexpected-message
 * buffers, glibc's per-thread cache of small chunks) reaches its
 * high-water mark in the warm-up or soon after, so that from the start,
 * and all the more from the middle, the figure stays flat, while a leak
 * grows with the calls: one of 1 KiB per call, kept reachable (which
 * LeakSanitizer cannot see), fails both checks (doc/reliability.md). */
#include <malloc.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"

/* Limits, in % of the start figure. A run of LONG_RUN calls or more
 * (make soak): 5% from the start (issue 8's target) and 2.5% from the
 * middle, the same rate per call. A shorter run (make check's 1,500) is
 * checked from the middle only, against 5%: its middle is still close
 * to the warm-up, whose tail (glibc's tcache, about 1% there) would make
 * a tighter limit flaky, while a leak of 1 KiB per call (+19% there),
 * or even of 256 B (+6%), still fails it. */
#define LONG_RUN 10000
#define LIMIT_TOTAL 5.0
#define LIMIT_STEADY 2.5
#define LIMIT_STEADY_SHORT 5.0

soak_mem_t soak_mem_read(void)
{
    soak_mem_t m = {0, 0};
    char line[256];
    malloc_trim(0);
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return m;
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "RssAnon: %ld", &m.anon);
        sscanf(line, "RssShmem: %ld", &m.shm);
    }
    fclose(f);
    return m;
}

void soak_mem_trace(long op)
{
    static long every = -1;
    if (every < 0) {
        const char *e = getenv("SOAK_MEM_TRACE");
        every = e ? atol(e) : 0;
    }
    if (every <= 0 || op % every)
        return;
    soak_mem_t m = soak_mem_read();
    struct mallinfo2 mi = mallinfo2();
    fprintf(stderr,
            "soak rank %d call %ld: RssAnon %ld KiB, RssShmem %ld KiB; "
            "malloc: heap %zu B (in use %zu), mmapped %zu B in %zu\n",
            rank, op, m.anon, m.shm, mi.arena, mi.uordblks, mi.hblkhd,
            mi.hblks);
}

static double pct(long from, long to, long base)
{
    return base > 0 ? 100.0 * (double)(to - from) / (double)base : 0.0;
}

int soak_mem_verdict(const soak_mem_t m[MEM_POINTS], long ops, int check)
{
    enum { N = 2 * MEM_POINTS };
    long mine[N], *all = NULL;
    for (int i = 0; i < MEM_POINTS; i++) {
        mine[i] = m[i].anon;
        mine[MEM_POINTS + i] = m[i].shm;
    }
    if (rank == 0)
        all = malloc((size_t)nranks * N * sizeof *all);
    MPI_Gather(mine, N, MPI_LONG, all, N, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return 0;

    /* The rank whose memory grew most, from the start and in the steady
     * state (not necessarily the same rank). */
    int wt = 0, ws = 0;
    double total = -1e9, steady = -1e9;
    for (int r = 0; r < nranks; r++) {
        const long *a = all + (size_t)r * N;
        double t = pct(a[MEM_START], a[MEM_END], a[MEM_START]);
        double s = pct(a[MEM_MIDDLE], a[MEM_END], a[MEM_START]);
        if (t > total) {
            total = t;
            wt = r;
        }
        if (s > steady) {
            steady = s;
            ws = r;
        }
    }
    const long *a = all + (size_t)wt * N;
    printf("soak: private resident memory (RssAnon after malloc_trim) of "
           "rank %d: start (after the warm-up) %ld KiB, middle (call %ld) "
           "%ld KiB, end %ld KiB: %+.2f%% from the start; from the middle "
           "%+.2f%% (largest, rank %d); shared pages (RssShmem) %ld -> %ld "
           "-> %ld KiB\n",
           wt, a[MEM_START], ops / 2, a[MEM_MIDDLE], a[MEM_END], total,
           steady, ws, a[MEM_POINTS + MEM_START], a[MEM_POINTS + MEM_MIDDLE],
           a[MEM_POINTS + MEM_END]);
    free(all);
    if (!check) {
        printf("soak: memory growth not checked in this build or run\n");
        return 0;
    }
    int bad;
    if (ops >= LONG_RUN) {
        bad = total >= LIMIT_TOTAL || steady >= LIMIT_STEADY;
        printf("soak: memory growth %s (limits: %.1f%% from the start, "
               "%.1f%% from the middle)\n",
               bad ? "FAIL" : "PASS", LIMIT_TOTAL, LIMIT_STEADY);
    } else {
        bad = steady >= LIMIT_STEADY_SHORT;
        printf("soak: memory growth %s (limit of a run under %d calls: "
               "%.1f%% from the middle)\n",
               bad ? "FAIL" : "PASS", LONG_RUN, LIMIT_STEADY_SHORT);
    }
    return bad;
}
