/* SPDX-License-Identifier: BSD-3-Clause */
/* Error hops at 1-4 ranks: a failed status that TCOMM_TRY or
 * TCOMM_CHECK_GOTO propagates logs "tcomm INFO: hop FILE:LINE FUNC ->
 * STATUS" at TCOMM_DEBUG=INFO, one line per hop, and nothing at the
 * default level. Each line must name a real line of the sources that
 * holds one of the idioms, in the function it names. The failures: a dim
 * out of range (found two calls below the front end's entry, every rank)
 * and, on pairs of ranks, an MPI failure inside a broadcast (a truncated
 * message, found in the mpi backend). Each rank checks its own lines. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "log_capture.h"

#define HOP " INFO: hop "

static tcomm_graph_t *host;

/* The source tree's root: automake's test harness exports srcdir (a
 * build outside the tree runs here, in its build directory); else this
 * file's path less "test/mpi_error_hops.c". */
static void source_root(char *buf, size_t len)
{
    const char *srcdir = getenv("srcdir");
    if (srcdir && *srcdir) {
        snprintf(buf, len, "%s/", srcdir);
        return;
    }
    const char *me = __FILE__, *tail = strstr(me, "test/mpi_error_hops.c");
    snprintf(buf, len, "%.*s", tail ? (int)(tail - me) : 0, me);
}

/* Line `line` of file (under the root) holds a propagating idiom and
 * func is defined above it in that file. */
static int idiom_at(const char *file, long line, const char *func)
{
    char root[512], path[1024], buf[512];
    source_root(root, sizeof root);
    snprintf(path, sizeof path, "%s%s", root, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int seen_func = 0, ok = 0;
    for (long n = 1; fgets(buf, sizeof buf, f) && n <= line; n++) {
        if (strstr(buf, func) && strchr(buf, '('))
            seen_func = 1;
        if (n == line)
            ok = seen_func && (strstr(buf, "TCOMM_TRY(") ||
                               strstr(buf, "TCOMM_CHECK_GOTO(") ||
                               strstr(buf, "TCOMM_MPI_CHECK"));
    }
    fclose(f);
    return ok;
}

/* lines[] holds only hop lines: at least min of them, each well formed,
 * each ending in status, each naming a real idiom; one names want_file. */
static void expect_hops(const char *what, int min, const char *status,
                        const char *want_file)
{
    int named = 0;
    if (nlines < min)
        fail("%s: %d hop lines, want at least %d", what, nlines, min);
    for (int i = 0; i < nlines; i++) {
        char file[256], func[128], st[64];
        long line = 0;
        const char *p = strstr(lines[i], HOP);
        if (strncmp(lines[i], "tcomm INFO: hop ", 16) || !p ||
            sscanf(p + strlen(HOP), "%255[^:]:%ld %127s -> %63s", file,
                   &line, func, st) != 4 || line <= 0) {
            fail("%s: not a hop line: '%s'", what, lines[i]);
            continue;
        }
        if (strcmp(st, status))
            fail("%s: hop status %s, want %s: '%s'", what, st, status,
                 lines[i]);
        if (!idiom_at(file, line, func))
            fail("%s: %s:%ld is no TCOMM_TRY/TCOMM_CHECK_GOTO in %s: '%s'",
                 what, file, line, func, lines[i]);
        named += strcmp(file, want_file) == 0;
    }
    if (!named)
        fail("%s: no hop names %s", what, want_file);
}

static tcomm_tensor_t *vector(size_t n)
{
    static double data[64];
    tcomm_tensor_t *t = NULL;
    OK(tcomm_tensor_from_host(host, TCOMM_F64, data, 1, &n, &t));
    return t;
}

/* A dim out of range: found in the front end's validation, below it. */
static void bad_dim(const char *level, int want_hops)
{
    tcomm_comm_t *c = NULL;
    OK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c));
    tcomm_tensor_t *in = vector(8), *out = NULL;
    capture();
    tcomm_status_t st = tcomm_all_gather(c, in, 3, &out);
    release_lines(HOP, NULL);
    if (st != TCOMM_ERR_INVALID_ARG)
        fail("bad dim (%s): status %d, want TCOMM_ERR_INVALID_ARG", level,
             st);
    if (want_hops)
        expect_hops("bad dim", 2, "TCOMM_ERR_INVALID_ARG",
                    "src/frontend/validate.c");
    else if (nlines)
        fail("bad dim at %s: %d hop lines, want none: '%s'", level, nlines,
             lines[0]);
    tcomm_tensor_release(in);
    OK(tcomm_comm_destroy(c));
}

/* MPI_ERR_TRUNCATE inside MPI_Bcast: the root sends 64 doubles, the
 * other expects 8; unchecked, so that the shapes reach MPI. On pairs of
 * ranks ({0,1}, {2,3}), where the receiver's parent is the root: in a
 * larger tree a rank below a failed one would wait for ever. */
static void mpi_failure(const char *level, int want_hops)
{
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    int me, n;
    MPI_Comm_rank(pair, &me);
    MPI_Comm_size(pair, &n);
    if (n < 2) { /* the odd rank out at 3 ranks */
        MPI_Comm_free(&pair);
        return;
    }
    tcomm_comm_t *c = NULL;
    OK(tcomm_comm_create_mpi(pair, &c));
    OK(tcomm_comm_set_attr(c, TCOMM_ATTR_CHECK, 0));
    tcomm_tensor_t *in = vector(me == 0 ? 64 : 8), *out = NULL;
    capture();
    tcomm_status_t st = tcomm_broadcast(c, in, 0, &out);
    release_lines(HOP, NULL);
    if (me == 1 && st != TCOMM_ERR_MPI) /* it receives from the root */
        fail("MPI failure (%s): receiver's status %d, want TCOMM_ERR_MPI",
             level, st);
    if (st == TCOMM_SUCCESS)
        tcomm_tensor_release(out);
    else if (want_hops)
        expect_hops("MPI failure", 1, "TCOMM_ERR_MPI", "src/mpi/broadcast.c");
    if (!want_hops && nlines)
        fail("MPI failure at %s: %d hop lines, want none: '%s'", level,
             nlines, lines[0]);
    tcomm_tensor_release(in);
    tcomm_comm_destroy(c); /* failed on some ranks: its status varies */
    MPI_Comm_free(&pair);
}

static void at_level(const char *level)
{
    if (level)
        setenv("TCOMM_DEBUG", level, 1);
    else
        unsetenv("TCOMM_DEBUG");
    tcomm_config_reload();
    int hops = level && (!strcmp(level, "INFO") || !strcmp(level, "TRACE"));
    const char *name = level ? level : "unset";
    bad_dim(name, hops);
    if (nranks > 1)
        mpi_failure(name, hops);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tcomm_device_t dev = {TCOMM_DEVICE_HOST, 0};
    OK(tcomm_graph_create(dev, &host));
    at_level("INFO");
    at_level("TRACE");
    at_level(NULL);
    at_level("WARN");
    OK(tcomm_graph_destroy(host));
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_error_hops at %d ranks: %s (%d failures)\n", nranks,
               all ? "FAIL" : "pass", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
