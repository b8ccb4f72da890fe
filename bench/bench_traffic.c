/* SPDX-License-Identifier: BSD-3-Clause */
/* The Bound column: the larger of two lower bounds (doc/performance.md,
 * "The bound"): this file's, the least time any algorithm needs to read
 * and write the bytes a collective must move, at the rate this node
 * streams them with every rank streaming at once (JSON stream_us), and
 * bench_cross_core.c's, the least time to load the bytes that must come
 * from another core (JSON cross_core_us).
 *
 * Bytes per rank at the least, for n ranks and N input bytes per rank
 * (all_to_all: N per rank and peer). Every input byte is read at least
 * once and every output byte written at least once, by someone; spread
 * evenly over the ranks (any uneven split only makes the slowest rank
 * slower), a rank reads R and writes W:
 *   all_reduce      R = N      W = N     (its 1/n of every input, its
 *                                          reduced 1/n into every output)
 *   reduce_scatter  R = N      W = N/n
 *   all_gather      R = N      W = n N   (its input once, into n outputs)
 *   broadcast       R = N/n    W = (n-1)/n N (in place: the root's N read
 *                                          once, n-1 copies written)
 *   all_to_all      R = n N    W = n N
 * Nothing else is counted: no write-allocate (non-temporal stores avoid
 * it), no intermediate buffer, no compute (the reduction's adds: a bound
 * on the bytes alone stays a bound whatever the dtype costs).
 *
 * The rate: kernels that read k streams and write m streams of S bytes
 * each, (k, m) in the collective's proportion of R to W, S = R / k, so
 * that one pass moves R + W bytes through buffers as large as the
 * collective's, from the level of the memory hierarchy its data lives
 * at. Five kernels: glibc's memcpy block by block (each input block
 * read, each output block written from it), out_j = in_0 ^ ... ^ in_{k-1}
 * with non-temporal stores (no write-allocate) and with ordinary ones
 * (no intermediate block either: where the data stay in the cache, the
 * fused loop a reduction runs), the latter again in AVX2 where the CPU
 * has it (as tcomm's folds), and where k = 1 one memcpy of S into
 * each output (glibc may pick yet another way for it: a warm all_gather
 * of 1 MiB beat the bound without it). All ranks
 * run each kernel at once, the best of TRIES, before the timed sizes and
 * again after each size's timed calls (the faster counts: a load burst in
 * one measurement would leave a bound the collective can beat; make bench
 * at load 6-13 once printed bf16 all_reduce of 16 MiB at 0.68x a bound
 * measured only before); a rank's rate is its
 * fastest kernel's (R + W) / t, and the bound is (R + W) over the mean
 * of the ranks' rates: no rank can move its share faster than the
 * fastest way this node was seen to move bytes while every rank did. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "tcomm_bench.h"

#define TRIES 9
#define TRY_BYTES ((size_t)256 << 10) /* small passes repeated up to it */
#define STREAMS_MAX 8                 /* k + m */

typedef struct {
    double r, w;  /* bytes per rank read and written at the least */
    int k, m;     /* the kernel's streams in and out */
} traffic_t;

static traffic_t traffic(const bench_run_t *r)
{
    traffic_t t = {0.0, 0.0, 1, 1};
    double n = (double)r->np, b = (double)r->bytes;
    switch (r->coll->kind) {
    case BENCH_ALLREDUCE: t.r = b, t.w = b; break;
    case BENCH_REDUCE_SCATTER: t.r = b, t.w = b / n, t.k = r->np; break;
    case BENCH_ALLGATHER: t.r = b, t.w = n * b, t.m = r->np; break;
    case BENCH_BCAST:
        t.r = b / n, t.w = (n - 1) / n * b, t.m = r->np - 1;
        break;
    case BENCH_ALLTOALL: t.r = n * b, t.w = n * b; break;
    default: break;
    }
    if (t.k + t.m > STREAMS_MAX) /* many ranks: the proportion, roughly */
        t.k = t.k > t.m ? STREAMS_MAX - 1 : 1,
        t.m = STREAMS_MAX - t.k;
    return t;
}

/* Block by block: each of the k inputs' block read with memcpy (into a
 * block that stays in L1 where k > 1), then written into each of the m
 * outputs from where it lies: glibc's copies, the fastest loads and
 * stores this machine has, and each input byte read from the level the
 * buffers live at once. */
