/* SPDX-License-Identifier: BSD-3-Clause */
/* tcomm_info: the version, the build (configure's facts from config.h),
 * the backends built and usable, what each rank finds at run time (host,
 * CUDA-aware MPI, GPU) and the settings table with current values. Runs
 * with or without mpirun; rank 0 prints everything, the ranks' own
 * sections gathered to it in rank order and labelled, so that the output
 * never interleaves. */
#define _GNU_SOURCE /* open_memstream */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tcomm_backend_mpi.h"
#include "tcomm_config.h"
#include "tcomm_info.h"
#include "tcomm_internal.h"
#include "tcomm_mpi.h"
#include "tcomm_mpi_algo.h"

#ifdef TCOMM_HAVE_CUDA
#define HAVE_CUDA_TEXT "yes"
#else
#define HAVE_CUDA_TEXT "no"
#endif
#ifdef TCOMM_HAVE_FORTRAN
#define HAVE_FORTRAN_TEXT "yes"
#else
#define HAVE_FORTRAN_TEXT "no"
#endif

static const char usage_text[] =
    "usage: tcomm_info [-p|--parsable] [-a|--algorithms] [-V|-v|--version] "
    "[-h|--help]\n";

void info_section(info_out_t *o, const char *title)
{
    if (!o->parsable)
        fprintf(o->f, "\n%s:\n", title);
}

void info_kv(info_out_t *o, const char *key, const char *label,
             const char *fmt, ...)
{
    char value[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    for (char *p = value; *p; p++) /* one fact, one line */
        if (*p == '\n')
            *p = ' ';
    if (o->parsable) {
        if (key)
            fprintf(o->f, "%s:%s\n", key, value);
    } else if (label) {
        char l[64];
        snprintf(l, sizeof l, "%s:", label);
        fprintf(o->f, "  %-20s %s\n", l, value);
    }
}

/* An empty fact reads "(none)" for people, stays empty for scripts. */
static const char *or_none(const info_out_t *o, const char *s)
{
    return *s || o->parsable ? s : "(none)";
}

static void print_build(info_out_t *o)
{
    int major, minor, patch;
    tcomm_get_version(&major, &minor, &patch);
    if (o->parsable)
        info_kv(o, "version", NULL, "%d.%d.%d", major, minor, patch);
    else
        fprintf(o->f, "tcomm %d.%d.%d\n", major, minor, patch);
    info_section(o, "build");
    const char *args = TCOMM_BUILD_CONFIGURE_ARGS;
    args += strspn(args, " ");
    info_kv(o, "build.prefix", "prefix", "%s", TCOMM_BUILD_PREFIX);
    info_kv(o, "build.configure_args", "configure flags", "%s",
            or_none(o, args));
    info_kv(o, "build.cc", "C compiler", "%s", TCOMM_BUILD_CC);
    info_kv(o, "build.cc_version", "C compiler version", "%s",
            TCOMM_BUILD_CC_VERSION);
    info_kv(o, "build.cflags", "CFLAGS", "%s", TCOMM_BUILD_CFLAGS);
    info_kv(o, "build.cxx", "C++ compiler", "%s", or_none(o, TCOMM_BUILD_CXX));
    info_kv(o, "build.fc", "Fortran compiler", "%s",
            or_none(o, TCOMM_BUILD_FC));
    info_kv(o, "build.nvcc", "CUDA compiler", "%s",
            or_none(o, TCOMM_BUILD_NVCC));
    info_kv(o, "build.mpi_impl", "MPI of the compiler", "%s",
            TCOMM_BUILD_MPI_IMPL);
    info_kv(o, "build.cuda", "CUDA transport", "%s", HAVE_CUDA_TEXT);
    info_kv(o, "build.fortran", "Fortran bindings", "%s", HAVE_FORTRAN_TEXT);
    info_kv(o, "build.mpi_standard", "MPI standard", "%d.%d", MPI_VERSION,
            MPI_SUBVERSION);
    info_kv(o, "build.large_count", "large-count calls", "%s",
            MPI_VERSION >= 4 ? "MPI-4 _c calls"
                             : "no (counts above INT_MAX are split)");
}

static void print_runtime(info_out_t *o, int ranks)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = '\0';
    info_section(o, "run time");
    info_kv(o, "runtime.mpi_library", "MPI library", "%s", lib);
    info_kv(o, "runtime.ranks", "ranks", "%d", ranks);
    char why[1024];
    if (tcomm_mpi_launcher_mismatch(why, sizeof why))
        info_kv(o, "runtime.launcher", "launcher", "WRONG: %s", why);
    else
        info_kv(o, "runtime.launcher", "launcher", "%s",
                "matches MPI's world size");
}

