/* SPDX-License-Identifier: BSD-3-Clause */
/* The settings table: one row per TCOMM_* variable, all read at once by
 * the first tcomm_graph_create or communicator of the process (a tensor
 * needs a graph, so nothing that reads a setting comes earlier). A value
 * that does not parse keeps the default and is reported as a warning. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tcomm_config.h"
#include "tcomm_log.h"

#define FIELD(f) offsetof(tcomm_config_t, f)

static const tcomm_setting_t settings[] = {
    {"TCOMM_DEBUG", "WARN",
     "log level: NONE, WARN, INFO (which path each collective takes, "
     "and where a failed status passed up), "
     "TRACE (also one line per call: comm, seq, collective, dtype, shape, "
     "bytes, path, time)",
     tcomm_parse_level, FIELD(debug)},
    {"TCOMM_CHECK", "1",
     "1: ranks agree on the collective, dtype, op, dim, root and shape "
     "before data moves; 0: skip the agreement",
     tcomm_parse_bool, FIELD(check)},
    {"TCOMM_DETERMINISTIC", "0",
     "1: reductions are the left fold in rank order, bitwise reproducible",
     tcomm_parse_bool, FIELD(deterministic)},
    {"TCOMM_TIMEOUT", "0",
     "seconds a collective may wait for the other ranks to arrive, then "
     "TCOMM_ERR_TIMEOUT naming the late ranks (the communicator is then "
     "unusable); 0 = no timeout (default: a correct program may keep its "
     "peers waiting longer, e.g. for I/O). Set it alike on every rank",
     tcomm_parse_seconds, FIELD(timeout_s)},
    {"TCOMM_CUDA_AWARE", "auto",
     "auto: probe MPI; 1: pass device buffers to MPI; 0: stage through "
     "pinned host memory",
     tcomm_parse_tristate, FIELD(cuda_aware)},
    {"TCOMM_STAGING_CHUNK", "1M",
     "bytes per chunk of the staged device path (suffix K, M or G; "
     "64 at least)",
     tcomm_parse_chunk, FIELD(staging_chunk)},
    {"TCOMM_SINGLE_COPY", "1",
     "1: host tensors of 4 KiB and more live in a shared arena that the "
     "node's other ranks map, and on one node the collectives copy "
     "between the ranks' tensors directly (memcpy through the mapped "
     "arenas, process_vm_readv/writev for wrapped buffers) when the "
     "kernel allows it, and checked calls below 4 KiB travel with the "
     "agreement's shared-memory round; 0 on any rank: MPI messages only "
     "(private host memory if set before the first tensor)",
     tcomm_parse_bool, FIELD(single_copy)},
    {"TCOMM_PROGRESS", "thread",
     "thread: a nonblocking collective runs on a progress thread of its "
     "communicator while the caller computes (needs MPI_THREAD_MULTIPLE "
     "for MPI-based backends, else as caller); caller: the start call "
     "completes it before returning (no overlap)",
     tcomm_parse_progress, FIELD(progress_thread)},
    {"TCOMM_HIER", "1",
     "1: on a communicator whose ranks span several nodes, all_reduce, "
     "reduce_scatter, all_gather and broadcast (where the node layout "
     "allows: doc/reference.md) run in two levels: within "
     "each node through tcomm's single copies, across nodes through MPI "
     "among one rank per node (or per node rank), so one buffer per node "
     "crosses the network; 0: one MPI call over all ranks. Set it alike "
     "on every rank",
     tcomm_parse_bool, FIELD(hier)},
    {"TCOMM_TUNE", "",
     "rules that put a named algorithm first for a range of sizes, as in "
     "all_reduce:0-4k:mpi_allreduce,4k-:node_all_reduce (tcomm_info "
     "--algorithms lists the names and the default choice); set it alike "
     "on every rank: communicators refuse to be created otherwise, or "
     "where a rule does not parse",
     tcomm_parse_text, FIELD(tune)},
};
#define NSETTINGS (sizeof settings / sizeof settings[0])

/* The settings in force: a snapshot that is never changed once
 * published, so that a reader's pointer stays consistent while
 * tcomm_config_reload publishes another (the older ones stay reachable
 * through the chain: a few per test run). */
