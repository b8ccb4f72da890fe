/* SPDX-License-Identifier: BSD-3-Clause */
/* The one choice among a collective's named algorithms (the tables of
 * src/mpi/all_reduce.c, all_gather.c, ..., barrier.c),
 * and TCOMM_TUNE, which puts a row of the user's choice first for the
 * sizes it names. The row that runs names the call's path: its INFO
 * line (once per communicator) and its TRACE word. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_node_call.h"

static const tcomm_mpi_coll_table_t *const tables[] = {
    &tcomm_mpi_all_reduce_table,     &tcomm_mpi_all_gather_table,
    &tcomm_mpi_reduce_scatter_table, &tcomm_mpi_broadcast_table,
    &tcomm_mpi_reduce_table,         &tcomm_mpi_all_to_all_table,
    &tcomm_mpi_all_to_all_v_table,   &tcomm_mpi_reduce_scatter_v_table,
    &tcomm_mpi_barrier_table,
};
#define NTABLES ((int)(sizeof tables / sizeof tables[0]))

const tcomm_mpi_coll_table_t *tcomm_mpi_coll_table_at(int i)
{
    return i >= 0 && i < NTABLES ? tables[i] : NULL;
}

const tcomm_mpi_coll_table_t *tcomm_mpi_coll_table(tcomm_coll_t coll)
{
    for (int i = 0; i < NTABLES; i++)
        if (tables[i]->coll == coll)
            return tables[i];
    return NULL;
}

tcomm_status_t tcomm_mpi_finish_avg(const tcomm_mpi_state_t *st, tcomm_op_t op,
                                    tcomm_tensor_t *out)
{
    return tcomm_space_finish(&tcomm_memspace_host, NULL, out->dtype, op,
                              out->data, out->numel, st->size);
}

size_t tcomm_mpi_no_bytes(const tcomm_mpi_state_t *st,
                          const tcomm_coll_args_t *a)
{
    (void)st, (void)a;
    return 0;
}

size_t tcomm_mpi_input_bytes(const tcomm_mpi_state_t *st,
                             const tcomm_coll_args_t *a)
{
    (void)st;
    return a->in->nbytes;
}

int tcomm_mpi_one_node(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    (void)a;
    return tcomm_node_copy_allowed(st);
}

int tcomm_mpi_deterministic(const tcomm_mpi_state_t *st,
                            const tcomm_coll_args_t *a)
{
    (void)a;
    return st->owner->deterministic;
}

int tcomm_mpi_any_order(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return !tcomm_mpi_deterministic(st, a);
}

/* Row i, if it applies: its status (TCOMM_MPI_NOT_APPLIED: the next). */
static tcomm_status_t try_row(tcomm_mpi_state_t *st,
                              const tcomm_mpi_coll_table_t *t, int i,
                              const tcomm_coll_args_t *a)
{
    const tcomm_mpi_algo_t *r = &t->algos[i];
    if (r->applies && !r->applies(st, a))
        return TCOMM_MPI_NOT_APPLIED;
    st->row_noted = 0;
    tcomm_status_t s = r->run(st, a);
    if (s != TCOMM_MPI_NOT_APPLIED && !st->row_noted)
        tcomm_note_path(st->owner, t->coll, r->path, "%s: %s", t->name,
                        r->what);
    return s;
}

void tcomm_mpi_algo_note(tcomm_mpi_state_t *st,
                         const tcomm_mpi_coll_table_t *t, tcomm_path_t path,
                         const char *what)
{
    tcomm_note_path(st->owner, t->coll, path, "%s: %s", t->name, what);
    st->row_noted = 1;
}

tcomm_status_t tcomm_mpi_algo_run(tcomm_mpi_state_t *st,
                                  const tcomm_mpi_coll_table_t *t,
                                  const tcomm_coll_args_t *a)
{
    size_t bytes = t->bytes(st, a);
    int first = tcomm_mpi_tune_pick(st->tune, t, bytes);
    tcomm_status_t s = TCOMM_MPI_NOT_APPLIED;
    if (first >= 0)
        s = try_row(st, t, first, a);
    for (int i = 0; i < t->count && s == TCOMM_MPI_NOT_APPLIED; i++)
        if (i != first && bytes >= t->algos[i].from && bytes < t->algos[i].to)
            s = try_row(st, t, i, a);
    if (s != TCOMM_MPI_NOT_APPLIED)
        return s;
    return tcomm_error(TCOMM_ERR_INTERNAL,
                       "tcomm: no algorithm of %s's table ran a call of "
                       "%zu bytes (a tcomm bug: its last row must take "
                       "every call; please report it)",
                       t->name, bytes);
}

int tcomm_mpi_tune_pick(const tcomm_mpi_tune_t *tune,
                        const tcomm_mpi_coll_table_t *t, size_t bytes)
{
    for (int i = 0; tune && i < tune->count; i++)
        if (tune->rule[i].table == t && bytes >= tune->rule[i].from &&
            bytes < tune->rule[i].to)
            return tune->rule[i].algo;
    return -1;
}

