/* SPDX-License-Identifier: BSD-3-Clause */
/* The harness's options: OSU's plus --dim, --split-dim, --concat-dim,
 * --uneven, --baseline, --baseline-dtype, --json, --alloc, --private,
 * --vary, --max-time, --backend, --threads, --compute, --blocking-ref;
 * which programs take each, and -h from the same rows. */
#include <stdio.h>
#include <string.h>

#include "bench_option_table.h"

/* Which programs take an option. */
typedef enum {
    FOR_ALL,
    FOR_DIM,        /* allgather, reduce_scatter (and their i forms) */
    FOR_ALLTOALL,   /* osu_tcomm_alltoall, osu_tcomm_ialltoall */
    FOR_UNEVEN,     /* osu_tcomm_alltoall: tcomm_all_to_all_v */
    FOR_REDUCTION,  /* allreduce, reduce_scatter (and their i forms) */
    FOR_BLOCKING,   /* not the nonblocking programs */
    FOR_NONBLOCKING /* osu_tcomm_i<collective> */
} bench_for_t;

static const char *const why_not[] = {
    [FOR_DIM] = "only allgather and reduce_scatter have a dim (alltoall: "
                "--split-dim, --concat-dim)",
    [FOR_ALLTOALL] = "only osu_tcomm_alltoall and osu_tcomm_ialltoall "
                     "have it",
    [FOR_UNEVEN] = "only osu_tcomm_alltoall has it (tcomm_all_to_all_v "
                   "has no nonblocking start)",
    [FOR_REDUCTION] = "only the reductions have it (the others' baseline "
                      "moves the same bytes)",
    [FOR_BLOCKING] = "the nonblocking starts write into a caller-owned out",
    [FOR_NONBLOCKING] = "only the nonblocking programs (osu_tcomm_i*) have "
                        "it",
};

typedef struct {
    const char *name; /* --name */
    int val;          /* getopt_long's value: the short name, or OPT_* */
    const char *arg;  /* the value's name in -h; NULL: no value */
    bench_for_t takes;
    const char *help; /* lines after the first: indented by -h */
} bench_option_t;

static const bench_option_t table[] = {
    {"message-size", 'm', "[MIN:]MAX", FOR_ALL,
     "message sizes in bytes per rank (alltoall: per rank\n"
     "and peer), doubling (K, M, G suffixes; default one\n"
     "element to 1M)"},
    {"iterations", 'i', "N", FOR_ALL,
     "timed iterations (default 1000, 100 above 8 KiB)"},
    {"warmup", 'x', "N", FOR_ALL,
     "warm-up iterations (default 200, 10 above 8 KiB)"},
    {"full", 'f', NULL, FOR_ALL, "add min, max latency and iterations"},
    {"validation", 'c', NULL, FOR_ALL, "check every output element"},
    {"type", 'T', "DTYPE", FOR_ALL,
     "f32 f64 f16 bf16 i32 u32 i64 i8 u8 (default f32)"},
    {"accelerator", 'd', "D", FOR_ALL, "host or cuda (default host)"},
    {"dim", OPT_DIM, "D", FOR_DIM,
     "along dim D of [rows, n/rows], rows the largest\n"
     "divisor of n up to 64 (reduce_scatter: one whose size\n"
     "along D divides by the ranks)"},
    {"split-dim", OPT_SPLIT_DIM, "D", FOR_ALLTOALL,
     "split along dim D (0 or 1; default 0) of the input,\n"
     "world_size chunks of [rows<=64, n/rows] stacked"},
    {"concat-dim", OPT_CONCAT_DIM, "D", FOR_ALLTOALL,
     "concatenate along dim D (0 or 1; default 0)"},
    {"uneven", OPT_UNEVEN, NULL, FOR_UNEVEN,
     "tcomm_all_to_all_v, sizes along the split dim that\n"
     "differ by peer (baseline MPI_Alltoallv)"},
    {"baseline", OPT_BASELINE, NULL, FOR_ALL,
     "time the fastest MPI formulation too, interleaved,\n"
     "and the bound of a single-copy algorithm"},
    {"baseline-dtype", OPT_BASELINE_DTYPE, "D", FOR_REDUCTION,
     "the baseline reduces the same bytes as D (default\n"
     "the dtype; f32 for f16, bf16)"},
    {"json", OPT_JSON, "FILE", FOR_ALL, "write the results as JSON"},
    {"alloc", OPT_ALLOC, NULL, FOR_BLOCKING,
     "time the allocating forms, not _into"},
    {"private", OPT_PRIVATE, NULL, FOR_ALL,
     "host tensors over the harness's own page-aligned\n"
     "buffers (tcomm_tensor_wrap), not tcomm's shared arena"},
    {"vary", OPT_VARY, NULL, FOR_ALL,
     "new input data before every call, MPI's too (outside\n"
     "the timed region); the output checked each size"},
    {"max-time", OPT_MAX_TIME, "S", FOR_ALL,
     "cap each size's timed loop at about S seconds"},
    {"compute", OPT_COMPUTE, "M", FOR_NONBLOCKING,
     "busy (default: OSU's compute loop) or sleep (the core\n"
     "free) between start and wait"},
    {"blocking-ref", OPT_BLOCKING_REF, NULL, FOR_NONBLOCKING,
     "time the blocking call too (Blocking column)"},
    {"backend", OPT_BACKEND, "B", FOR_ALL,
     "mpi (default), gloo (over TCP, host only) or local\n"
     "(ranks as threads of one process, no --baseline)"},
    {"threads", OPT_THREADS, "N", FOR_ALL,
     "local: N ranks as threads (default 2, at most 1024)"},
    {"help", 'h', NULL, FOR_ALL, "this text"},
    {"version", 'v', NULL, FOR_ALL, "print the version (also -V)"},
};
#define NOPTS (sizeof(table) / sizeof(table[0]))

