/* SPDX-License-Identifier: BSD-3-Clause */
/* The message sizes of a run as the collective runs them. -m asks for
 * MIN doubling to MAX; a size that is not a whole number of elements is
 * skipped, and reduce_scatter, which gives every rank an equal chunk,
 * rounds a size down to a multiple of the ranks' element count (3 ranks,
 * f32: 16 -> 12 bytes) and skips one with fewer elements than ranks. The
 * output says so in comment lines rather than leaving the reader to
 * wonder why the sizes do not double, and a run with no size left is an
 * error, not a table of no rows. */
#include <stdio.h>

#include "tcomm_bench.h"

#define MAX_SIZES 64 /* 1 B doubling to the 1 GiB limit is 31 */

typedef struct {
    int n;
    size_t asked[MAX_SIZES], bytes[MAX_SIZES];
    bench_size_t code[MAX_SIZES];
} plan_t;

static void scan(bench_run_t *r, plan_t *p)
{
    p->n = 0;
    for (size_t b = r->opt->min_bytes; b <= r->opt->max_bytes &&
                                       p->n < MAX_SIZES; b *= 2) {
        r->bytes = b;
        p->code[p->n] = r->coll->setup(r, b);
        p->asked[p->n] = b;
        p->bytes[p->n] = r->bytes;
        p->n++;
    }
}

/* Why sizes of @p code were skipped or rounded, after "N bytes: ". */
static void why(const bench_run_t *r, bench_size_t code, FILE *f)
{
    const char *dt = bench_dtype_name(r->opt->dtype);
    switch (code) {
    case BENCH_SIZE_PARTIAL:
        fprintf(f, "skipped, not a whole number of %zu-byte %s elements",
                r->esize, dt);
        break;
    case BENCH_SIZE_FEW:
        fprintf(f, "skipped, fewer %s elements than the %d ranks (%s "
                "gives each rank an equal chunk)", dt, r->np, r->coll->name);
        break;
    case BENCH_SIZE_NO_ROWS:
        fprintf(f, "skipped, no [rows<=64, n/rows] shape whose dim %d "
                "splits into %d equal chunks", r->opt->dim, r->np);
        break;
    case BENCH_SIZE_ROUNDED:
        fprintf(f, "rounded down to a multiple of %d %s elements (%s gives "
                "each rank an equal chunk), so the sizes do not double",
                r->np, dt, r->coll->name);
        break;
    case BENCH_SIZE_OK:
        break;
    }
}

/* What to change so that a size is left, for the reason of the last. */
static void hint(const bench_run_t *r, bench_size_t code, FILE *f)
{
    const char *dt = bench_dtype_name(r->opt->dtype);
    size_t b = r->opt->min_bytes; /* the first size from MIN that runs */
    while (b % r->esize || b / r->esize < (size_t)r->np)
        b *= 2;
    if (code == BENCH_SIZE_PARTIAL)
        fprintf(f, "use a MIN that is a multiple of %zu bytes (one %s "
                "element)", r->esize, dt);
    else if (code == BENCH_SIZE_FEW)
        fprintf(f, "raise MAX to %zu bytes or more (from MIN %zu, doubling, "
                "the first size of at least %d %s elements)", b,
                r->opt->min_bytes, r->np, dt);
    else
        fprintf(f, "use --dim 1, or at most 64 ranks");
}

int bench_sizes_check(bench_run_t *r)
{
    plan_t p;
    if (!r->coll->sized)
        return 0;
    scan(r, &p);
    for (int i = 0; i < p.n; i++)
        if (p.code[i] >= BENCH_SIZE_ROUNDED)
            return 0;
    if (r->rank == 0) {
        const bench_opts_t *o = r->opt;
        bench_size_t last = p.code[p.n - 1]; /* MIN <= MAX: p.n >= 1 */
        fprintf(stderr, "%s: -m %zu:%zu: no message size left on %d "
                "rank%s: %zu bytes: ", o->prog, o->min_bytes, o->max_bytes,
                r->np, r->np == 1 ? "" : "s", p.asked[p.n - 1]);
        why(r, last, stderr);
        fprintf(stderr, "; ");
        hint(r, last, stderr);
        fprintf(stderr, " (see %s -h)\n", o->prog);
    }
    return BENCH_EXIT_USAGE;
}

void bench_sizes_print(bench_run_t *r)
{
    plan_t p;
    if (!r->coll->sized || r->rank != 0)
        return;
    scan(r, &p);
    for (int code = 0; code < BENCH_SIZE_OK; code++) {
        int k = 0;
        for (int i = 0; i < p.n; i++) {
            if ((int)p.code[i] != code)
                continue;
            printf("%s%zu", k++ ? ", " : "# ", p.asked[i]);
            if (code == BENCH_SIZE_ROUNDED)
                printf(" -> %zu", p.bytes[i]);
        }
        if (k) {
            printf(" bytes: ");
            why(r, (bench_size_t)code, stdout);
            printf("\n");
        }
    }
    fflush(stdout);
}

size_t bench_size_next(bench_run_t *r, size_t b)
{
    for (b = b ? b * 2 : r->opt->min_bytes;
         r->coll->sized && b && b <= r->opt->max_bytes; b *= 2) {
        r->bytes = b; /* setup may round it */
        if (r->coll->setup(r, b) >= BENCH_SIZE_ROUNDED)
            return b;
    }
    return 0;
}
