/* SPDX-License-Identifier: BSD-3-Clause */
/* The Bound column's second term (bench_traffic.c takes the larger of
 * the two): the least time a rank needs to load the bytes that another
 * core wrote and that it must load at the least, at the rate this node
 * moves bytes between cores with every rank doing so at once
 * (doc/performance.md, "The bound").
 *
 * Which bytes must cross. With --vary every rank rewrites its input
 * just before each call, so that the only up-to-date copy of it is the
 * owner's: a core learns anything of a peer's input only by loading
 * data that another core stored after that rewrite. A reduction's
 * output element combines the n inputs' elements at its position; each
 * such load joins what two cores know of that position, and joining n
 * cores' takes n - 1 joins (a graph on n cores needs n - 1 edges to be
 * connected). (n - 1) N bytes over the node, for n ranks and N bytes
 * per rank, so (n - 1) / n N for the rank that loads the most, for
 * all_reduce and reduce_scatter alike: all_reduce's second half (the
 * sum into every rank's output) can be stored into the peers' buffers
 * (a push) without any core loading a line another one wrote.
 * The collectives that only move data (all_gather, broadcast,
 * all_to_all) can push every byte the same way: the owner loads its own
 * input and stores it into the peers' outputs, so no load of this kind
 * is forced and no term is claimed. Without --vary neither: the inputs
 * do not change between calls, a peer's input read once stays as a
 * clean copy in the reader's cache, and an algorithm could read every
 * input from its own cache on every later call.
 *
 * The rate: every rank writes a buffer as large as its input (N bytes)
 * in memory the node shares, then after a barrier loads, from each
 * peer's, the chunk of N/n a reduce_scatter would: (n - 1) / n N. Two
 * writers (glibc's memset, and non-temporal stores, which leave the
 * lines in memory instead of the writer's cache) and two readers (an
 * XOR of the loaded words, and glibc's memcpy into a block that stays in
 * L1), the best of TRIES each, before the timed sizes and again after
 * each size's timed calls as the streaming rate is; a rank's rate is
 * its fastest read's bytes over its time, the term those bytes over the
 * mean of the ranks' rates. A pass is not repeated (a second one would
 * load lines the first left in the reader's cache), so under MIN_READ
 * bytes, where one pass is too short for the clock, no term. Ranks that
 * do not all share one node: no term either (what crosses nodes is the
 * network's, another model). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "tcomm_bench.h"

#define TRIES 9
#define MIN_READ ((size_t)32 << 10)
#define BLK ((size_t)16384)

/* The bytes this rank must load that another core wrote; 0: no term. */
static double cross_bytes(const bench_run_t *r)
{
    double n = (double)r->np, b = (double)r->bytes;
    if (!r->opt->vary || r->np < 2)
        return 0.0;
    switch (r->coll->kind) {
    case BENCH_ALLREDUCE:
    case BENCH_REDUCE_SCATTER: return (n - 1.0) / n * b;
    default: return 0.0;
    }
}

/* The node-shared segment: np buffers of at least stride bytes, rank
 * k's at base[k], in an MPI shared window. The local backend's threads
 * have no bound (no MPI baseline), so no segment of theirs. */
typedef struct {
    char *base[64];
    MPI_Win win;
} segment_t;

/* 0: open; 1: the ranks do not all share one node (no term); 2: no
 * memory for it on some rank. */
static int segment_open(bench_run_t *r, segment_t *g, size_t stride)
{
    g->win = MPI_WIN_NULL;
    if (r->sync)
        return 1;
    MPI_Comm node;
    int node_size = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    int apart = node_size != r->np || r->np > 64;
    bench_sync_int(r, &apart, BENCH_MAX);
    char *mine = NULL;
    int failed = !apart &&
        MPI_Win_allocate_shared((MPI_Aint)(stride + 64), 1, MPI_INFO_NULL,
                                node, &mine, &g->win) != MPI_SUCCESS;
    bench_sync_int(r, &failed, BENCH_MAX);
    for (int k = 0; !apart && !failed && k < r->np; k++) {
        MPI_Aint size;
        int unit;
        char *at = NULL;
        MPI_Win_shared_query(g->win, k, &size, &unit, &at);
        /* a cache line's boundary (the streaming stores need 16 bytes'),
         * which a window's base need not be on */
        g->base[k] = at + (64 - (uintptr_t)at % 64) % 64;
    }
    MPI_Comm_free(&node);
    return apart ? 1 : failed ? 2 : 0;
}

