/* SPDX-License-Identifier: BSD-3-Clause */
/* The harness's options, one table for the parser (bench_options.c) and
 * for -h (bench_option_table.c), so that -h lists exactly the options a
 * program takes. */
#ifndef TCOMM_BENCH_OPTION_TABLE_H
#define TCOMM_BENCH_OPTION_TABLE_H

#include <getopt.h>

#include "tcomm_bench.h"

/* getopt_long's values of the options without a short name. */
enum {
    OPT_DIM = 256, OPT_BASELINE, OPT_JSON, OPT_ALLOC, OPT_MAX_TIME,
    OPT_BACKEND, OPT_THREADS, OPT_SPLIT_DIM, OPT_CONCAT_DIM, OPT_UNEVEN,
    OPT_COMPUTE, OPT_BLOCKING_REF, OPT_BASELINE_DTYPE, OPT_PRIVATE,
    OPT_VARY
};

/* Every option of every program, for getopt_long (so that an option
 * another program takes gets bench_option_refused's reason, not
 * "unknown"), ending in a zero entry. */
const struct option *bench_longopts(void);
/* getopt_long's short options, "-v"'s alias "-V" among them. */
const char *bench_shortopts(void);
/* NULL when the program of @p coll (nonblocking or not) takes the option
 * of getopt value @p val, else why not (*name: its long name). */
const char *bench_option_refused(int val, const bench_coll_t *coll,
                                 int nonblocking, const char **name);
/* -h: the options the program takes. */
void bench_usage(const bench_coll_t *coll, const bench_opts_t *opt);

#endif /* TCOMM_BENCH_OPTION_TABLE_H */