const struct option *bench_longopts(void)
{
    static struct option longopts[NOPTS + 1];
    for (size_t k = 0; k < NOPTS && !longopts[NOPTS - 1].name; k++)
        longopts[k] = (struct option){
            table[k].name, table[k].arg ? required_argument : no_argument,
            NULL, table[k].val};
    return longopts;
}

const char *bench_shortopts(void)
{
    static char s[2 * NOPTS + 4];
    if (!s[0]) {
        size_t n = 0;
        s[n++] = ':'; /* a missing value is ':', not '?' */
        for (size_t k = 0; k < NOPTS; k++) {
            if (table[k].val >= 256)
                continue;
            s[n++] = (char)table[k].val;
            if (table[k].arg)
                s[n++] = ':';
        }
        s[n++] = 'V';
    }
    return s;
}

static int takes(bench_for_t f, const bench_coll_t *coll, int nonblocking)
{
    switch (f) {
    case FOR_ALL: return 1;
    case FOR_DIM: return coll->has_dim && coll->kind != BENCH_ALLTOALL;
    case FOR_ALLTOALL: return coll->kind == BENCH_ALLTOALL;
    case FOR_UNEVEN: return coll->kind == BENCH_ALLTOALL && !nonblocking;
    case FOR_REDUCTION:
        return coll->kind == BENCH_ALLREDUCE ||
               coll->kind == BENCH_REDUCE_SCATTER ||
               coll->kind == BENCH_REDUCE;
    case FOR_BLOCKING: return !nonblocking;
    case FOR_NONBLOCKING: return nonblocking;
    }
    return 0;
}

const char *bench_option_refused(int val, const bench_coll_t *coll,
                                 int nonblocking, const char **name)
{
    for (size_t k = 0; k < NOPTS; k++) {
        if (table[k].val != val)
            continue;
        *name = table[k].name;
        return takes(table[k].takes, coll, nonblocking)
                   ? NULL : why_not[table[k].takes];
    }
    return NULL;
}

#define HELP_COL 24 /* where each option's text starts */

void bench_usage(const bench_coll_t *coll, const bench_opts_t *opt)
{
    if (bench_launcher_rank() != 0)
        return;
    printf("Usage: mpirun -np N %s [options]\n"
           "   or: %s --backend local [--threads N] [options]\n"
           "tcomm %s%s latency against the raw MPI call (OSU-style).\n",
           opt->prog, opt->prog, opt->nonblocking ? "nonblocking " : "",
           coll->title);
    for (size_t k = 0; k < NOPTS; k++) {
        const bench_option_t *o = &table[k];
        if (!takes(o->takes, coll, opt->nonblocking))
            continue;
        char left[64];
        int n = o->val < 256
                    ? snprintf(left, sizeof left, "  -%c, --%s", o->val,
                               o->name)
                    : snprintf(left, sizeof left, "      --%s", o->name);
        if (o->arg)
            n += snprintf(left + n, sizeof left - (size_t)n, " %s", o->arg);
        printf("%s", left);
        if (n + 2 > HELP_COL) /* a long one: its text on the next line */
            printf("\n%*s", HELP_COL, "");
        else
            printf("%*s", HELP_COL - n, "");
        for (const char *p = o->help; *p; p++) {
            putchar(*p);
            if (*p == '\n')
                printf("%*s", HELP_COL, "");
        }
        putchar('\n');
    }
}