static void segment_close(bench_run_t *r, segment_t *g)
{
    bench_sync_barrier(r); /* nobody reads a buffer that goes away */
    if (g->win != MPI_WIN_NULL)
        MPI_Win_free(&g->win);
}

static void write_pass(char *p, size_t s, int value, int nt)
{
#if defined(__x86_64__)
    if (nt) {
        __m128i v = _mm_set1_epi8((char)value);
        for (size_t i = 0; i < s; i += 16)
            _mm_stream_si128((__m128i *)(p + i), v);
        _mm_sfence();
        return;
    }
#endif
    (void)nt;
    memset(p, value, s);
}

static void read_pass(const char *p, size_t s, int kernel)
{
    static _Thread_local char l1[BLK] __attribute__((aligned(64)));
    if (kernel == 1) {
        for (size_t i = 0; i < s; i += BLK)
            memcpy(l1, p + i, s - i < BLK ? s - i : BLK);
        __asm__ volatile("" : : "r"(l1) : "memory");
        return;
    }
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i < s; i += 32) {
        const uint64_t *q = (const uint64_t *)(p + i);
        a ^= q[0], b ^= q[1], c ^= q[2], d ^= q[3];
    }
    uint64_t x = a ^ b ^ c ^ d;
    __asm__ volatile("" : : "r"(x)); /* the loads happen */
}

/* This rank's best seconds loading its chunk of every peer's buffer,
 * just written by that peer with writer nt (0: memset, 1: streaming). */
static double time_read(bench_run_t *r, segment_t *g, size_t stride,
                        size_t chunk, int nt, int kernel)
{
    double best = 0.0;
    for (int t = 0; t < TRIES; t++) {
        write_pass(g->base[r->rank], stride, 0x40 + t, nt);
        bench_sync_barrier(r);
        double t0 = bench_now();
        for (int k = 1; k < r->np; k++) {
            int peer = (r->rank + k) % r->np;
            read_pass(g->base[peer] + chunk * (size_t)r->rank, chunk,
                      kernel);
        }
        double dt = bench_now() - t0;
        if (t == 0 || dt < best)
            best = dt;
        bench_sync_barrier(r); /* nobody rewrites what a peer still reads */
    }
    return best;
}

int bench_cross_core_measure(bench_run_t *r, double *us, double *gbs)
{
    double bytes = cross_bytes(r);
    *us = *gbs = 0.0;
    if (bytes < (double)MIN_READ)
        return 0;
    /* chunks of N/n at cache-line boundaries, rounded up: never fewer
     * bytes loaded than the collective must */
    size_t chunk = (r->bytes / (size_t)r->np + 63) / 64 * 64;
    size_t stride = (chunk * (size_t)r->np + 4095) / 4096 * 4096;
    segment_t g;
    int open = segment_open(r, &g, stride);
    if (open != 0) {
        segment_close(r, &g);
        return open == 2;
    }
    double rate = 0.0, moved = (double)chunk * (r->np - 1);
    for (int nt = 0; nt < 2; nt++)
        for (int kernel = 0; kernel < 2; kernel++) {
            double dt = time_read(r, &g, stride, chunk, nt, kernel);
            if (dt > 0.0 && moved / dt > rate)
                rate = moved / dt;
        }
    segment_close(r, &g);
    double sum = rate;
    bench_sync_doubles(r, &rate, &sum, 1, BENCH_SUM);
    double mean = sum / r->np;
    if (mean > 0.0) {
        *us = bytes / mean * 1e6;
        *gbs = mean * 1e-9;
    }
    return 0;
}
