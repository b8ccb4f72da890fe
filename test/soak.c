/* SPDX-License-Identifier: BSD-3-Clause */
/* Soak: mpirun -np N test/soak [OPS [SEED [MAX_BYTES]]]
 *
 * OPS collectives of random kind, form, dtype, op, dim and shape (0-d,
 * empty, uneven, multi-MiB up to MAX_BYTES), about one in eight an invalid
 * call (bad dim/root/op, AVG on integers, indivisible reduce_scatter,
 * ranks disagreeing on shape/dtype/collective/root, a NULL input or a
 * wrong output on one rank). Every rank draws the same sequence from SEED;
 * every result is checked element by element against test/mpi_reference,
 * every invalid call against the status each rank must return, and a
 * failed call must leave *out untouched. Resident memory is read after a
 * warm-up (a tenth of the calls) and at the end (private memory, see
 * rss_kib): growth must stay under 5% in runs of 10,000 calls or more
 * (SOAK_RSS_CHECK=0, or a sanitizer build, skips that check). Prints
 * the counts of calls, expected errors, mismatches and unexpected
 * errors; exits 0 only if there were no mismatches. A timeout or MPI
 * failure ends the rank at once with exit status 3 and the error text
 * (test/crash-check.sh and test/netns/ kill ranks and links under it);
 * SOAK_PIDFILE=P makes rank r write its pid to P.r. */
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_reference.h"
#include "tcomm_mpi.h"

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

enum { K_AR, K_AG, K_RS, K_BC, K_BAR, K_COUNT };
enum { F_ALLOC, F_INTO, F_INPLACE };

static int rank, nranks;
static tcomm_comm_t *comm;
static tcomm_graph_t *graph;
static uint64_t rng_state;
static long n_ok, n_expected_err, n_mismatch, n_unexpected;
static long n_bytes_max;

static uint64_t rnd(void) /* splitmix64: the same stream on every rank */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* Resident memory in KiB: RssAnon, the process's private memory (heap,
 * anonymous mappings), after the heap's free pages go back to the system
 * (malloc_trim), so that it counts what is live. Shared pages (Open MPI's
 * shared-memory transport touches more of its segment as traffic grows)
 * are not the process's own and are left out; *shm receives them. */
static long rss_kib(long *shm)
{
    malloc_trim(0);
    long anon = 0;
    *shm = 0;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "RssAnon: %ld", &anon);
        sscanf(line, "RssShmem: %ld", shm);
    }
    fclose(f);
    return anon;
}

/* A timeout or an MPI failure leaves the communicator unusable and the
 * peers in an unknown state (a rank died, a link went down): say so,
 * naming the error, and end this rank without MPI_Finalize. */
static void fatal_check(tcomm_status_t st)
{
    if (st != TCOMM_ERR_TIMEOUT && st != TCOMM_ERR_MPI &&
        st != TCOMM_ERR_COMM_FAILED)
        return;
    fprintf(stderr, "soak rank %d: fatal: %s: %s\n", rank,
            tcomm_status_string(st), tcomm_last_error());
    fflush(stderr);
    _exit(3);
}

#define FAIL(...)                                                         \
    do {                                                                  \
        if (n_mismatch++ < 20) {                                          \
            fprintf(stderr, "soak rank %d op %ld: ", rank, opno);         \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
        }                                                                 \
    } while (0)

static long opno;

static size_t numel(int nd, const size_t *s)
{
    size_t p = 1;
    for (int i = 0; i < nd; i++)
        p *= s[i];
    return p;
}

static tcomm_tensor_t *make(tcomm_dtype_t d, int op, int nd,
                            const size_t *s)
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