typedef struct snapshot {
    tcomm_config_t cfg;
    struct snapshot *older;
} snapshot_t;

static snapshot_t first;
static snapshot_t *_Atomic current;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t reload_lock = PTHREAD_MUTEX_INITIALIZER;

static void read_environment(tcomm_config_t *out)
{
    tcomm_config_t cfg;
    char err[256];
    for (size_t i = 0; i < NSETTINGS; i++) {
        const tcomm_setting_t *s = &settings[i];
        void *field = (char *)&cfg + s->offset;
        if (s->parse(s->default_text, field, err, sizeof err) != 0)
            abort(); /* a default that does not parse is a tcomm bug */
    }
    for (size_t i = 0; i < NSETTINGS; i++) {
        const tcomm_setting_t *s = &settings[i];
        const char *text = getenv(s->name);
        if (!text)
            continue;
        void *field = (char *)&cfg + s->offset;
        if (s->parse(text, field, err, sizeof err) != 0)
            fprintf(stderr, "tcomm WARN: %s=%s ignored: %s (default %s)\n",
                    s->name, text, err, s->default_text);
    }
    *out = cfg;
}

static void publish(snapshot_t *snap)
{
    atomic_store_explicit(&current, snap, memory_order_release);
    __atomic_store_n(&tcomm_log_tracing, snap->cfg.debug >= TCOMM_LOG_TRACE,
                     __ATOMIC_RELAXED);
}

static void load(void)
{
    read_environment(&first.cfg);
    publish(&first);
}

const tcomm_config_t *tcomm_config(void)
{
    pthread_once(&once, load);
    return &atomic_load_explicit(&current, memory_order_acquire)->cfg;
}

void tcomm_config_reload(void)
{
    pthread_once(&once, load);
    snapshot_t *snap = malloc(sizeof *snap);
    if (!snap)
        return; /* the settings in force stay */
    read_environment(&snap->cfg);
    pthread_mutex_lock(&reload_lock);
    snap->older = atomic_load_explicit(&current, memory_order_relaxed);
    publish(snap);
    pthread_mutex_unlock(&reload_lock);
}

const tcomm_setting_t *tcomm_settings_table(size_t *count)
{
    *count = NSETTINGS;
    return settings;
}

void tcomm_setting_value_text(size_t i, char *buf, size_t len)
{
    static const char *const levels[] = {"NONE", "WARN", "INFO", "TRACE"};
    const tcomm_config_t *c = tcomm_config();
    const char *key = i < NSETTINGS ? settings[i].name : "";
    if (!strcmp(key, "TCOMM_DEBUG"))
        snprintf(buf, len, "%s", levels[c->debug]);
    else if (!strcmp(key, "TCOMM_CHECK"))
        snprintf(buf, len, "%d", c->check);
    else if (!strcmp(key, "TCOMM_DETERMINISTIC"))
        snprintf(buf, len, "%d", c->deterministic);
    else if (!strcmp(key, "TCOMM_TIMEOUT"))
        snprintf(buf, len, "%g", c->timeout_s);
    else if (!strcmp(key, "TCOMM_CUDA_AWARE"))
        snprintf(buf, len, "%s",
                 c->cuda_aware < 0 ? "auto" : c->cuda_aware ? "1" : "0");
    else if (!strcmp(key, "TCOMM_STAGING_CHUNK"))
        snprintf(buf, len, "%zu", c->staging_chunk);
    else if (!strcmp(key, "TCOMM_SINGLE_COPY"))
        snprintf(buf, len, "%d", c->single_copy);
    else if (!strcmp(key, "TCOMM_HIER"))
        snprintf(buf, len, "%d", c->hier);
    else if (!strcmp(key, "TCOMM_PROGRESS"))
        snprintf(buf, len, "%s", c->progress_thread ? "thread" : "caller");
    else if (!strcmp(key, "TCOMM_TUNE"))
        snprintf(buf, len, "%s", c->tune);
    else
        snprintf(buf, len, "?");
}

