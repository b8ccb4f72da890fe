/* SPDX-License-Identifier: BSD-3-Clause */
/* The older model, kept beside the Bound column (bench_traffic.c) as the
 * JSON's single_copy_us: the least time a single-copy algorithm on one
 * node needs for the current size, from this node's copy and add
 * bandwidth measured in the same run. It is no lower bound: it counts a
 * re-read of the reduced chunk and the harness's own add, which tcomm
 * beat (doc/performance.md, "The bound"). A single-copy collective
 * moves each byte once from where it is to where it belongs and reduces
 * with c = a op b. Where the tensors are tcomm's (in the shared arena, which
 * the peers map: the harness's default) a rank adds a peer's data where
 * it lies; with --private (cross-memory attach) it must copy it into
 * its own memory first. What each rank copies and adds, for n ranks and
 * N bytes per rank (doc/performance.md, "The bound"):
 *   all_reduce      (n-1) adds of N/n (its chunk folded from every
 *                   rank's input; --private: after (n-1) copies of the
 *                   peers' parts), then (n-1) copies of N/n (its reduced
 *                   chunk into the peers' outputs)
 *   reduce_scatter  the same without the last copies
 *   all_gather      n copies of N (the peers' inputs and its own into
 *                   the output)
 *   broadcast       one copy of (n-1)/n N (the copy shared with the
 *                   root, src/mpi/node/node_broadcast.c)
 *   all_to_all      n copies of the per-peer chunk (its own included)
 * Each size's pieces are timed before the timed sizes, in the run's
 * dtype, every rank at once (as the collective runs them), the best of a
 * few tries; the slowest rank's best counts: the collective ends with it.
 * A try walks its pieces through buffers as large, together, as the
 * collective's data per rank (its inputs and outputs over the node,
 * divided by n; at most SPAN_MAX each), so that they come from the level
 * of the memory hierarchy the collective's data comes from: on buffers
 * of one piece, at 4-8 MiB, they stayed in the cache where the
 * collective's data did not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_bench.h"

#define TRIES 7
/* Small pieces are repeated up to about this many bytes per try, so that
 * the clock can see them. */
#define TRY_BYTES ((size_t)256 << 10)
/* Larger spans are out of every cache here, as this one is. */
#define SPAN_MAX ((size_t)128 << 20)

typedef struct {
    size_t copy, add; /* bytes of one piece (add: of its output) */
    int copies, adds; /* pieces per rank */
    size_t copy_span, add_span; /* bytes of each buffer a try walks */
} bench_work_t;

static size_t span_of(size_t data, int buffers, size_t piece)
{
    size_t s = data / (size_t)buffers;
    s = s < SPAN_MAX ? s : SPAN_MAX;
    return s > piece ? s : piece;
}