static tcomm_tensor_t *make_empty(tcomm_dtype_t d, int nd, const size_t *s)
{
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_empty(graph, d, nd, s, &t) != TCOMM_SUCCESS) {
        fprintf(stderr, "soak: tensor_empty: %s\n", tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return t;
}

static void *host_copy(const tcomm_tensor_t *t)
{
    size_t b = tcomm_tensor_numel(t) *
               tcomm_dtype_size(tcomm_tensor_dtype(t));
    void *p = malloc(b + 1);
    tcomm_tensor_to_host(t, p, b);
    return p;
}

/* A random shape: 0-d, empty, small uneven, or (rarely) multi-MiB. */
static void rand_shape(tcomm_dtype_t d, int *nd, size_t *s)
{
    size_t es = tcomm_dtype_size(d);
    unsigned pick = (unsigned)below(100);
    if (pick < 8) { /* 0-d */
        *nd = 0;
        return;
    }
    if (pick < 14) { /* multi-MiB, 1-d or 2-d */
        size_t bytes = ((size_t)1 << 20) + below((size_t)n_bytes_max);
        size_t n = bytes / es;
        *nd = 1 + (int)below(2);
        if (*nd == 1) {
            s[0] = n;
        } else {
            s[0] = 1 + below(7);
            s[1] = n / s[0];
        }
        return;
    }
    *nd = 1 + (int)below(4);
    for (int i = 0; i < *nd; i++)
        s[i] = below(16) == 0 ? 0 : 1 + below(6); /* some empty */
}

/* Check a result: element k of out against want(k). */
typedef double (*want_fn)(void *ctx, size_t k);

static void check_out(const tcomm_tensor_t *out, int nd, const size_t *s,
                      tcomm_dtype_t d, int op, want_fn want, void *ctx,
                      const char *what)
{
    if (tcomm_tensor_ndim(out) != nd) {
        FAIL("%s: ndim %d, want %d", what, tcomm_tensor_ndim(out), nd);
        return;
    }
    for (int i = 0; i < nd; i++)
        if (tcomm_tensor_dim(out, i) != s[i]) {
            FAIL("%s: dim %d is %zu, want %zu", what, i,
                 tcomm_tensor_dim(out, i), s[i]);
            return;
        }
    void *h = host_copy(out);
    size_t n = numel(nd, s);
    for (size_t k = 0; k < n; k++) {
        double got = ref_load(d, h, k), w = want(ctx, k);
        if (!ref_match(d, op, got, w)) {
            FAIL("%s: element %zu is %g, want %g", what, k, got, w);
            break;
        }
    }
    free(h);
}

typedef struct {
    tcomm_dtype_t d;
    int op, dim, root, nd;
    const size_t *in_shape;
    const size_t *sizes; /* all_gather: every rank's size along dim */
    size_t outer, inner, total;
} ref_ctx_t;

static double want_reduce(void *p, size_t k)
{
    ref_ctx_t *c = p;
    return ref_reduce(c->d, c->op, nranks, k);
}

static double want_bcast(void *p, size_t k)
{
    ref_ctx_t *c = p;
    return ref_value(c->d, -1, c->root, k);
}

static double want_gather(void *p, size_t k)
{
    ref_ctx_t *c = p;
    size_t in = k % c->inner, rest = k / c->inner;
    size_t j = rest % c->total, o = rest / c->total;
    int r = 0;
    while (j >= c->sizes[r])
        j -= c->sizes[r++];
    return ref_value(c->d, -1, r, (o * c->sizes[r] + j) * c->inner + in);
}

static double want_scatter(void *p, size_t k)
{
    ref_ctx_t *c = p;
    size_t chunk = c->total / (size_t)nranks;
    size_t in = k % c->inner, rest = k / c->inner;
    size_t j = rest % chunk, o = rest / chunk;
    size_t flat = (o * c->total + (size_t)rank * chunk + j) * c->inner + in;
    return ref_reduce(c->d, c->op, nranks, flat);
}

static void split(int nd, const size_t *s, int dim, size_t *outer,
                  size_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < dim && i < nd; i++)
        *outer *= s[i];
    for (int i = dim + 1; i < nd; i++)
        *inner *= s[i];
}


/* An invalid call: every rank must return the status it is owed (the
 * rank that erred its own error, the others TCOMM_ERR_MISMATCH, or the
 * same error everywhere), and *out must stay untouched. */
#define SENTINEL ((tcomm_tensor_t *)(uintptr_t)0x5a5a5a50)

static tcomm_graph_t *graph2;