#define BLK ((size_t)16384)
static void copy_pass(char **in, int k, char **out, int m, size_t s)
{
    static _Thread_local char l1[BLK] __attribute__((aligned(64)));
    for (size_t i = 0; i < s; i += BLK) {
        size_t b = s - i < BLK ? s - i : BLK;
        const char *src = in[0] + i;
        for (int j = 0; k > 1 && j < k; j++) {
            memcpy(l1, in[j] + i, b);
            src = l1;
        }
        for (int j = 0; j < m; j++)
            memcpy(out[j] + i, src, b);
    }
}

/* out_j = xor of the k inputs, 8 bytes at a time (S a multiple of 64). */
static void xor_pass(char **in, int k, char **out, int m, size_t s, int nt)
{
    for (size_t i = 0; i < s; i += 16) {
        uint64_t x0 = 0, x1 = 0;
        for (int j = 0; j < k; j++) {
            const uint64_t *p = (const uint64_t *)(in[j] + i);
            x0 ^= p[0], x1 ^= p[1];
        }
        for (int j = 0; j < m; j++) {
#if defined(__x86_64__)
            if (nt) {
                _mm_stream_si128((__m128i *)(out[j] + i),
                                 _mm_set_epi64x((long long)x1,
                                                (long long)x0));
                continue;
            }
#endif
            uint64_t *q = (uint64_t *)(out[j] + i);
            q[0] = x0, q[1] = x1;
        }
    }
#if defined(__x86_64__)
    if (nt)
        _mm_sfence();
#endif
}

/* The fused loop of xor_pass in 32-byte loads and ordinary stores, as
 * tcomm's AVX2 folds run it: on data that stays in the cache the 8-byte
 * loop above is bound by its instructions, and a reduce_scatter whose
 * chunks sit in L2 beat a bound measured with it by up to 1.75x
 * (doc/performance.md, "The bound"). 0 where the CPU lacks AVX2. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void
xor_pass_avx2(char **in, int k, char **out, int m, size_t s)
{
    for (size_t i = 0; i < s; i += 64) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(in[0] + i));
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(in[0] + i + 32));
        for (int j = 1; j < k; j++) {
            x0 = _mm256_xor_si256(
                x0, _mm256_loadu_si256((const __m256i *)(in[j] + i)));
            x1 = _mm256_xor_si256(
                x1, _mm256_loadu_si256((const __m256i *)(in[j] + i + 32)));
        }
        for (int j = 0; j < m; j++) {
            _mm256_storeu_si256((__m256i *)(out[j] + i), x0);
            _mm256_storeu_si256((__m256i *)(out[j] + i + 32), x1);
        }
    }
}

static int has_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}
#else
static void xor_pass_avx2(char **in, int k, char **out, int m, size_t s)
{
    (void)in, (void)k, (void)out, (void)m, (void)s;
}

static int has_avx2(void)
{
    return 0;
}
#endif

/* This rank's best seconds of one kernel pass over S-byte streams
 * (kernel 0: copy_pass, 1: xor with non-temporal stores, 2: memcpy of
 * the one input into each output, 3: xor with ordinary stores, 4: the
 * same in AVX2). */
static double time_kernel(bench_run_t *r, char **buf, int k, int m,
                          size_t s, int kernel)
{
    size_t reps = s >= TRY_BYTES ? 1 : TRY_BYTES / s;
    double best = 0.0;
    for (int t = 0; t < TRIES; t++) {
        bench_sync_barrier(r);
        double t0 = bench_now();
        for (size_t i = 0; i < reps; i++) {
            if (kernel == 2)
                for (int j = 0; j < m; j++)
                    memcpy(buf[1 + j], buf[0], s);
            else if (kernel == 1 || kernel == 3)
                xor_pass(buf, k, buf + k, m, s, kernel == 1);
            else if (kernel == 4)
                xor_pass_avx2(buf, k, buf + k, m, s);
            else
                copy_pass(buf, k, buf + k, m, s);
            __asm__ volatile("" ::: "memory"); /* each pass happens */
        }
        double dt = (bench_now() - t0) / (double)reps;
        if (t == 0 || dt < best)
            best = dt;
    }
    return best;
}

struct bench_traffic {
    size_t bytes[64];
    double us[64], gbs[64];   /* streaming */
    double xus[64], xgbs[64]; /* between cores (bench_cross_core.c) */
    int n;
};