/* Parsers: whole-string matches only, so "10x" or "" are errors. */

int tcomm_parse_text(const char *text, void *field, char *err, size_t len)
{
    char *out = field;
    size_t cap = sizeof(((tcomm_config_t *)0)->tune);
    if (strlen(text) >= cap) {
        snprintf(err, len, "longer than %zu characters", cap - 1);
        return -1;
    }
    memcpy(out, text, strlen(text) + 1);
    return 0;
}

int tcomm_parse_bool(const char *text, void *field, char *err, size_t len)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(text, yes[i]))
            return *(int *)field = 1, 0;
        if (!strcasecmp(text, no[i]))
            return *(int *)field = 0, 0;
    }
    snprintf(err, len, "expected 0 or 1 (also yes/no, true/false, on/off, "
                       "in any case)");
    return -1;
}

int tcomm_parse_level(const char *text, void *field, char *err, size_t len)
{
    static const char *const names[] = {"NONE", "WARN", "INFO", "TRACE"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(text, names[i]))
            return *(int *)field = i, 0;
    }
    snprintf(err, len, "expected NONE, WARN, INFO or TRACE");
    return -1;
}

int tcomm_parse_seconds(const char *text, void *field, char *err,
                        size_t len)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno || !(v >= 0) || v > 1e9) {
        snprintf(err, len, "expected a number of seconds from 0 to 1e9");
        return -1;
    }
    *(double *)field = v;
    return 0;
}

int tcomm_parse_tristate(const char *text, void *field, char *err,
                         size_t len)
{
    if (!strcasecmp(text, "auto"))
        return *(int *)field = -1, 0;
    if (tcomm_parse_bool(text, field, err, len) == 0)
        return 0;
    snprintf(err, len, "expected auto, 0 or 1 (also yes/no, true/false, "
                       "on/off)");
    return -1;
}

int tcomm_parse_bytes(const char *text, void *field, char *err, size_t len)
{
    char *end;
    if (!isdigit((unsigned char)text[0]))
        goto bad;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    }
    if (*end != '\0' || errno || v == 0 || v > (1ULL << 40) >> shift)
        goto bad;
    *(size_t *)field = (size_t)(v << shift);
    return 0;
bad:
    snprintf(err, len, "expected a positive byte count up to 1T, "
                       "optionally with K, M or G");
    return -1;
}

/* A staged chunk is a pipeline stage: below a cache line the per-chunk
 * costs (an MPI call, a copy launch per few elements) swamp the bytes,
 * so such a value is a typo ("1" for 1M), not a choice. The tests run
 * many-chunk pipelines at 64 bytes. */
#define CHUNK_MIN 64

int tcomm_parse_chunk(const char *text, void *field, char *err, size_t len)
{
    size_t bytes;
    if (tcomm_parse_bytes(text, &bytes, err, len) != 0)
        return -1;
    if (bytes < CHUNK_MIN) {
        snprintf(err, len, "%zu bytes is below the smallest chunk, 64 "
                           "bytes (give a size such as 1M; below 64K the "
                           "per-chunk costs dominate)", bytes);
        return -1;
    }
    *(size_t *)field = bytes;
    return 0;
}

int tcomm_parse_progress(const char *text, void *field, char *err, size_t len)
{
    if (!strcasecmp(text, "thread"))
        return *(int *)field = 1, 0;
    if (!strcasecmp(text, "caller"))
        return *(int *)field = 0, 0;
    snprintf(err, len, "expected thread or caller");
    return -1;
}
