/* SPDX-License-Identifier: BSD-3-Clause */
/* The Bound column: the least time a single-copy algorithm on one node
 * needs for the current size, from this node's copy and add bandwidth
 * measured in the same run. A single-copy collective moves each byte
 * once from where it is to where it belongs (cross-memory attach reads
 * or writes another process's memory at about memcpy's rate) and reduces
 * with c = a op b; what each rank must copy and add is, for n ranks and
 * N bytes per rank (doc/performance.md, "The bound"):
 *   all_reduce      (n-1) adds of N/n (its chunk, reading the peers'
 *                   chunks once), then (n-1) copies of N/n (the other
 *                   reduced chunks)
 *   reduce_scatter  (n-1) adds of N/n
 *   all_gather      n copies of N (the peers' inputs and its own into
 *                   the output)
 *   broadcast       one copy of (n-1)/n N (the copy shared with the
 *                   root, src/mpi/node/shm_bcast.c)
 *   all_to_all      n copies of the per-peer chunk (its own included)
 * Each piece is timed on buffers of its size in the run's dtype, every
 * rank at once (as the collective runs them), the best of a few tries,
 * and the slowest rank's best counts: the collective ends with it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_bench.h"

#define TRIES 7
/* Small pieces are repeated up to about this many bytes per try, so that
 * the clock can see them. */
#define TRY_BYTES ((size_t)256 << 10)

typedef struct {
    size_t copy, add; /* bytes of one piece (add: of its output) */
    int copies, adds; /* pieces per rank */
} bench_work_t;

static bench_work_t work(const bench_run_t *r)
{
    bench_work_t w = {0, 0, 0, 0};
    size_t n = (size_t)r->np, b = r->bytes;
    if (n < 2 || !r->coll->sized)
        return w;
    switch (r->coll->kind) {
    case BENCH_ALLREDUCE:
        w.copy = w.add = b / n;
        w.copies = w.adds = (int)n - 1;
        break;
    case BENCH_REDUCE_SCATTER:
        w.add = b / n;
        w.adds = (int)n - 1;
        break;
    case BENCH_ALLGATHER:
    case BENCH_ALLTOALL:
        w.copy = b;
        w.copies = (int)n;
        break;
    case BENCH_BCAST:
        w.copy = b - b / n;
        w.copies = 1;
        break;
    default: break;
    }
    return w;
}

/* c = a + b in the run's dtype. f16 takes bf16's loop (the same bytes;
 * an f16 conversion in portable C costs more than tcomm's kernels do).
 * Built for AVX2 too where the compiler can pick at run time, as tcomm's
 * half kernels are (tcomm_host_half_x86.c): SSE2 alone makes the bf16
 * loop compute-bound, and the bound too lax. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void add(tcomm_dtype_t dt, void *c, const void *a, const void *b,
                size_t bytes)
{
#define ADD(T)                                                              \
    do {                                                                    \
        T *restrict z = c;                                                  \
        const T *restrict x = a, *restrict y = b;                          \
        for (size_t i = 0; i < bytes / sizeof(T); i++)                      \
            z[i] = (T)(x[i] + y[i]);                                        \
    } while (0)
    switch (dt) {
    case TCOMM_F32: ADD(float); break;
    case TCOMM_F64: ADD(double); break;
    case TCOMM_I32: ADD(int32_t); break;
    case TCOMM_U32: ADD(uint32_t); break;
    case TCOMM_I64: ADD(int64_t); break;
    case TCOMM_I8: ADD(int8_t); break;
    case TCOMM_U8: ADD(uint8_t); break;
    case TCOMM_F16:
    case TCOMM_BF16: {
        uint16_t *restrict z = c;
        const uint16_t *restrict x = a, *restrict y = b;
        for (size_t i = 0; i < bytes / 2; i++) {
            float f = 0.0f, g = 0.0f, s;
            uint32_t u = (uint32_t)x[i] << 16, v = (uint32_t)y[i] << 16;
            memcpy(&f, &u, 4);
            memcpy(&g, &v, 4);
            s = f + g;
            memcpy(&u, &s, 4);
            z[i] = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
        }
        break;
    }
    }
#undef ADD
}

/* The slowest rank's best time of one piece, in seconds. */
static double time_piece(bench_run_t *r, size_t bytes, int is_add)
{
    size_t reps = bytes >= TRY_BYTES ? 1 : TRY_BYTES / bytes;
    double best = 0.0;
    for (int t = 0; t < TRIES; t++) {
        bench_sync_barrier(r);
        double t0 = bench_now();
        for (size_t k = 0; k < reps; k++) {
            if (is_add)
                add(r->opt->dtype, r->bw_buf[2], r->bw_buf[0], r->bw_buf[1],
                    bytes);
            else
                memcpy(r->bw_buf[1], r->bw_buf[0], bytes);
            __asm__ volatile("" ::: "memory"); /* each pass happens */
        }
        double dt = (bench_now() - t0) / (double)reps;
        if (t == 0 || dt < best)
            best = dt;
    }
    bench_sync_doubles(r, &best, &best, 1, BENCH_MAX);
    return best;
}

int bench_bound_alloc(bench_run_t *r)
{
    size_t cap = 0;
    for (size_t b = r->opt->min_bytes; r->coll->sized &&
                                       b <= r->opt->max_bytes; b *= 2) {
        r->bytes = b; /* setup may round it */
        if (r->coll->setup(r, b) < BENCH_SIZE_ROUNDED)
            continue;
        bench_work_t w = work(r);
        cap = w.copy > cap ? w.copy : cap;
        cap = w.add > cap ? w.add : cap;
    }
    r->bw_cap = cap;
    for (int i = 0; i < 3 && cap; i++) {
        if (posix_memalign(&r->bw_buf[i], 4096, cap) != 0) {
            r->bw_buf[i] = NULL;
            return 1;
        }
        /* touched now, not in the first timed try; values that add up to
         * ordinary numbers in every dtype (0x3c: 1.0-ish bf16 and f16) */
        memset(r->bw_buf[i], 0x3c, cap);
    }
    return 0;
}

void bench_bound_free(bench_run_t *r)
{
    for (int i = 0; i < 3; i++) {
        free(r->bw_buf[i]);
        r->bw_buf[i] = NULL;
    }
}

double bench_bound_measure(bench_run_t *r, double *copy_gbs,
                           double *add_gbs)
{
    bench_work_t w = work(r);
    double s = 0.0;
    *copy_gbs = *add_gbs = 0.0;
    if (w.copy && w.copies && w.copy <= r->bw_cap) {
        double t = time_piece(r, w.copy, 0);
        s += t * w.copies;
        *copy_gbs = t > 0.0 ? (double)w.copy / t * 1e-9 : 0.0;
    }
    if (w.add && w.adds && w.add <= r->bw_cap) {
        double t = time_piece(r, w.add, 1);
        s += t * w.adds;
        *add_gbs = t > 0.0 ? (double)w.add / t * 1e-9 : 0.0;
    }
    return s * 1e6;
}