/* The bound of the current size: microseconds, and the rate per rank. */
static int measure(bench_run_t *r, double *us, double *gbs)
{
    traffic_t t = traffic(r);
    *us = *gbs = 0.0;
    if (r->np < 2 || t.r + t.w <= 0.0)
        return 0;
    size_t s = (size_t)(t.r / t.k);
    s = (s + 63) / 64 * 64;
    s = s < 64 ? 64 : s;
    char *buf[STREAMS_MAX];
    int bad = 0, streams = t.k + t.m;
    for (int i = 0; i < streams; i++)
        if (posix_memalign((void **)&buf[i], 4096, s) != 0)
            buf[i] = NULL, bad = 1;
        else
            memset(buf[i], 0x3c, s); /* touched before the tries */
    bench_sync_int(r, &bad, BENCH_MAX);
    double rate = 0.0; /* this rank's bytes per second, the best kernel */
    for (int kernel = 0; kernel < 5 && !bad; kernel++) {
        if ((kernel == 2 && t.k != 1) || (kernel == 4 && !has_avx2()))
            continue;
#if !defined(__x86_64__)
        if (kernel == 1)
            continue;
#endif
        double dt = time_kernel(r, buf, t.k, t.m, s, kernel);
        double moved = (double)s * streams;
        if (dt > 0.0 && moved / dt > rate)
            rate = moved / dt;
    }
    for (int i = 0; i < streams; i++)
        free(buf[i]);
    if (bad)
        return 1;
    double sum = rate;
    bench_sync_doubles(r, &rate, &sum, 1, BENCH_SUM);
    double mean = sum / r->np;
    if (mean > 0.0) {
        *us = (t.r + t.w) / mean * 1e6;
        *gbs = mean * 1e-9;
    }
    if (*us * 1e-6 < bench_tick()) /* noise, and a ratio over it too */
        *us = 0.0;
    return 0;
}

/* A size moves bytes no slower than the next, twice as large, does: where
 * a loaded machine held a rank off for all of a size's tries, the larger
 * size's rate stands in (a bound measured slow could be beaten). */
void bench_traffic_envelope(const size_t *bytes, double *us, double *gbs, int n)
{
    for (int k = n - 2; k >= 0; k--) {
        double per = us[k + 1] / (double)bytes[k + 1];
        double t = per * (double)bytes[k];
        if (us[k] > 0.0 && t > 0.0 && t < us[k]) {
            gbs[k] *= us[k] / t;
            us[k] = t;
        }
    }
    for (int k = 0; k < n; k++)
        if (us[k] * 1e-6 < bench_tick()) /* lowered into the noise */
            us[k] = gbs[k] = 0.0;
}

int bench_traffic_prepare(bench_run_t *r)
{
    struct bench_traffic *tr = bench_sync_calloc(r, sizeof(*tr));
    int bad = 0;
    if (!tr)
        return 1;
    for (size_t b = bench_size_next(r, 0); b && tr->n < 64;
         b = bench_size_next(r, b)) {
        tr->bytes[tr->n] = r->bytes;
        bad |= measure(r, &tr->us[tr->n], &tr->gbs[tr->n]);
        bad |= bench_cross_core_measure(r, &tr->xus[tr->n],
                                        &tr->xgbs[tr->n]);
        tr->n++;
    }
    bench_traffic_envelope(tr->bytes, tr->us, tr->gbs, tr->n);
    bench_traffic_envelope(tr->bytes, tr->xus, tr->xgbs, tr->n);
    r->traffic = tr;
    return bad;
}

void bench_traffic_again(bench_run_t *r)
{
    struct bench_traffic *tr = r->traffic;
    for (int k = 0; tr && k < tr->n; k++) {
        double us = 0.0, gbs = 0.0;
        if (tr->bytes[k] != r->bytes)
            continue;
        if (measure(r, &us, &gbs) == 0 && us > 0.0 && us < tr->us[k])
            tr->us[k] = us, tr->gbs[k] = gbs;
        if (bench_cross_core_measure(r, &us, &gbs) == 0 && us > 0.0 &&
            us < tr->xus[k])
            tr->xus[k] = us, tr->xgbs[k] = gbs;
        return;
    }
}

double bench_traffic_at(const bench_run_t *r, bench_terms_t *terms)
{
    const struct bench_traffic *tr = r->traffic;
    memset(terms, 0, sizeof(*terms));
    for (int k = 0; tr && k < tr->n; k++) {
        if (tr->bytes[k] != r->bytes)
            continue;
        terms->stream_us = tr->us[k], terms->stream_gbs = tr->gbs[k];
        terms->cross_core_us = tr->xus[k];
        terms->cross_core_gbs = tr->xgbs[k];
        /* two lower bounds: the larger is one too */
        return tr->xus[k] > tr->us[k] ? tr->xus[k] : tr->us[k];
    }
    return 0.0;
}