/* This rank's own facts, as text in o's form, labelled with rank and
 * host. comm: the world communicator, or NULL (why in mpi_why). */
static void print_rank(info_out_t *o, int rank, int size, tcomm_comm_t *comm,
                       const char *mpi_why)
{
    char host[256] = "unknown", key[64];
    gethostname(host, sizeof host - 1);
    if (!o->parsable)
        fprintf(o->f, "\nrank %d of %d on %s:\n", rank, size, host);
#define RANK_KV(k, label, ...)                                              \
    (snprintf(key, sizeof key, "rank.%d.%s", rank, k),                     \
     info_kv(o, key, label, __VA_ARGS__))
    RANK_KV("host", NULL, "%s", host);
    tcomm_comm_info_t info;
    if (comm && tcomm_comm_info(comm, &info) == TCOMM_SUCCESS)
        RANK_KV("cuda_aware_mpi", "CUDA-aware MPI", "%s",
                info.cuda_aware ? "yes (device buffers go to MPI directly)"
                                : "no (device buffers are staged)");
    else
        RANK_KV("cuda_aware_mpi", "CUDA-aware MPI", "unknown (%s)",
                mpi_why);
    tcomm_graph_t *g;
    tcomm_device_t gpu0 = {TCOMM_DEVICE_CUDA, 0};
    if (tcomm_graph_create(gpu0, &g) == TCOMM_SUCCESS) {
        RANK_KV("gpu0", "GPU 0", "usable");
        tcomm_graph_destroy(g);
    } else {
        RANK_KV("gpu0", "GPU 0", "none (%s)", tcomm_last_error());
    }
#undef RANK_KV
}

/* Every rank's section, in rank order, on rank 0's stream. */
static void gather_ranks(info_out_t *o, int rank, int size,
                         tcomm_comm_t *comm, const char *mpi_why)
{
    char *text = NULL;
    size_t len = 0;
    info_out_t mine = {open_memstream(&text, &len), o->parsable};
    if (mine.f) {
        print_rank(&mine, rank, size, comm, mpi_why);
        fclose(mine.f);
    }
    int n = text ? (int)len : 0, *counts = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof *counts);
        displs = calloc((size_t)size, sizeof *displs);
    }
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long total = 0;
    if (rank == 0 && counts && displs) {
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += counts[r];
        }
        all = malloc((size_t)total + 1);
    }
    MPI_Gatherv(text, n, MPI_CHAR, all, counts, displs, MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (rank == 0 && all)
        fwrite(all, 1, (size_t)total, o->f);
    free(all), free(counts), free(displs), free(text);
}

static void print_settings(info_out_t *o)
{
    size_t n;
    const tcomm_setting_t *t = tcomm_settings_table(&n);
    info_section(o, "settings (environment)");
    for (size_t i = 0; i < n; i++) {
        char value[64], key[96];
        tcomm_setting_value_text(i, value, sizeof value);
        if (!o->parsable) {
            fprintf(o->f, "  %-20s = %-8s (default %s)\n      %s\n",
                    t[i].name, value, t[i].default_text, t[i].description);
            continue;
        }
        snprintf(key, sizeof key, "setting.%s.value", t[i].name);
        info_kv(o, key, NULL, "%s", value);
        snprintf(key, sizeof key, "setting.%s.default", t[i].name);
        info_kv(o, key, NULL, "%s", t[i].default_text);
        snprintf(key, sizeof key, "setting.%s.description", t[i].name);
        info_kv(o, key, NULL, "%s", t[i].description);
    }
}

static void print_size(char *buf, size_t len, size_t bytes)
{
    static const char unit[] = "kmg";
    int u = -1;
    while (bytes && bytes % 1024 == 0 && u < 2)
        bytes /= 1024, u++;
    snprintf(buf, len, "%zu%.*s", bytes, u >= 0, u >= 0 ? &unit[u] : "");
}