static void invalid_call(void)
{
    int what = (int)below(13);
    int bad = (int)below((size_t)nranks); /* the rank that errs */
    int me_bad = rank == bad;
    tcomm_dtype_t d = (tcomm_dtype_t)below(9);
    size_t s[TCOMM_MAX_DIMS] = {2, 3, 4, 2}, os[TCOMM_MAX_DIMS];
    int nd = 1 + (int)below(3);
    s[0] = (size_t)nranks * (1 + below(3));
    tcomm_tensor_t *in = NULL, *into = NULL, *out = SENTINEL;
    tcomm_status_t st, want, want_bad;
    want = want_bad = TCOMM_ERR_MISMATCH;
    memcpy(os, s, sizeof os);
    switch (what) {
    case 0: { /* dim out of range, on every rank */
        int dim = below(2) ? nd + (int)below(3) : -1 - (int)below(3);
        in = make(d, -1, nd, s);
        st = below(2) ? tcomm_all_gather(comm, in, dim, &out)
                      : tcomm_reduce_scatter(comm, in, TCOMM_SUM, dim,
                                             &out);
        want = want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    }
    case 1: { /* root out of range, on every rank */
        int root = below(2) ? nranks + (int)below(3) : -1;
        in = make(d, -1, nd, s);
        st = tcomm_broadcast(comm, in, root, &out);
        want = want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    }
    case 2: /* op out of range */
        in = make(d, -1, nd, s);
        st = tcomm_all_reduce(comm, in,
                              (tcomm_op_t)(below(2) ? 5 + (int)below(99)
                                                    : -1),
                              &out);
        want = want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    case 3: /* AVG on an integer dtype */
        d = (tcomm_dtype_t)(below(2) ? TCOMM_I32 : TCOMM_U8);
        in = make(d, -1, nd, s);
        st = tcomm_all_reduce(comm, in, TCOMM_AVG, &out);
        want = want_bad = TCOMM_ERR_DTYPE;
        break;
    case 4: /* reduce_scatter of a size the world size does not divide */
        s[0] = (size_t)nranks * below(3) + 1;
        in = make(d, -1, nd, s);
        st = tcomm_reduce_scatter(comm, in, TCOMM_SUM, 0, &out);
        want = want_bad = nranks > 1 ? TCOMM_ERR_SHAPE : TCOMM_SUCCESS;
        break;
    case 5: /* one rank's shape differs */
        if (me_bad)
            s[nd - 1] += 1;
        in = make(d, TCOMM_SUM, nd, s);
        st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
        break;
    case 6: /* one rank's dtype differs */
        if (me_bad)
            d = (tcomm_dtype_t)((d + 1) % 9);
        in = make(d, TCOMM_SUM, nd, s);
        st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
        break;
    case 7: /* a NULL input on one rank */
        in = make(d, TCOMM_SUM, nd, s);
        st = tcomm_all_reduce(comm, me_bad ? NULL : in, TCOMM_SUM, &out);
        want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    case 8: /* a wrong _into output on one rank */
        in = make(d, TCOMM_SUM, nd, s);
        if (me_bad)
            os[0] += 1;
        into = make_empty(d, nd, os);
        st = tcomm_all_reduce_into(comm, in, TCOMM_SUM, into);
        want_bad = TCOMM_ERR_SHAPE;
        break;
    case 9: /* one rank calls another collective */
        in = make(d, -1, nd, s);
        st = me_bad ? tcomm_broadcast(comm, in, 0, &out)
                    : tcomm_all_reduce(comm, in, TCOMM_MAX, &out);
        break;
    case 10: { /* one rank names another root */
        int root = 0;
        if (me_bad && nranks > 1)
            root = 1;
        in = make(d, -1, nd, s);
        st = tcomm_broadcast(comm, in, root, &out);
        if (nranks == 1)
            want = want_bad = TCOMM_SUCCESS;
        break;
    }
    case 11: /* all_gather_into, one rank's out has the wrong size */
        in = make(d, -1, nd, s);
        os[0] = s[0] * (size_t)nranks + (me_bad ? 1 : 0);
        into = make_empty(d, nd, os);
        st = tcomm_all_gather_into(comm, in, 0, into);
        want_bad = TCOMM_ERR_SHAPE;
        if (nranks == 1)
            want = TCOMM_SUCCESS;
        break;
    default: { /* one rank's output on another graph */
        in = make(d, TCOMM_SUM, nd, s);
        tcomm_tensor_t *t = NULL;
        tcomm_tensor_empty(me_bad ? graph2 : graph, d, nd, s, &t);
        into = t;
        st = tcomm_all_reduce_into(comm, in, TCOMM_SUM, into);
        want_bad = TCOMM_ERR_GRAPH_MISMATCH;
        break;
    }
    }
    fatal_check(st);
    tcomm_status_t w = me_bad ? want_bad : want;
    if (nranks == 1 && w == TCOMM_ERR_MISMATCH)
        w = TCOMM_SUCCESS; /* nobody to disagree with */
    if (st != w) {
        FAIL("invalid call %d (bad rank %d): got %s, want %s: %s", what,
             bad, tcomm_status_string(st), tcomm_status_string(w),
             tcomm_last_error());
    } else if (st != TCOMM_SUCCESS) {
        n_expected_err++;
        if (out != SENTINEL)
            FAIL("invalid call %d: a failed call set *out", what);
        if (!*tcomm_last_error())
            FAIL("invalid call %d: no error text", what);
    } else {
        n_ok++;
    }
    if (out != SENTINEL)
        tcomm_tensor_release(out);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
}

