/* SPDX-License-Identifier: BSD-3-Clause */
/* The harness's options (the table: bench_option_table.c), parsed before
 * MPI_Init: a bad option or value, or one this program does not take,
 * prints one line on stderr (from the rank that will be rank 0) and exits
 * with status 2. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_option_table.h"
#include "tcomm_bench.h"

#define MAX_MESSAGE ((size_t)1 << 30) /* 1 GiB per rank */
#define MAX_ITERS 100000000L

/* The launcher's rank of this process before MPI_Init (0 if none). */
int bench_launcher_rank(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                 "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

void bench_die_usage(const bench_opts_t *opt, const char *fmt, ...)
{
    if (bench_launcher_rank() == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ", opt->prog);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (see %s -h)\n", opt->prog);
        va_end(ap);
    }
    exit(BENCH_EXIT_USAGE);
}

/* A non-negative integer with an optional K, M or G suffix (binary). */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end || v > (1ULL << 40))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static long parse_count(const bench_opts_t *opt, const char *flag,
                        const char *s, long lo, long hi)
{
    size_t v;
    if (parse_size(s, &v) || (long)v < lo || (long)v > hi)
        bench_die_usage(opt, "%s: '%s' is not a count in %ld..%ld", flag, s,
                        lo, hi);
    return (long)v;
}

static void parse_sizes(bench_opts_t *opt, const char *s)
{
    const char *colon = strchr(s, ':');
    size_t lo = 0, hi;
    int bad;
    if (colon) {
        char buf[64];
        size_t n = (size_t)(colon - s);
        bad = n == 0 || n >= sizeof(buf);
        if (!bad) {
            memcpy(buf, s, n);
            buf[n] = '\0';
            bad = parse_size(buf, &lo) || lo == 0;
        }
        bad = bad || parse_size(colon + 1, &hi);
    } else {
        bad = parse_size(s, &hi);
    }
    if (bad || hi == 0)
        bench_die_usage(opt, "-m: '%s' is not [MIN:]MAX in bytes, "
                        "1 <= MIN <= MAX (e.g. 4:1M)", s);
    if (colon && lo > hi)
        bench_die_usage(opt, "-m: MIN %zu is larger than MAX %zu", lo, hi);
    if (hi > MAX_MESSAGE)
        bench_die_usage(opt, "-m: MAX %zu is above the limit of %zu bytes",
                        hi, MAX_MESSAGE);
    opt->min_bytes = lo;
    opt->max_bytes = hi;
}

static double parse_seconds(const bench_opts_t *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0.0) || v > 3600.0)
        bench_die_usage(opt, "--max-time: '%s' is not a number of seconds "
                        "in (0, 3600]", s);
    return v;
}

static const char *const backend_names[] = {"mpi", "gloo", "local"};

const char *bench_backend_name(bench_backend_t backend)
{
    return (unsigned)backend < 3 ? backend_names[backend] : "?";
}

static bench_backend_t parse_backend(const bench_opts_t *opt, const char *s)
{
    for (int b = 0; b < 3; b++)
        if (strcmp(s, backend_names[b]) == 0)
            return (bench_backend_t)b;
    bench_die_usage(opt, "--backend: unknown backend '%s' (use mpi, gloo "
                    "or local)", s);
}

/* The text of the option getopt just rejected. */
static const char *bad_option(char **argv, int c)
{
    static char buf[8];
    if (c && c != '?' && c != ':') {
        snprintf(buf, sizeof(buf), "-%c", c);
        return buf;
    }
    return argv[optind - 1];
}

static int parse_dim(const bench_opts_t *opt, const char *flag,
                     const char *s)
{
    if (strcmp(s, "0") && strcmp(s, "1"))
        bench_die_usage(opt, "%s: '%s' is not a dim of the 2-D tensor (use "
                        "0 or 1)", flag, s);
    return s[0] - '0';
}

