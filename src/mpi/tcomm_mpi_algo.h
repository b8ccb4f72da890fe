/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI backend's host algorithms as tables: per collective, one file
 * (src/mpi/all_reduce.c, all_gather.c, reduce_scatter.c, broadcast.c,
 * reduce.c, all_to_all.c, all_to_all_v.c, reduce_scatter_v.c, barrier.c)
 * with a row per named algorithm, and one choice for them all
 * (src/mpi/algo_select.c): the first row, in table order, whose byte
 * range holds the call and that applies to it runs; TCOMM_TUNE puts a
 * row of the user's choice first for the sizes it names. A row whose
 * run finds at run time that it cannot (a single copy that a peer could
 * not make) returns TCOMM_MPI_NOT_APPLIED, a status like any other,
 * and the next row runs. Every answer is the same on every rank: the
 * arguments, the settings and the state they read are agreed on. */
#ifndef TCOMM_MPI_ALGO_H
#define TCOMM_MPI_ALGO_H

#include <stdint.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_paths.h"

/* The status of a row that does not apply after all: never returned to a
 * caller (outside tcomm_status_t's range, which is 0 and below). */
#define TCOMM_MPI_NOT_APPLIED ((tcomm_status_t)1)

/* No end to a row's range. */
#define TCOMM_MPI_ANY_SIZE SIZE_MAX

typedef struct tcomm_mpi_algo {
    /* its name, as TCOMM_TUNE, tcomm_info --algorithms and the
     * INFO/TRACE lines spell it: the path's word */
    tcomm_path_t path;
    /* the INFO line after "<collective>: " */
    const char *what;
    /* the sizes where it is chosen by default, from <= bytes < to (the
     * table's measure of the call) */
    size_t from, to;
    /* whether it can run the call (NULL: always); no side effects */
    int (*applies)(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a);
    /* TCOMM_SUCCESS, an error, or TCOMM_MPI_NOT_APPLIED */
    tcomm_status_t (*run)(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a);
} tcomm_mpi_algo_t;

typedef struct tcomm_mpi_coll_table {
    tcomm_coll_t coll;
    const char *name;     /* "all_reduce" */
    const char *measure;  /* what the byte ranges count, for tcomm_info */
    size_t (*bytes)(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a);
    const tcomm_mpi_algo_t *algos;
    int count; /* the last row applies to every call: the fallback */
} tcomm_mpi_coll_table_t;

/* A collective's table from the file's `algos` rows. */
#define TCOMM_MPI_TABLE(var, coll, name, measure, bytes)                    \
    const tcomm_mpi_coll_table_t var = {                                    \
        coll, name, measure, bytes, algos,                                  \
        (int)(sizeof algos / sizeof algos[0])}

extern const tcomm_mpi_coll_table_t tcomm_mpi_all_reduce_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_all_gather_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_reduce_scatter_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_broadcast_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_reduce_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_all_to_all_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_all_to_all_v_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_reduce_scatter_v_table;
extern const tcomm_mpi_coll_table_t tcomm_mpi_barrier_table;

/* The table of coll (NULL: none, a collective newer than the backend);
 * the i-th of them all, for listing (NULL past the last). */
const tcomm_mpi_coll_table_t *tcomm_mpi_coll_table(tcomm_coll_t coll);
const tcomm_mpi_coll_table_t *tcomm_mpi_coll_table_at(int i);

/* Run the call by its table (host tensors; barrier: no tensor). */
tcomm_status_t tcomm_mpi_algo_run(tcomm_mpi_state_t *st,
                                  const tcomm_mpi_coll_table_t *t,
                                  const tcomm_coll_args_t *a);

/* For a row whose run names a finer path than the row's own, which can
 * differ between the ranks (all_to_all's pack+, +unpack, pieces): the
 * call of t took path (its INFO line "<t's name>: <what>"), and the
 * row's own name is not noted after it. */
void tcomm_mpi_algo_note(tcomm_mpi_state_t *st,
                         const tcomm_mpi_coll_table_t *t, tcomm_path_t path,
                         const char *what);

/* TCOMM_TUNE, parsed: "all_reduce:0-4k:mpi_allreduce,4k-:node_all_reduce"
 * (a rule is collective:from-to:algorithm; the collective may be left
 * out after the first, and to, for no end; sizes in bytes with k, m or
 * g). */
#define TCOMM_MPI_TUNE_RULES 32
typedef struct tcomm_mpi_tune {
    int count;
    struct {
        const tcomm_mpi_coll_table_t *table;
        int algo; /* its row */
        size_t from, to;
    } rule[TCOMM_MPI_TUNE_RULES];
} tcomm_mpi_tune_t;

/* 0, or -1 and a sentence in err naming the rule at fault and the
 * names it may use. */
int tcomm_mpi_tune_parse(const char *text, tcomm_mpi_tune_t *tune,
                         char *err, size_t len);

/* The row TCOMM_TUNE puts first for bytes of the call of t (-1: none). */
int tcomm_mpi_tune_pick(const tcomm_mpi_tune_t *tune,
                        const tcomm_mpi_coll_table_t *t, size_t bytes);

/* What several tables share: no measure (0: barrier); the input's
 * bytes as the measure; whether
 * the call may copy between the node's ranks (one node, single copies
 * allowed); deterministic mode, and its opposite. */
size_t tcomm_mpi_no_bytes(const tcomm_mpi_state_t *st,
                          const tcomm_coll_args_t *a);
size_t tcomm_mpi_input_bytes(const tcomm_mpi_state_t *st,
                             const tcomm_coll_args_t *a);
int tcomm_mpi_one_node(const tcomm_mpi_state_t *st,
                       const tcomm_coll_args_t *a);
int tcomm_mpi_deterministic(const tcomm_mpi_state_t *st,
                            const tcomm_coll_args_t *a);
int tcomm_mpi_any_order(const tcomm_mpi_state_t *st,
                        const tcomm_coll_args_t *a);

/* AVG's division after a SUM on host buffers; shared by the reductions. */
tcomm_status_t tcomm_mpi_finish_avg(const tcomm_mpi_state_t *st,
                                    tcomm_op_t op, tcomm_tensor_t *out);

#endif /* TCOMM_MPI_ALGO_H */
