/* SPDX-License-Identifier: BSD-3-Clause */
/* For the suites that ask which path a call took, as a user would: with
 * TCOMM_DEBUG=TRACE, this rank's standard error goes to a file for the
 * whole case (trace_start in the fixture's setup, trace_stop in its
 * teardown, which passes every line but the TRACE ones on); a mark
 * before the calls and trace_count after them give how many of the
 * calls in between logged path=WORD (or, once per communicator, the INFO
 * line of a path or step). Replaces the counters the library
 * once kept for the tests on its hot paths. */
#ifndef TCOMM_TEST_TRACE_COUNT_H
#define TCOMM_TEST_TRACE_COUNT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "tcomm_config.h"

static FILE *trace_file;
static int trace_saved_fd = -1;
static char *trace_saved_level; /* the caller's TCOMM_DEBUG, or NULL */

/* TCOMM_DEBUG=TRACE (read again: before the case makes its
 * communicators) and standard error into a file. */
static inline void trace_start(void)
{
    const char *was = getenv("TCOMM_DEBUG");
    trace_saved_level = was ? strdup(was) : NULL;
    setenv("TCOMM_DEBUG", "TRACE", 1);
    tcomm_config_reload();
    fflush(stderr);
    trace_file = tmpfile();
    trace_saved_fd = dup(2);
    dup2(fileno(trace_file), 2);
}

/* Where the next line will land (fd 2 shares the file's offset). */
static inline long trace_mark(void)
{
    fflush(stderr);
    return (long)lseek(fileno(trace_file), 0, SEEK_CUR);
}

/* Lines since mark that contain both tag and key. */
static inline unsigned log_count(long mark, const char *tag, const char *key)
{
    char line[1024];
    long end = trace_mark();
    unsigned n = 0;
    /* read [mark, end) without moving the shared offset */
    size_t len = (size_t)(end - mark);
    char *buf = malloc(len + 1);
    if (!buf)
        return 0;
    ssize_t got = pread(fileno(trace_file), buf, len, (off_t)mark);
    buf[got > 0 ? got : 0] = '\0';
    for (char *p = buf, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
        nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(line, sizeof line, "%.*s", (int)l, p);
        n += strstr(line, tag) && strstr(line, key);
    }
    free(buf);
    return n;
}

/* Calls since mark whose TRACE line says path=word. */
static inline unsigned trace_count(long mark, const char *word)
{
    char key[128];
    snprintf(key, sizeof key, " path=%s ", word);
    return log_count(mark, " TRACE: ", key);
}

/* INFO lines since mark naming [path=word] (once per communicator). */
static inline unsigned info_count(long mark, const char *word)
{
    char key[128];
    snprintf(key, sizeof key, "[path=%s]", word);
    return log_count(mark, " INFO: ", key);
}

/* Standard error back, with every line that was not a TRACE line. */
static inline void trace_stop(void)
{
    char line[1024];
    fflush(stderr);
    dup2(trace_saved_fd, 2);
    close(trace_saved_fd);
    rewind(trace_file);
    while (fgets(line, sizeof line, trace_file))
        if (!strstr(line, " TRACE: "))
            fputs(line, stderr);
    fclose(trace_file);
    if (trace_saved_level)
        setenv("TCOMM_DEBUG", trace_saved_level, 1);
    else
        unsetenv("TCOMM_DEBUG");
    free(trace_saved_level);
    trace_saved_level = NULL;
    tcomm_config_reload();
}

#endif /* TCOMM_TEST_TRACE_COUNT_H */
