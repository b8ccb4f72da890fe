/* SPDX-License-Identifier: BSD-3-Clause */
/* For the MPI tests that read tcomm's log: this rank's standard error
 * captured into a file while the calls run, then the lines that carry a
 * marker; fail() and OK() count failures instead of stopping, so that
 * every rank reports all of its own. */
#ifndef TCOMM_TEST_LOG_CAPTURE_H
#define TCOMM_TEST_LOG_CAPTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tcomm.h"

static int rank, nranks, failures;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("rank %d: FAIL: ", rank);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

#define OK(call)                                                            \
    do {                                                                    \
        tcomm_status_t st_ = (call);                                        \
        if (st_ != TCOMM_SUCCESS)                                           \
            fail("%s: %s", #call, tcomm_last_error());                      \
    } while (0)

#define LOG_MAXLINES 512
static char lines[LOG_MAXLINES][512];
static int nlines;
static FILE *cap;
static int saved_fd = -1;

static void capture(void)
{
    fflush(stderr);
    cap = tmpfile();
    saved_fd = dup(2);
    dup2(fileno(cap), 2);
}

/* Standard error back; lines[] holds the captured lines that contain
 * mark or (non-NULL) mark2. */
static void release_lines(const char *mark, const char *mark2)
{
    char buf[1024];
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    rewind(cap);
    for (nlines = 0; fgets(buf, sizeof buf, cap) && nlines < LOG_MAXLINES;)
        if (strstr(buf, mark) || (mark2 && strstr(buf, mark2))) {
            buf[strcspn(buf, "\n")] = '\0';
            snprintf(lines[nlines++], sizeof lines[0], "%.511s", buf);
        }
    fclose(cap);
}

/* The path of the last captured TRACE line of coll (lines[] as
 * release_lines(" TRACE: ", ...) left them); "" if none. */
static inline const char *traced_path(const char *coll, char *buf,
                                      size_t len)
{
    char key[64];
    snprintf(key, sizeof key, " coll=%s ", coll);
    buf[0] = '\0';
    for (int i = 0; i < nlines; i++) {
        const char *p = strstr(lines[i], " path=");
        if (strstr(lines[i], key) && p)
            snprintf(buf, len, "%.*s", (int)strcspn(p + 6, " "), p + 6);
    }
    return buf;
}

#endif /* TCOMM_TEST_LOG_CAPTURE_H */