/* One valid collective, checked against the reference. */
static void valid_call(void)
{
    int kind = (int)below(K_COUNT);
    tcomm_dtype_t d = (tcomm_dtype_t)below(9);
    int op = (int)below(5);
    if (op == TCOMM_AVG && !ref_is_float(d))
        op = TCOMM_SUM;
    int form = (int)below(kind == K_AR || kind == K_BC ? 3 : 2);
    int nd;
    size_t s[TCOMM_MAX_DIMS], sizes[64];
    rand_shape(d, &nd, s);
    ref_ctx_t c = {.d = d, .op = op, .nd = nd, .in_shape = s};
    tcomm_tensor_t *in = NULL, *out = NULL, *into = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    char what[64];
    snprintf(what, sizeof what, "kind %d form %d dtype %d op %d nd %d",
             kind, form, (int)d, op, nd);

    if (kind == K_BAR) {
        st = tcomm_barrier(comm);
        goto done;
    }
    if (kind == K_AG || kind == K_RS) {
        c.dim = nd ? (int)below((size_t)nd) : 0;
        if (kind == K_RS && nd == 0) {
            nd = c.nd = 1;
            s[0] = (size_t)nranks;
        }
        if (kind == K_RS)
            s[c.dim] = (s[c.dim] / (size_t)nranks) * (size_t)nranks;
        split(nd, s, c.dim, &c.outer, &c.inner);
        c.total = nd ? s[c.dim] : 1;
    }
    if (kind == K_AG) { /* uneven: each rank its own size along dim */
        size_t base = nd ? s[c.dim] : 1;
        c.total = 0;
        for (int r = 0; r < nranks; r++) {
            sizes[r] = nd ? (below(4) == 0 ? 0 : base + below(3)) : 1;
            if (base > 4096) /* keep multi-MiB gathers near their size */
                sizes[r] = base - below(3);
            c.total += sizes[r];
        }
        if (nd)
            s[c.dim] = sizes[rank];
        c.sizes = sizes;
    }
    if (kind == K_BC)
        c.root = (int)below((size_t)nranks);

    int in_op = kind == K_AR || kind == K_RS ? op : -1;
    in = make(d, in_op, nd, s);
    void *before = numel(nd, s) < 65536 ? host_copy(in) : NULL;

    /* the expected output shape */
    int ond = nd;
    size_t os[TCOMM_MAX_DIMS];
    memcpy(os, s, sizeof os);
    if (kind == K_AG) {
        ond = nd ? nd : 1;
        os[c.dim] = c.total;
    }
    if (kind == K_RS)
        os[c.dim] = s[c.dim] / (size_t)nranks;

    switch (form) {
    case F_ALLOC:
        switch (kind) {
        case K_AR: st = tcomm_all_reduce(comm, in, op, &out); break;
        case K_AG: st = tcomm_all_gather(comm, in, c.dim, &out); break;
        case K_RS:
            st = tcomm_reduce_scatter(comm, in, op, c.dim, &out);
            break;
        case K_BC: st = tcomm_broadcast(comm, in, c.root, &out); break;
        }
        break;
    case F_INTO:
        into = make_empty(d, ond, os);
        switch (kind) {
        case K_AR: st = tcomm_all_reduce_into(comm, in, op, into); break;
        case K_AG: st = tcomm_all_gather_into(comm, in, c.dim, into); break;
        case K_RS:
            st = tcomm_reduce_scatter_into(comm, in, op, c.dim, into);
            break;
        case K_BC: st = tcomm_broadcast_into(comm, in, c.root, into); break;
        }
        out = into ? tcomm_tensor_retain(into) : NULL;
        break;
    case F_INPLACE:
        if (kind == K_AR)
            st = tcomm_all_reduce_into(comm, in, op, in);
        else
            st = tcomm_broadcast_into(comm, in, c.root, in);
        out = tcomm_tensor_retain(in);
        break;
    }
    if (st == TCOMM_SUCCESS) {
        want_fn w = kind == K_AR   ? want_reduce
                    : kind == K_BC ? want_bcast
                    : kind == K_AG ? want_gather
                                   : want_scatter;
        check_out(out, ond, os, d, kind == K_AR || kind == K_RS ? op : -1,
                  w, &c, what);
        if (before && form != F_INPLACE) {
            void *now = host_copy(in);
            size_t b = numel(nd, s) * tcomm_dtype_size(d);
            if (memcmp(now, before, b))
                FAIL("%s: the input was modified", what);
            free(now);
        }
    }
    free(before);
    tcomm_tensor_release(out);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
done:
    fatal_check(st);
    if (st != TCOMM_SUCCESS) {
        n_unexpected++;
        FAIL("%s: %s: %s", what, tcomm_status_string(st),
             tcomm_last_error());
    } else {
        n_ok++;
    }
}

