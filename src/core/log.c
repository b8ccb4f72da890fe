/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging: one line per message on stderr, carrying the rank. */
#include <stdarg.h>
#include <stdio.h>

#include "tcomm_config.h"
#include "tcomm_log.h"

int tcomm_log_tracing;

tcomm_log_level_t tcomm_log_level(void)
{
    return (tcomm_log_level_t)tcomm_config()->debug;
}

void tcomm_log_print(tcomm_log_level_t level, int rank, const char *fmt, ...)
{
    static const char *const names[] = {"NONE", "WARN", "INFO", "TRACE"};
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (rank >= 0)
        fprintf(stderr, "tcomm[rank %d] %s: %s\n", rank, names[level], line);
    else
        fprintf(stderr, "tcomm %s: %s\n", names[level], line);
}

static _Thread_local const char *path_now;

void tcomm_trace_path(const char *path)
{
    path_now = path;
}

const char *tcomm_trace_path_take(void)
{
    const char *p = path_now;
    path_now = NULL;
    return p;
}