static void print_range(char *buf, size_t len, size_t from, size_t to)
{
    char a[32], b[32] = "";
    print_size(a, sizeof a, from);
    if (to != TCOMM_MPI_ANY_SIZE)
        print_size(b, sizeof b, to);
    snprintf(buf, len, "%s-%s", a, b);
}

/* Every table of algorithms, in the order they are tried, and the rules
 * TCOMM_TUNE puts before them (its names are the first column). */
static int print_algorithms(void)
{
    tcomm_mpi_tune_t tune;
    char why[600], range[80];
    const char *text = tcomm_config()->tune;
    if (tcomm_mpi_tune_parse(text, &tune, why, sizeof why) != 0) {
        fprintf(stderr, "tcomm_info: TCOMM_TUNE=\"%s\": %s\n", text, why);
        return 1;
    }
    printf("The mpi backend's algorithms on host tensors, per collective "
           "in the order tried:\nthe first whose range holds the call and "
           "that applies to it runs.\n");
    const tcomm_mpi_coll_table_t *t;
    for (int i = 0; (t = tcomm_mpi_coll_table_at(i)); i++) {
        printf("\n%s (ranges of %s):\n", t->name, t->measure);
        for (int r = 0; r < t->count; r++) {
            const tcomm_mpi_algo_t *a = &t->algos[r];
            print_range(range, sizeof range, a->from, a->to);
            printf("  %-28s %-8s %s\n", tcomm_path_word(a->path), range,
                   a->what);
        }
        for (int k = 0; k < tune.count; k++)
            if (tune.rule[k].table == t) {
                print_range(range, sizeof range, tune.rule[k].from,
                            tune.rule[k].to);
                printf("  TCOMM_TUNE: %s first at %s\n",
                       tcomm_path_word(t->algos[tune.rule[k].algo].path),
                       range);
            }
    }
    printf("\n(barrier: the unchecked one's; a checked barrier is the "
           "agreement's round.)\n");
    return 0;
}

/* Options before MPI starts: help and errors need no MPI. Returns -1 to
 * go on, else the exit status. */
static int parse_args(int argc, char **argv, int *parsable)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("%s"
                   "Prints tcomm's version, build facts, backends, run-time "
                   "support and settings.\n"
                   "  -p, --parsable     one key:value line per fact (stable "
                   "keys, for scripts)\n"
                   "  -a, --algorithms   list every collective's algorithms, "
                   "their ranges and TCOMM_TUNE's rules, and exit\n"
                   "  -V, -v, --version  print the version and exit\n"
                   "  -h, --help         print this help and exit\n"
                   "Under mpirun, rank 0 prints each rank's section, "
                   "labelled with its rank and host.\n",
                   usage_text);
            return 0;
        }
        /* -v as well: the harness's spelling (osu_tcomm_* -v) */
        if (!strcmp(a, "-V") || !strcmp(a, "-v") ||
            !strcmp(a, "--version")) {
            int major, minor, patch;
            tcomm_get_version(&major, &minor, &patch);
            printf("tcomm %d.%d.%d\n", major, minor, patch);
            return 0;
        }
        if (!strcmp(a, "-a") || !strcmp(a, "--algorithms"))
            return print_algorithms();
        if (!strcmp(a, "-p") || !strcmp(a, "--parsable")) {
            *parsable = 1;
            continue;
        }
        fprintf(stderr, "tcomm_info: unknown %s '%s' (see tcomm_info -h)\n%s",
                a[0] == '-' ? "option" : "argument", a, usage_text);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    info_out_t o = {stdout, 0};
    int rc = parse_args(argc, argv, &o.parsable);
    if (rc >= 0)
        return rc;
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tcomm_comm_t *comm = NULL; /* collective: every rank creates it */
    tcomm_status_t st = tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm);
    char why[1024] = "";
    if (st != TCOMM_SUCCESS) {
        snprintf(why, sizeof why, "%s", tcomm_last_error());
        comm = NULL;
    }
    if (rank == 0) {
        print_build(&o);
        info_backends(&o, st, why);
        print_runtime(&o, size);
    }
    gather_ranks(&o, rank, size, comm, why);
    if (rank == 0)
        print_settings(&o);
    if (comm)
        tcomm_comm_destroy(comm);
    MPI_Finalize();
    return 0;
}