int main(int argc, char **argv)
{
    /* A fixed mmap threshold: glibc's dynamic one rises to 32 MiB after
     * the first multi-MiB free, and then keeps freed multi-MiB buffers in
     * the heap, so that resident memory would measure the allocator's
     * high-water mark rather than what is live. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long ops = argc > 1 ? atol(argv[1]) : 1500;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    n_bytes_max = argc > 3 ? atol(argv[3]) : 4L << 20;
    const char *rc_env = getenv("SOAK_RSS_CHECK");
    /* The limit applies to long runs (make soak): Open MPI's free lists
     * and tcomm's caches grow to the largest calls seen, which a short
     * run's warm-up does not cover (make check's 1,500 calls print it). */
    int rss_check = !SANITIZED && ops >= 10000 &&
                    !(rc_env && !strcmp(rc_env, "0"));
    rng_state = seed;
    const char *pidfile = getenv("SOAK_PIDFILE"); /* test/crash-check.sh */
    if (pidfile) {
        char name[4096];
        snprintf(name, sizeof name, "%s.%d", pidfile, rank);
        FILE *f = fopen(name, "w");
        if (f) {
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
    }
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
    long warm = ops / 10, rss0 = 0, shm0 = 0, shm1 = 0;
    double t0 = MPI_Wtime();
    for (opno = 0; opno < ops; opno++) {
        if (opno == warm)
            rss0 = rss_kib(&shm0);
        if (below(8) == 0)
            invalid_call();
        else
            valid_call();
        if (n_unexpected > 20)
            break; /* the communicator may be unusable */
    }
    long rss1 = rss_kib(&shm1);
    double secs = MPI_Wtime() - t0;

    long mine[4] = {n_ok, n_expected_err, n_mismatch, n_unexpected}, sum[4];
    long rss[4] = {rss0, rss1, shm0, shm1}, rmax[4];
    MPI_Reduce(mine, sum, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(rss, rmax, 4, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        double growth = rmax[0] ? 100.0 * (double)(rmax[1] - rmax[0]) /
                                      (double)rmax[0]
                                : 0;
        printf("soak: %d ranks, seed %llu, %ld collectives in %.1f s: "
               "%ld valid calls checked, %ld invalid calls rejected as "
               "expected, %ld mismatches, %ld unexpected errors "
               "(counts summed over ranks)\n",
               nranks, (unsigned long long)seed, opno, secs, sum[0] / nranks,
               sum[1] / nranks, sum[2], sum[3]);
        printf("soak: private resident memory (RssAnon, max over ranks) "
               "after warm-up %ld KiB, at the end %ld KiB: %+.2f%%%s; "
               "shared pages touched (RssShmem) %ld -> %ld KiB\n",
               rmax[0], rmax[1], growth,
               rss_check ? "" : " (not checked in this build)", rmax[2],
               rmax[3]);
        bad = sum[2] != 0 || sum[3] != 0 || opno != ops;
        if (rss_check && growth >= 5.0) {
            printf("soak: FAIL: resident memory grew by %.2f%% (limit 5%%)\n",
                   growth);
            bad = 1;
        }
        printf("soak: %s\n", bad ? "FAIL" : "PASS");
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    tcomm_graph_destroy(graph2);
    tcomm_graph_destroy(graph);
    tcomm_comm_destroy(comm);
    MPI_Finalize();
    return bad ? 1 : 0;
}