static bench_work_t work(const bench_run_t *r)
{
    bench_work_t w = {0, 0, 0, 0, 0, 0};
    size_t n = (size_t)r->np, b = r->bytes, data = 0;
    int copy_first = r->opt->private_buffers; /* a peer's part, to add */
    if (n < 2 || !r->coll->sized)
        return w;
    switch (r->coll->kind) {
    case BENCH_ALLREDUCE:
        w.copy = w.add = b / n;
        w.adds = (int)n - 1;
        w.copies = (copy_first ? 2 : 1) * ((int)n - 1);
        data = 2 * b;
        break;
    case BENCH_REDUCE_SCATTER:
        w.copy = w.add = b / n;
        w.adds = (int)n - 1;
        w.copies = copy_first ? (int)n - 1 : 0;
        data = b + b / n;
        break;
    case BENCH_ALLGATHER:
        w.copy = b;
        w.copies = (int)n;
        data = b + n * b;
        break;
    case BENCH_ALLTOALL:
        w.copy = b;
        w.copies = (int)n;
        data = 2 * n * b;
        break;
    case BENCH_BCAST:
        w.copy = b - b / n;
        w.copies = 1;
        data = b;
        break;
    default: break;
    }
    w.copy_span = span_of(data, 2, w.copy); /* from, to */
    w.add_span = span_of(data, 3, w.add);   /* a, b, c */
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

/* The slowest rank's best time of one piece, in seconds: pieces of bytes
 * one after the other through span bytes of each buffer, each piece at a
 * cache line's boundary (a piece of 5 bytes would leave the next one's
 * elements misaligned). */
static double time_piece(bench_run_t *r, size_t bytes, size_t span,
                         int is_add)
{
    size_t stride = (bytes + 63) / 64 * 64;
    size_t windows = span > stride ? span / stride : 1;
    size_t walk = windows * bytes > TRY_BYTES ? windows * bytes : TRY_BYTES;
    size_t reps = walk / bytes;
    char **buf = (char **)r->bw_buf;
    double best = 0.0;
    for (int t = 0; t < TRIES; t++) {
        bench_sync_barrier(r);
        double t0 = bench_now();
        for (size_t k = 0; k < reps; k++) {
            size_t at = k % windows * stride;
            if (is_add)
                add(r->opt->dtype, buf[2] + at, buf[0] + at, buf[1] + at,
                    bytes);
            else
                memcpy(buf[1] + at, buf[0] + at, bytes);
            __asm__ volatile("" ::: "memory"); /* each pass happens */
        }
        double dt = (bench_now() - t0) / (double)reps;
        if (t == 0 || dt < best)
            best = dt;
    }
    bench_sync_doubles(r, &best, &best, 1, BENCH_MAX);
    return best;
}

/* What the bound found at one size of the run. */
typedef struct {
    size_t bytes;            /* r->bytes as setup left it */
    bench_work_t w;
    double copy_s, add_s;    /* the slowest rank's best time of a piece */
} bench_point_t;

struct bench_bound {
    bench_point_t pt[64];    /* one per doubling size */
    int n;
};

/* A piece never copies or adds slower per byte than a larger piece of the
 * same run does: where a size's tries were all disturbed (a loaded
 * machine can hold a rank off for a whole size's tries), the larger
 * size's rate stands in for it. */
static void envelope(struct bench_bound *b)
{
    for (int k = b->n - 2; k >= 0; k--) {
        bench_point_t *p = &b->pt[k], *q = &b->pt[k + 1];
        if (p->w.copy && q->w.copy && q->copy_s > 0.0) {
            double t = q->copy_s / (double)q->w.copy * (double)p->w.copy;
            p->copy_s = t < p->copy_s ? t : p->copy_s;
        }
        if (p->w.add && q->w.add && q->add_s > 0.0) {
            double t = q->add_s / (double)q->w.add * (double)p->w.add;
            p->add_s = t < p->add_s ? t : p->add_s;
        }
    }
}

int bench_bound_prepare(bench_run_t *r)
{
    struct bench_bound *bd = bench_sync_calloc(r, sizeof(*bd));
    size_t cap = 0;
    int bad = 0;
    if (!bd)
        return 1;
    for (size_t b = bench_size_next(r, 0); b && bd->n < 64;
         b = bench_size_next(r, b)) {
        bench_point_t *p = &bd->pt[bd->n++];
        p->bytes = r->bytes;
        p->w = work(r);
        cap = p->w.copy > cap ? p->w.copy : cap;
        cap = p->w.add > cap ? p->w.add : cap;
        cap = p->w.copies && p->w.copy_span > cap ? p->w.copy_span : cap;
        cap = p->w.adds && p->w.add_span > cap ? p->w.add_span : cap;
    }
    for (int i = 0; i < 3 && cap; i++) {
        if (posix_memalign(&r->bw_buf[i], 4096, cap) != 0)
            r->bw_buf[i] = NULL, bad = 1;
        else /* touched now, not in the first try; values that add up to
              * ordinary numbers in every dtype (0x3c: bf16 and f16 ~1) */
            memset(r->bw_buf[i], 0x3c, cap);
    }
    bench_sync_int(r, &bad, BENCH_MAX);
    for (int k = 0; k < bd->n && !bad; k++) {
        bench_point_t *p = &bd->pt[k];
        if (p->w.copy && p->w.copies)
            p->copy_s = time_piece(r, p->w.copy, p->w.copy_span, 0);
        if (p->w.add && p->w.adds)
            p->add_s = time_piece(r, p->w.add, p->w.add_span, 1);
    }
    for (int i = 0; i < 3; i++) { /* not needed while the run times */
        free(r->bw_buf[i]);
        r->bw_buf[i] = NULL;
    }
    envelope(bd);
    r->bound = bd;
    return bad;
}

void bench_bound_free(bench_run_t *r)
{
    free(r->bound);
    free(r->traffic); /* bench_traffic.c's, the Bound column's */
    r->bound = NULL;
    r->traffic = NULL;
}

double bench_bound_at(const bench_run_t *r, double *copy_gbs,
                      double *add_gbs)
{
    const struct bench_bound *bd = r->bound;
    *copy_gbs = *add_gbs = 0.0;
    for (int k = 0; bd && k < bd->n; k++) {
        const bench_point_t *p = &bd->pt[k];
        if (p->bytes != r->bytes)
            continue;
        double s = p->copy_s * p->w.copies + p->add_s * p->w.adds;
        if (s < bench_tick()) /* noise, and a ratio over it is too */
            return 0.0;
        if (p->copy_s > 0.0)
            *copy_gbs = (double)p->w.copy / p->copy_s * 1e-9;
        if (p->add_s > 0.0)
            *add_gbs = (double)p->w.add / p->add_s * 1e-9;
        return s * 1e6;
    }
    return 0.0;
}
