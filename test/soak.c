/* SPDX-License-Identifier: BSD-3-Clause */
/* Soak: mpirun -np N test/soak [OPS [SEED [MAX_BYTES]]]
 *
 * OPS collectives of random kind, form, dtype, op, dim and shape (0-d,
 * empty, uneven, multi-MiB up to 1 MiB + MAX_BYTES), about one in eight
 * an invalid call (soak_invalid.c). Every rank draws the same sequence
 * from SEED; every result is checked element by element against
 * test/mpi_reference, every invalid call against the status each rank
 * must return, and a failed call must leave *out untouched.
 *
 * Memory (soak_mem.c): a warm-up first runs every collective, form and
 * dtype once, the largest sizes included, and OPS / 10 random calls;
 * private resident memory is read after it (the start), after OPS / 2
 * calls and at the end. Its growth must stay under the limits of
 * soak_mem.c (SOAK_RSS_CHECK=0, or a sanitizer build, skips that check;
 * SOAK_MEM_TRACE=N prints each rank's figures every N calls).
 *
 * Prints the counts of calls, expected errors, mismatches and
 * unexpected errors and the memory figures; exits 0 only if there were
 * no mismatches or unexpected errors and the memory check passed. A
 * timeout or MPI failure ends the rank at once with exit status 3 and
 * the error text (test/crash-check.sh and test/netns/ kill ranks and
 * links under it); SOAK_PIDFILE=P makes rank r write its pid to P.r.
 * SOAK_BARRIERS_ONLY=1 makes it OPS checked barriers and nothing else
 * (test/netns: exchanges that TCOMM_TIMEOUT bounds from end to end). */
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_reference.h"
#include "soak.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

int rank, nranks;
tcomm_comm_t *comm;
tcomm_graph_t *graph, *graph2;
long opno, n_ok, n_expected_err, n_mismatch, n_unexpected;
static uint64_t rng_state;
long n_bytes_max;

uint64_t rnd(void) /* splitmix64: the same stream on every rank */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* A timeout or an MPI failure leaves the communicator unusable and the
 * peers in an unknown state (a rank died, a link went down): say so,
 * naming the error, and end this rank without MPI_Finalize. */
void fatal_check(tcomm_status_t st)
{
    if (st != TCOMM_ERR_TIMEOUT && st != TCOMM_ERR_MPI &&
        st != TCOMM_ERR_COMM_FAILED)
        return;
    fprintf(stderr, "soak rank %d: fatal: %s: %s\n", rank,
            tcomm_status_string(st), tcomm_last_error());
    fflush(stderr);
    _exit(3);
}

size_t numel(int nd, const size_t *s)
{
    size_t p = 1;
    for (int i = 0; i < nd; i++)
        p *= s[i];
    return p;
}

