/* SPDX-License-Identifier: BSD-3-Clause */
/* The settings table: every TCOMM_* environment variable, read once. */
#ifndef TCOMM_CONFIG_H
#define TCOMM_CONFIG_H

#include <stddef.h>

typedef struct {
    int debug;          /* tcomm_log_level_t */
    int check;          /* cross-rank agreement before data moves */
    int deterministic;  /* rank-order fold for reductions */
    double timeout_s;   /* 0 = off */
    int cuda_aware;     /* -1 = probe, 0 = no, 1 = yes */
    size_t staging_chunk; /* bytes per staged chunk */
    int single_copy;    /* intra-node pull of all_gather along dim > 0 */
    int progress_thread; /* nonblocking collectives: 1 thread, 0 caller */
    int hier;           /* two levels on communicators across nodes */
    char tune[512];     /* TCOMM_TUNE's rules, checked by the backend */
} tcomm_config_t;

typedef struct {
    const char *name;        /* environment variable */
    const char *default_text;
    const char *description;
    /* parse text into the field at offset; 0 on success, else -1 and a
     * sentence in err */
    int (*parse)(const char *text, void *field, char *err, size_t err_len);
    size_t offset;           /* of the field in tcomm_config_t */
} tcomm_setting_t;

/* The settings in force, read from the environment on first use: the
 * first tcomm_graph_create or communicator of the process reads them. */
const tcomm_config_t *tcomm_config(void);
/* Re-read the environment into a new snapshot (tests and tcomm_info):
 * pointers from tcomm_config() keep the values they had; communicators
 * already created keep theirs. */
void tcomm_config_reload(void);
/* The table, for tcomm_info; *count receives its length. */
const tcomm_setting_t *tcomm_settings_table(size_t *count);
/* Current value of setting i as text. */
void tcomm_setting_value_text(size_t i, char *buf, size_t len);

/* The parsers (exposed for tests and fuzzers). */
int tcomm_parse_bool(const char *text, void *field, char *err, size_t len);
int tcomm_parse_level(const char *text, void *field, char *err, size_t len);
int tcomm_parse_seconds(const char *text, void *field, char *err, size_t len);
int tcomm_parse_tristate(const char *text, void *field, char *err,
                         size_t len);
int tcomm_parse_bytes(const char *text, void *field, char *err, size_t len);
int tcomm_parse_progress(const char *text, void *field, char *err,
                         size_t len);
/* Text kept as it is (TCOMM_TUNE: its backend reads its rules). */
int tcomm_parse_text(const char *text, void *field, char *err, size_t len);
/* tcomm_parse_bytes, 64 at least (TCOMM_STAGING_CHUNK). */
int tcomm_parse_chunk(const char *text, void *field, char *err, size_t len);

#endif /* TCOMM_CONFIG_H */