/* A size with an optional k, m or g (binary); "" where allowed. */
static int parse_size(const char *s, size_t n, size_t *out)
{
    char buf[32], *end;
    if (n == 0 || n >= sizeof buf || !isdigit((unsigned char)s[0]))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    int shift = 0;
    switch (tolower((unsigned char)*end)) {
    case 'k': shift = 10, end++; break;
    case 'm': shift = 20, end++; break;
    case 'g': shift = 30, end++; break;
    }
    if (errno || *end || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)v << shift;
    return 0;
}

static const tcomm_mpi_coll_table_t *table_named(const char *s, size_t n)
{
    for (int i = 0; i < NTABLES; i++)
        if (strlen(tables[i]->name) == n && !strncmp(tables[i]->name, s, n))
            return tables[i];
    return NULL;
}

static int algo_named(const tcomm_mpi_coll_table_t *t, const char *s, size_t n)
{
    for (int i = 0; i < t->count; i++) {
        const char *w = tcomm_path_word(t->algos[i].path);
        if (strlen(w) == n && !strncmp(w, s, n))
            return i;
    }
    tcomm_path_t renamed = tcomm_path_renamed(s, n);
    for (int i = 0; i < t->count; i++)
        if (t->algos[i].path == renamed)
            return i;
    return -1;
}

/* "a, b or c": the names a rule may use where it used another. */
static void names(char *buf, size_t len, const tcomm_mpi_coll_table_t *t)
{
    size_t k = 0;
    int count = t ? t->count : NTABLES;
    buf[0] = '\0';
    for (int i = 0; i < count && k < len; i++) {
        const char *w = t ? tcomm_path_word(t->algos[i].path) : tables[i]->name;
        k += (size_t)snprintf(buf + k, len - k, "%s%s",
                              i == 0          ? ""
                              : i + 1 < count ? ", "
                                              : " or ",
                              w);
    }
}

/* One rule, NUL-terminated: [collective:]from-[to]:algorithm; *cur is
 * the collective of the rule before. */
static int parse_rule(char *rule, tcomm_mpi_tune_t *tune,
                      const tcomm_mpi_coll_table_t **cur, char *err, size_t len)
{
    char *part[3], list[256];
    int parts = 0;
    for (char *p = rule, *c; parts < 3; p = c + 1) {
        part[parts++] = p;
        if (!(c = strchr(p, ':')))
            break;
        *c = '\0';
    }
    if (parts == 3 && !(*cur = table_named(part[0], strlen(part[0])))) {
        names(list, sizeof list, NULL);
        return snprintf(err, len,
                        "\"%s\" is not a collective with a table of "
                        "algorithms (use %s)",
                        part[0], list),
               -1;
    }
    /* a rule of one part has no range: the check below refuses it */
    char *range = parts >= 2 ? part[parts - 2] : NULL, *algo = part[parts - 1];
    char *dash = range ? strchr(range, '-') : NULL;
    if (parts < 2 || !*cur || !dash)
        return snprintf(err, len,
                        "a rule is collective:from-to:algorithm (to may be "
                        "left out, and the collective after the first "
                        "rule), as in all_reduce:0-4k:mpi_allreduce,4k-:"
                        "node_all_reduce"),
               -1;
    tcomm_mpi_tune_t *t = tune;
    int k = t->count;
    size_t from, to = TCOMM_MPI_ANY_SIZE;
    if (parse_size(range, (size_t)(dash - range), &from) ||
        (dash[1] && parse_size(dash + 1, strlen(dash + 1), &to)) || to <= from)
        return snprintf(err, len,
                        "\"%s\" is not a range of sizes from-to with from < "
                        "to (bytes, with k, m or g: 0-4k, 4k-)",
                        range),
               -1;
    int row = algo_named(*cur, algo, strlen(algo));
    if (row < 0) {
        names(list, sizeof list, *cur);
        return snprintf(err, len, "\"%s\" is not an algorithm of %s (use %s)",
                        algo, (*cur)->name, list),
               -1;
    }
    if (k == TCOMM_MPI_TUNE_RULES)
        return snprintf(err, len, "more than %d rules", TCOMM_MPI_TUNE_RULES),
               -1;
    t->rule[k].table = *cur;
    t->rule[k].algo = row;
    t->rule[k].from = from;
    t->rule[k].to = to;
    t->count = k + 1;
    return 0;
}

int tcomm_mpi_tune_parse(const char *text, tcomm_mpi_tune_t *tune, char *err,
                         size_t len)
{
    char buf[1024], *save = NULL;
    const tcomm_mpi_coll_table_t *cur = NULL;
    tune->count = 0;
    if (strlen(text) >= sizeof buf)
        return snprintf(err, len, "longer than %zu characters", sizeof buf - 1),
               -1;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *rule = strtok_r(buf, ",", &save); rule;
         rule = strtok_r(NULL, ",", &save)) {
        char copy[sizeof buf];
        snprintf(copy, sizeof copy, "%s", rule);
        char why[512];
        if (parse_rule(rule, tune, &cur, why, sizeof why) != 0)
            return snprintf(err, len, "rule \"%s\": %s", copy, why), -1;
    }
    return 0;
}
