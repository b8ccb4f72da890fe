/* SPDX-License-Identifier: BSD-3-Clause */
/* OSU's options plus --dim, --split-dim, --concat-dim, --uneven,
 * --baseline, --baseline-dtype, --json, --alloc, --max-time, --backend,
 * --threads.
 * Parsed before MPI_Init: a bad option or value prints one line on stderr
 * (from the rank that will be rank 0) and exits with status 2. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void usage(const bench_coll_t *coll, const bench_opts_t *opt)
{
    if (bench_launcher_rank() != 0)
        return;
    printf("Usage: mpirun -np N %s [options]\n"
           "   or: %s --backend local [--threads N] [options]\n"
           "tcomm %s latency against the raw MPI call (OSU-style).\n"
           "  -m, --message-size [MIN:]MAX  message sizes in bytes per "
           "rank (alltoall:\n"
           "                                per rank and peer),\n"
           "                                doubling (K, M, G suffixes; "
           "default\n"
           "                                one element to 1M)\n"
           "  -i, --iterations N   timed iterations (default 1000, 100 "
           "above 8 KiB)\n"
           "  -x, --warmup N       warm-up iterations (default 200, 10 "
           "above 8 KiB)\n"
           "  -f, --full           add min, max latency and iterations\n"
           "  -c, --validation     check every output element\n"
           "  -T, --type DTYPE     f32 f64 f16 bf16 i32 u32 i64 i8 u8 "
           "(default f32)\n"
           "  -d, --accelerator D  host or cuda (default host)\n"
           "      --dim D          allgather, reduce_scatter: along dim D "
           "of [rows, n/rows],\n"
           "                       rows the largest divisor of n up to 64 "
           "(reduce_scatter:\n"
           "                       one whose size along D divides by the "
           "ranks)\n"
           "      --split-dim D    alltoall: split along dim D (0 or 1; "
           "default 0) of the\n"
           "                       input, world_size chunks of [rows<=64, "
           "n/rows] stacked\n"
           "      --concat-dim D   alltoall: concatenate along dim D (0 or "
           "1; default 0)\n"
           "      --uneven         alltoall: tcomm_all_to_all_v, sizes "
           "along the split dim\n"
           "                       that differ by peer (baseline "
           "MPI_Alltoallv)\n"
           "      --baseline       time the fastest MPI formulation too, "
           "interleaved, and\n"
           "                       the bound of a single-copy algorithm\n"
           "      --baseline-dtype D  allreduce, reduce_scatter: the "
           "baseline reduces the\n"
           "                       same bytes as D (default the dtype; "
           "f32 for f16, bf16)\n"
           "      --json FILE      write the results as JSON\n"
           "      --alloc          time the allocating forms, not _into\n"
           "      --private        host tensors over the harness's own "
           "page-aligned\n"
           "                       buffers (tcomm_tensor_wrap), not "
           "tcomm's shared arena\n"
           "      --max-time S     cap each size's timed loop at about S "
           "seconds\n"
           "%s"
           "      --backend B      mpi (default), gloo (over TCP, host "
           "only) or local\n"
           "                       (ranks as threads of one process, no "
           "--baseline)\n"
           "      --threads N      local: N ranks as threads (default 2, "
           "at most %d)\n"
           "  -h, --help           this text;  -v, --version\n",
           opt->prog, opt->prog, coll->title,
           opt->nonblocking
               ? "      --compute M      busy (default: OSU's compute loop) "
                 "or sleep (the core\n"
                 "                       free) between start and wait\n"
                 "      --blocking-ref   time the blocking call too "
                 "(Blocking column)\n"
               : "",
           BENCH_MAX_THREADS);
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

enum {
    OPT_DIM = 256, OPT_BASELINE, OPT_JSON, OPT_ALLOC, OPT_MAX_TIME,
    OPT_BACKEND, OPT_THREADS, OPT_SPLIT_DIM, OPT_CONCAT_DIM, OPT_UNEVEN,
    OPT_COMPUTE, OPT_BLOCKING_REF, OPT_BASELINE_DTYPE, OPT_PRIVATE
};

static const struct option longopts[] = {
    {"message-size", required_argument, NULL, 'm'},
    {"iterations", required_argument, NULL, 'i'},
    {"warmup", required_argument, NULL, 'x'},
    {"full", no_argument, NULL, 'f'},
    {"validation", no_argument, NULL, 'c'},
    {"type", required_argument, NULL, 'T'},
    {"accelerator", required_argument, NULL, 'd'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'v'},
    {"dim", required_argument, NULL, OPT_DIM},
    {"baseline", no_argument, NULL, OPT_BASELINE},
    {"json", required_argument, NULL, OPT_JSON},
    {"alloc", no_argument, NULL, OPT_ALLOC},
    {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"split-dim", required_argument, NULL, OPT_SPLIT_DIM},
    {"concat-dim", required_argument, NULL, OPT_CONCAT_DIM},
    {"uneven", no_argument, NULL, OPT_UNEVEN},
    {"compute", required_argument, NULL, OPT_COMPUTE},
    {"blocking-ref", no_argument, NULL, OPT_BLOCKING_REF},
    {"baseline-dtype", required_argument, NULL, OPT_BASELINE_DTYPE},
    {"private", no_argument, NULL, OPT_PRIVATE},
    {NULL, 0, NULL, 0},
};

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

static void parse_one(int c, char **argv, const bench_coll_t *coll,
                      bench_opts_t *opt)
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
    case OPT_DIM:
        if (coll->kind == BENCH_ALLTOALL)
            bench_die_usage(opt, "--dim: alltoall has two dims (use "
                            "--split-dim D --concat-dim D)");
        if (!coll->has_dim)
            bench_die_usage(opt, "--dim: %s has no dim (only allgather "
                            "and reduce_scatter)", coll->name);
        opt->dim = parse_dim(opt, "--dim", optarg);
        break;
    case OPT_SPLIT_DIM:
    case OPT_CONCAT_DIM:
    case OPT_UNEVEN: {
        const char *flag = c == OPT_SPLIT_DIM    ? "--split-dim"
                           : c == OPT_CONCAT_DIM ? "--concat-dim"
                                                 : "--uneven";
        if (coll->kind != BENCH_ALLTOALL)
            bench_die_usage(opt, "%s: only osu_tcomm_alltoall has it (%s "
                            "has %s)", flag, coll->name,
                            coll->has_dim ? "--dim" : "no dim");
        if (c == OPT_SPLIT_DIM)
            opt->split_dim = parse_dim(opt, flag, optarg);
        else if (c == OPT_CONCAT_DIM)
            opt->concat_dim = parse_dim(opt, flag, optarg);
        else
            opt->uneven = 1;
        break;
    }
    case OPT_BASELINE: opt->baseline = 1; break;
    case OPT_PRIVATE: opt->private_buffers = 1; break;
    case OPT_BASELINE_DTYPE:
        if (coll->kind != BENCH_ALLREDUCE &&
            coll->kind != BENCH_REDUCE_SCATTER)
            bench_die_usage(opt, "--baseline-dtype: only the reductions "
                            "have it (%s's baseline moves the same bytes)",
                            coll->name);
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
    case OPT_COMPUTE:
    case OPT_BLOCKING_REF:
        if (!opt->nonblocking)
            bench_die_usage(opt, "%s: only the nonblocking programs have it "
                            "(osu_tcomm_i%s)", c == OPT_COMPUTE ? "--compute"
                            : "--blocking-ref", coll->name);
        if (c == OPT_BLOCKING_REF)
            opt->blocking_ref = 1;
        else if (strcmp(optarg, "busy") && strcmp(optarg, "sleep"))
            bench_die_usage(opt, "--compute: unknown mode '%s' (use busy or "
                            "sleep)", optarg);
        else
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
    if (opt->backend == BENCH_BACKEND_GLOO && opt->cuda)
        bench_die_usage(opt, "-d cuda: the Gloo backend moves host tensors "
                        "only (use --backend mpi or local)");
}

/* The forms that have no nonblocking start. */
static void check_nonblocking(bench_opts_t *opt)
{
    if (!opt->nonblocking)
        return;
    if (opt->alloc)
        bench_die_usage(opt, "--alloc: the nonblocking starts write into a "
                        "caller-owned out (drop --alloc)");
    if (opt->uneven)
        bench_die_usage(opt, "--uneven: tcomm_all_to_all_v has no "
                        "nonblocking start (use osu_tcomm_alltoall)");
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
    while ((c = getopt_long(argc, argv, ":m:i:x:fcT:d:hv", longopts,
                            NULL)) != -1) {
        if (c == 'h' || c == 'v') {
            if (c == 'h')
                usage(coll, opt);
            else if (bench_launcher_rank() == 0)
                printf("%s (tcomm %d.%d.%d)\n", opt->prog,
                       TCOMM_VERSION_MAJOR, TCOMM_VERSION_MINOR,
                       TCOMM_VERSION_PATCH);
            exit(0);
        }
        parse_one(c, argv, coll, opt);
    }
    if (optind < argc)
        bench_die_usage(opt, "unexpected argument '%s'", argv[optind]);
    if (!opt->min_bytes)
        opt->min_bytes = bench_dtype_size(opt->dtype);
    if (opt->max_bytes < bench_dtype_size(opt->dtype) && coll->sized)
        bench_die_usage(opt, "-m: MAX %zu is smaller than one %s element",
                        opt->max_bytes, bench_dtype_name(opt->dtype));
    check_backend(opt);
    check_nonblocking(opt);
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