static void parse_one(int c, char **argv, bench_opts_t *opt)
{
    switch (c) {
    case 'm': parse_sizes(opt, optarg); break;
    case 'i':
        opt->iters = opt->iters_large = (int)parse_count(opt, "-i", optarg,
                                                         1, MAX_ITERS);
        break;
    case 'x':
        opt->warmup = opt->warmup_large = (int)parse_count(opt, "-x", optarg,
                                                           0, MAX_ITERS);
        break;
    case 'f': opt->full = 1; break;
    case 'c': opt->validate = 1; break;
    case 'T':
        if (bench_dtype_parse(optarg, &opt->dtype))
            bench_die_usage(opt, "-T: unknown dtype '%s' (use f32, f64, "
                            "f16, bf16, i32, u32, i64, i8 or u8)", optarg);
        break;
    case 'd':
        if (strcmp(optarg, "host") && strcmp(optarg, "cuda"))
            bench_die_usage(opt, "-d: unknown device '%s' (use host or "
                            "cuda)", optarg);
        opt->cuda = strcmp(optarg, "cuda") == 0;
        break;
    case OPT_DIM: opt->dim = parse_dim(opt, "--dim", optarg); break;
    case OPT_SPLIT_DIM:
        opt->split_dim = parse_dim(opt, "--split-dim", optarg);
        break;
    case OPT_CONCAT_DIM:
        opt->concat_dim = parse_dim(opt, "--concat-dim", optarg);
        break;
    case OPT_UNEVEN: opt->uneven = 1; break;
    case OPT_BASELINE: opt->baseline = 1; break;
    case OPT_PRIVATE: opt->private_buffers = 1; break;
    case OPT_VARY: opt->vary = 1; break;
    case OPT_BASELINE_DTYPE:
        if (bench_dtype_parse(optarg, &opt->baseline_dtype))
            bench_die_usage(opt, "--baseline-dtype: unknown dtype '%s' "
                            "(use f32, f64, i32, u32, i64, i8 or u8)",
                            optarg);
        if (opt->baseline_dtype == TCOMM_F16 ||
            opt->baseline_dtype == TCOMM_BF16)
            bench_die_usage(opt, "--baseline-dtype: MPI has no %s sum "
                            "(use f32: the same bytes as MPI_FLOAT)", optarg);
        opt->baseline_dtype_set = 1;
        break;
    case OPT_JSON:
        if (!*optarg)
            bench_die_usage(opt, "--json: empty file name");
        opt->json = optarg;
        break;
    case OPT_ALLOC: opt->alloc = 1; break;
    case OPT_MAX_TIME: opt->max_time = parse_seconds(opt, optarg); break;
    case OPT_BACKEND: opt->backend = parse_backend(opt, optarg); break;
    case OPT_THREADS:
        opt->threads = (int)parse_count(opt, "--threads", optarg, 1,
                                        BENCH_MAX_THREADS);
        break;
    case OPT_BLOCKING_REF: opt->blocking_ref = 1; break;
    case OPT_COMPUTE:
        if (strcmp(optarg, "busy") && strcmp(optarg, "sleep"))
            bench_die_usage(opt, "--compute: unknown mode '%s' (use busy or "
                            "sleep)", optarg);
        opt->compute_sleep = strcmp(optarg, "sleep") == 0;
        break;
    case ':':
        bench_die_usage(opt, "option %s needs a value", bad_option(argv, 0));
    default:
        bench_die_usage(opt, "unknown option %s",
                        bad_option(argv, optopt));
    }
}

/* The combinations a backend cannot run; the one needing MPI's world
 * size (local on more than one rank) is checked after MPI_Init. */
static void check_backend(bench_opts_t *opt)
{
    int local = opt->backend == BENCH_BACKEND_LOCAL;
    if (opt->threads && !local)
        bench_die_usage(opt, "--threads: only with --backend local (%s "
                        "has one rank per MPI process)",
                        bench_backend_name(opt->backend));
    if (!opt->threads)
        opt->threads = 2;
    /* one process of threads has no MPI call to compare with */
    if (local && opt->baseline)
        bench_die_usage(opt, "--baseline: no raw MPI call to compare with "
                        "--backend local (run it with --backend mpi)");
    /* the device tensors are copies made once per size */
    if (opt->vary && opt->cuda)
        bench_die_usage(opt, "--vary: host tensors only (the input is "
                        "rewritten in place before each call; drop -d "
                        "cuda)");
    if (opt->backend == BENCH_BACKEND_GLOO && opt->cuda)
        bench_die_usage(opt, "-d cuda: the Gloo backend moves host tensors "
                        "only (use --backend mpi or local)");
}

static void parse(int argc, char **argv, const bench_coll_t *coll,
                  int nonblocking, bench_opts_t *opt)
{
    const char *slash = strrchr(argv[0], '/');
    memset(opt, 0, sizeof(*opt));
    opt->nonblocking = nonblocking;
    opt->prog = slash ? slash + 1 : argv[0];
    if (strncmp(opt->prog, "lt-", 3) == 0) /* libtool's uninstalled copy */
        opt->prog += 3;
    opt->iters = 1000;
    opt->iters_large = 100;
    opt->warmup = 200;
    opt->warmup_large = 10;
    opt->dtype = TCOMM_F32;
    opt->max_bytes = (size_t)1 << 20;

    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, bench_shortopts(), bench_longopts(),
                            NULL)) != -1) {
        const char *name, *why = bench_option_refused(c, coll,
                                                      nonblocking, &name);
        if (why)
            bench_die_usage(opt, "--%s: %s", name, why);
        if (c == 'h' || c == 'v' || c == 'V') {
            if (c == 'h')
                bench_usage(coll, opt);
            else if (bench_launcher_rank() == 0)
                printf("%s (tcomm %d.%d.%d)\n", opt->prog,
                       TCOMM_VERSION_MAJOR, TCOMM_VERSION_MINOR,
                       TCOMM_VERSION_PATCH);
            exit(0);
        }
        parse_one(c, argv, opt);
    }
    if (optind < argc)
        bench_die_usage(opt, "unexpected argument '%s'", argv[optind]);
    if (!opt->min_bytes)
        opt->min_bytes = bench_dtype_size(opt->dtype);
    if (opt->max_bytes < bench_dtype_size(opt->dtype) && coll->sized)
        bench_die_usage(opt, "-m: MAX %zu is smaller than one %s element",
                        opt->max_bytes, bench_dtype_name(opt->dtype));
    check_backend(opt);
}

void bench_parse(int argc, char **argv, const bench_coll_t *coll,
                 bench_opts_t *opt)
{
    parse(argc, argv, coll, 0, opt);
}

void bench_parse_nonblocking(int argc, char **argv, const bench_coll_t *coll,
                             bench_opts_t *opt)
{
    parse(argc, argv, coll, 1, opt);
}