tcomm_tensor_t *make(tcomm_dtype_t d, int op, int nd, const size_t *s)
{
    size_t n = numel(nd, s), es = tcomm_dtype_size(d);
    void *buf = malloc(n * es + 1);
    ref_fill(d, op, rank, buf, n);
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_from_host(graph, d, buf, nd, s, &t) != TCOMM_SUCCESS) {
        fprintf(stderr, "soak: tensor_from_host: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(buf);
    return t;
}

tcomm_tensor_t *make_empty(tcomm_dtype_t d, int nd, const size_t *s)
{
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_empty(graph, d, nd, s, &t) != TCOMM_SUCCESS) {
        fprintf(stderr, "soak: tensor_empty: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return t;
}

/* The warm-up: every collective and form at the largest size of the
 * run, as one row and as 2 and 7 rows (all_gather and reduce_scatter
 * along both dims: the widest rows ask for the largest temporaries),
 * every dtype with every op, every kind of invalid call, then random
 * calls, a tenth of the run's, from a stream of their own (the run's
 * sequence stays the same). Whatever grows to a high-water mark with use
 * gets there, or nearly, before the start figure is read: tcomm's
 * temporaries, MPI's buffers and free lists, and glibc's per-thread
 * cache of small freed chunks (tcache: up to 7 chunks of each size up
 * to 1 KiB, which fills as new sizes come, slower and slower: the most
 * of the growth left, doc/reliability.md). Returns the number of
 * calls. */
static void random_call(void)
{
    if (below(8) == 0)
        invalid_call((int)below(SOAK_INVALID_KINDS));
    else
        valid_call();
}

static long warm_up(long random_calls)
{
    static const size_t rows[] = {1, 2, 7};
    size_t n = (((size_t)1 << 20) + (size_t)n_bytes_max) / 4; /* f32 */
    uint64_t saved = rng_state;
    long calls = 0;
    rng_state ^= 0x5eed5eed5eedULL; /* from the seed, apart from it */
    opno = -1; /* in messages */
    for (int k = 0; k < K_COUNT; k++) {
        for (int f = 0; f < (k == K_AR || k == K_BC ? 3 : 2); f++) {
            for (int i = 0; i < 3 && (k != K_BAR || !i); i++) {
                for (int dim = 0; dim < (i ? 2 : 1); dim++, calls++) {
                    call_t c = {.kind = k, .form = f, .op = TCOMM_SUM,
                                .d = TCOMM_F32, .nd = i ? 2 : 1,
                                .dim = dim};
                    c.s[0] = i ? rows[i] : n;
                    c.s[1] = n / rows[i];
                    for (int r = 0; r < nranks; r++)
                        c.sizes[r] = c.s[dim];
                    run_valid(&c);
                }
            }
        }
    }
    for (int d = 0; d < 9; d++) {
        for (int op = 0; op < 5; op++) {
            call_t c = {.kind = K_AR, .form = F_ALLOC, .d = (tcomm_dtype_t)d,
                        .op = op, .nd = 2, .s = {6, 5}};
            if (op == TCOMM_AVG && !ref_is_float(c.d))
                continue;
            run_valid(&c);
            calls++;
        }
        for (int k = K_AG; k <= K_BC; k++) {
            call_t c = {.kind = k, .form = F_INTO, .d = (tcomm_dtype_t)d,
                        .nd = 2, .s = {6, 5}, .dim = 1};
            for (int r = 0; r < nranks; r++)
                c.sizes[r] = 5 + (size_t)r;
            run_valid(&c);
            calls++;
        }
    }
    for (int what = 0; what < SOAK_INVALID_KINDS; what++, calls++)
        invalid_call(what);
    for (long i = 0; i < random_calls && n_unexpected <= 20; i++, calls++)
        random_call();
    rng_state = saved;
    opno = 0;
    return calls;
}

static void write_pidfile(void)
{
    const char *pidfile = getenv("SOAK_PIDFILE"); /* test/crash-check.sh */
    if (!pidfile)
        return;
    char name[4096];
    snprintf(name, sizeof name, "%s.%d", pidfile, rank);
    FILE *f = fopen(name, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    /* A fixed mmap threshold (see soak_mem.c): glibc's dynamic one would
     * keep freed multi-MiB buffers in the heap. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long ops = argc > 1 ? atol(argv[1]) : 1500;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    n_bytes_max = argc > 3 ? atol(argv[3]) : 4L << 20;
    const char *rc_env = getenv("SOAK_RSS_CHECK");
    int mem_check = !SANITIZED && !(rc_env && !strcmp(rc_env, "0"));
    rng_state = seed;
    write_pidfile();
    if (nranks > 64) {
        fprintf(stderr, "soak: at most 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) != TCOMM_SUCCESS ||
        tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0},
                           &graph) != TCOMM_SUCCESS ||
        tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0},
                           &graph2) != TCOMM_SUCCESS) {
        fprintf(stderr, "soak: setup: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *bo = getenv("SOAK_BARRIERS_ONLY");
    if (bo && !strcmp(bo, "1")) { /* test/netns: arrival exchanges only */
        for (opno = 0; opno < ops; opno++)
            fatal_check(tcomm_barrier(comm));
        MPI_Finalize();
        return 0;
    }
    double t0 = MPI_Wtime();
    long warm = warm_up(ops / 10);
    long w_ok = n_ok, w_err = n_expected_err;
    n_ok = n_expected_err = 0;
    soak_mem_t mem[MEM_POINTS];
    mem[MEM_START] = mem[MEM_MIDDLE] = soak_mem_read();
    for (opno = 0; opno < ops; opno++) {
        if (opno == ops / 2)
            mem[MEM_MIDDLE] = soak_mem_read();
        soak_mem_trace(opno);
        random_call();
        if (n_unexpected > 20)
            break; /* the communicator may be unusable */
    }
    mem[MEM_END] = soak_mem_read();
    double secs = MPI_Wtime() - t0;

    long mine[4] = {n_ok, n_expected_err, n_mismatch, n_unexpected}, sum[4];
    MPI_Reduce(mine, sum, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        printf("soak: %d ranks, seed %llu, %ld collectives (after a "
               "warm-up of %ld: %ld valid, %ld invalid) in %.1f s: %ld "
               "valid calls checked, %ld invalid calls rejected as "
               "expected, %ld mismatches, %ld unexpected errors (counts "
               "summed over ranks)\n",
               nranks, (unsigned long long)seed, opno, warm, w_ok, w_err,
               secs, sum[0] / nranks, sum[1] / nranks, sum[2], sum[3]);
        bad = sum[2] != 0 || sum[3] != 0 || opno != ops;
    }
    /* on every rank (it gathers); a run cut short is not judged on it */
    bad |= soak_mem_verdict(mem, ops, mem_check && opno == ops);
    if (rank == 0)
        printf("soak: %s\n", bad ? "FAIL" : "PASS");
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    tcomm_graph_destroy(graph2);
    tcomm_graph_destroy(graph);
    tcomm_comm_destroy(comm);
    MPI_Finalize();
    return bad ? 1 : 0;
}
