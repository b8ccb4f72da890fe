/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the harness's option parser (bench/bench_options.c),
 * the command line of the osu_tcomm_* programs. The input is the
 * argument list, NUL-separated; its first byte picks the program (the
 * collective). A bad option makes the parser print one line and exit
 * with status 2, and -h/-v exit with 0: exit is wrapped (-Wl,--wrap=exit)
 * so that it returns here while the parser runs. Whatever the arguments,
 * the parser must exit 0 or 2 or return options within their limits. */
#include <getopt.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_bench.h"

#define MAX_ARGS 32

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

static jmp_buf back;
static int parsing, exit_status;

void __wrap_exit(int status)
{
    if (!parsing)
        __real_exit(status);
    exit_status = status;
    longjmp(back, 1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* the parser prints only on the launcher's rank 0 */
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("PMIX_RANK");
    unsetenv("PMI_RANK");
    unsetenv("SLURM_PROCID");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const bench_coll_t *coll = bench_coll_at(data[0] % BENCH_KIND_COUNT);
    if (!coll)
        return 0;
    /* each argument in its own exact-size allocation */
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = strdup("osu_tcomm_fuzz");
    size_t i = 1;
    while (i < size && argc <= MAX_ARGS) {
        size_t j = i;
        while (j < size && data[j])
            j++;
        char *a = malloc(j - i + 1);
        memcpy(a, data + i, j - i);
        a[j - i] = '\0';
        argv[argc++] = a;
        i = j + 1;
    }
    argv[argc] = NULL;
    char *copy[MAX_ARGS + 2]; /* getopt permutes argv */
    memcpy(copy, argv, sizeof copy);

    static bench_opts_t opt;
    optind = 0; /* a full re-initialization of getopt */
    exit_status = -1;
    parsing = 1;
    if (!setjmp(back)) {
        bench_parse(argc, copy, coll, &opt);
        parsing = 0;
        if (opt.min_bytes == 0 ||
            (coll->sized && opt.min_bytes > opt.max_bytes) ||
            opt.max_bytes > ((size_t)1 << 30) || opt.iters < 1 ||
            opt.warmup < 0 || (opt.dim != 0 && opt.dim != 1) ||
            (opt.max_time != 0 && !(opt.max_time > 0)) ||
            opt.threads < 1 || opt.threads > BENCH_MAX_THREADS ||
            (opt.backend != BENCH_BACKEND_MPI &&
             opt.backend != BENCH_BACKEND_GLOO &&
             opt.backend != BENCH_BACKEND_LOCAL) ||
            /* the combinations the parser must refuse */
            (opt.backend == BENCH_BACKEND_LOCAL && opt.baseline) ||
            (opt.backend == BENCH_BACKEND_GLOO && opt.cuda) ||
            strcmp(bench_backend_name(opt.backend), "?") == 0)
            __builtin_trap();
    } else if (exit_status != 0 && exit_status != BENCH_EXIT_USAGE) {
        __builtin_trap();
    }
    parsing = 0;
    fflush(stdout);
    for (int k = 0; k < argc; k++)
        free(argv[k]);
    return 0;
}
