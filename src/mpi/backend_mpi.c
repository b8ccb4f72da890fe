/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI backend: lifecycle, the agreement channel, and the choice
 * between the host collectives (the tables of src/mpi/all_reduce.c, ...,
 * barrier.c) and the device path (src/mpi/device/). */
#include <stdio.h>
#include <stdlib.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_carry_round.h"
#include "tcomm_config.h"
#include "tcomm_hier.h"
#include "tcomm_log.h"
#include "tcomm_mpi.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_map.h"
#include "tcomm_node_segment.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"
#include "tcomm_timeout.h"

static tcomm_status_t mpi_query(void *state, int *rank, int *size,
                                int *cuda_aware)
{
    tcomm_mpi_state_t *st = state;
    *rank = st->rank;
    *size = st->size;
    *cuda_aware = st->cuda_aware;
    return TCOMM_SUCCESS;
}

static tcomm_status_t mpi_allgather_bytes(void *state, const void *mine,
                                          void *all, size_t bytes)
{
    tcomm_mpi_state_t *st = state;
    if (st->timeout)
        return tcomm_timeout_allgather_bytes(st->timeout, st->comm,
                                             st->owner->seq, mine, all,
                                             bytes);
    return tcomm_mpi_allgather_bytes(st->comm, mine, all, bytes);
}

static tcomm_status_t mpi_allreduce_min_i64(void *state, int64_t *values,
                                            int count)
{
    tcomm_mpi_state_t *st = state;
    if (st->timeout)
        return tcomm_timeout_allreduce_min_i64(st->timeout, st->comm,
                                               st->owner->seq, values,
                                               count);
    if (st->segment && count <= TCOMM_NODE_SEGMENT_MIN_MAX) {
        tcomm_node_segment_min(st->segment, values, count);
        return TCOMM_SUCCESS;
    }
    return tcomm_mpi_min_i64(st->comm, values, count);
}

/* Without a timeout the round carries the bytes: on one node the
 * shared-memory round, elsewhere an MPI_Allgather of slots up to
 * TCOMM_CARRY_RANKS ranks (carry_round.c); with one, or more ranks,
 * nothing is carried. The same on every rank. */
static tcomm_status_t mpi_allreduce_min_i64_carry(void *state,
                                                  int64_t *values, int count,
                                                  const void *mine,
                                                  size_t bytes,
                                                  const void **blocks,
                                                  size_t *lens, int *carried)
{
    tcomm_mpi_state_t *st = state;
    *carried = 0;
    if (st->timeout || count > TCOMM_NODE_SEGMENT_MIN_MAX ||
        (!st->segment && st->size > TCOMM_CARRY_RANKS))
        return mpi_allreduce_min_i64(state, values, count);
    const void *offer = st->single_copy ? mine : NULL;
    if (!st->segment)
        return tcomm_carry_round(st, values, count, offer, bytes, blocks,
                                 lens, carried);
    *carried = tcomm_node_segment_min_carry(st->segment, values, count, offer,
                                            bytes, blocks, lens);
    return TCOMM_SUCCESS;
}

static void mpi_destroy(void *state)
{
    tcomm_mpi_state_t *st = state;
    tcomm_mpi_finalize_hook_remove(st);
    /* After a failure a peer may never free its side: freeing ours could
     * hang, so the communicator is left to MPI_Finalize. */
    int failed = st->owner && st->owner->failed, finalized = 0;
    tcomm_timeout_destroy(st->timeout, failed);
    tcomm_hier_destroy(st->hier, failed);
    tcomm_carry_round_destroy(st->carry);
    if (st->segment)
        tcomm_node_map_release(st->segment);
    tcomm_node_segment_destroy(st->segment);
    MPI_Finalized(&finalized);
    if (!finalized && !failed)
        MPI_Comm_free(&st->comm);
    free(st->tune);
    free(st);
}

/* The path is chosen once per call, by where the input lives: host
 * tensors here (tcomm_mpi_algo.h), device tensors in
 * src/mpi/device/. */
static int on_host(const tcomm_tensor_t *in)
{
    return in->graph->space->is_host;
}

tcomm_status_t tcomm_mpi_no_collective(const tcomm_coll_args_t *args)
{
    return tcomm_backend_error(TCOMM_ERR_UNSUPPORTED,
                               "the mpi backend has no collective %d (a "
                               "front end newer than the backend)",
                               (int)args->coll);
}

/* Every collective through the one slot that carries all of its
 * arguments (all_to_all_v's host path reads the table of sizes the front
 * end exchanged): host tensors (and the barrier) by their collective's
 * table, device tensors in src/mpi/device/. */
static tcomm_status_t mpi_collective(void *state, const tcomm_coll_args_t *a)
{
    if (a->coll != TCOMM_COLL_BARRIER && !on_host(a->in))
        return tcomm_device_collective(state, a);
    const tcomm_mpi_coll_table_t *t = tcomm_mpi_coll_table(a->coll);
    if (t)
        return tcomm_mpi_algo_run(state, t, a);
    return tcomm_mpi_no_collective(a);
}

const tcomm_backend_ops_t tcomm_backend_mpi = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "mpi",
    .query = mpi_query,
    .allgather_bytes = mpi_allgather_bytes,
    .allreduce_min_i64 = mpi_allreduce_min_i64,
    .destroy = mpi_destroy,
    .allreduce_min_i64_carry = mpi_allreduce_min_i64_carry,
    .collective = mpi_collective,
};

tcomm_status_t tcomm_mpi_check_ready(const char *fn)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        return TCOMM_SUCCESS;
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "%s: MPI is %s (call it between MPI_Init and "
                       "MPI_Finalize)",
                       fn, finalized ? "finalized" : "not initialized");
}

tcomm_status_t tcomm_mpi_check_intra(const char *fn, MPI_Comm mpi_comm)
{
    int inter = 0;
    int rc = MPI_Comm_test_inter(mpi_comm, &inter);
    if (rc != MPI_SUCCESS)
        return tcomm_mpi_status(rc, fn, __FILE__, __LINE__);
    if (!inter)
        return TCOMM_SUCCESS;
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "%s: mpi_comm is an intercommunicator, and tcomm's "
                       "collectives run within one group of ranks (pass "
                       "an intracommunicator: the two groups joined by "
                       "MPI_Intercomm_merge, or one group's own "
                       "communicator)",
                       fn);
}

/* A hash of TCOMM_TUNE's text, 0..INT_MAX, so that MIN over [h, -h]
 * says whether every rank has the same. */
static int text_hash(const char *text)
{
    uint32_t h = 2166136261u;
    for (const char *p = text; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return (int)(h >> 1);
}

/* MIN over the ranks of [TCOMM_SINGLE_COPY, TCOMM_TUNE parsed, its hash,
 * minus its hash]; st->tune holds this rank's rules (why: its error). */
static int agree_settings(tcomm_mpi_state_t *st, int *agreed, char *why,
                          size_t len)
{
    const char *tune = tcomm_config()->tune;
    int ok = 1, h = text_hash(tune);
    why[0] = '\0';
    if (tune[0] && (st->tune = malloc(sizeof *st->tune)) &&
        tcomm_mpi_tune_parse(tune, st->tune, why, len) != 0)
        ok = 0;
    else if (tune[0] && !st->tune)
        ok = 0, snprintf(why, len, "out of host memory");
    int mine[4] = {tcomm_config()->single_copy, ok, h, -h};
    return MPI_Allreduce(mine, agreed, 4, MPI_INT, MPI_MIN, st->comm);
}

static tcomm_status_t tune_error(const char *fn, const int *agreed,
                                 const char *why)
{
    const char *tune = tcomm_config()->tune;
    if (why[0])
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: TCOMM_TUNE=\"%s\": %s (tcomm_info "
                           "--algorithms lists every collective's "
                           "algorithms)",
                           fn, tune, why);
    if (!agreed[1])
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: TCOMM_TUNE does not parse on another rank "
                           "(its message says why; set it alike on every "
                           "rank)",
                           fn);
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "%s: TCOMM_TUNE differs between the ranks (here "
                       "\"%s\"; set it alike on every rank)",
                       fn, tune);
}

tcomm_status_t tcomm_comm_create_mpi(MPI_Comm mpi_comm, tcomm_comm_t **comm)
{
    static const char fn[] = "tcomm_comm_create_mpi";
    tcomm_error_clear();
    TCOMM_TRY(tcomm_mpi_check_ready(fn));
    tcomm_mpi_warn_launcher();
    if (!comm)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: comm is NULL (pass the address of a "
                           "tcomm_comm_t pointer)",
                           fn);
    if (mpi_comm == MPI_COMM_NULL)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: mpi_comm is MPI_COMM_NULL (pass a valid "
                           "communicator such as MPI_COMM_WORLD)",
                           fn);
    TCOMM_TRY(tcomm_mpi_check_intra(fn, mpi_comm));
    tcomm_mpi_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                           fn);
    tcomm_status_t s =
        tcomm_mpi_dup(fn, mpi_comm, &st->comm, &st->rank, &st->size);
    if (s != TCOMM_SUCCESS) {
        free(st);
        return s;
    }
    st->cuda_aware = tcomm_mpi_probe_cuda_aware(st->comm);
    /* Single copies off if any rank says so, and TCOMM_TUNE alike on
     * every rank: the ranks must take the same paths. */
    char why[600];
    int agreed[4];
    if (agree_settings(st, agreed, why, sizeof why) != MPI_SUCCESS ||
        (!agreed[0] && tcomm_mpi_pull_off(st->comm))) {
        mpi_destroy(st);
        return tcomm_error(TCOMM_ERR_MPI,
                           "%s: agreeing on TCOMM_SINGLE_COPY and "
                           "TCOMM_TUNE failed in MPI",
                           fn);
    }
    if (!agreed[1] || agreed[2] != -agreed[3]) {
        mpi_destroy(st);
        return tune_error(fn, agreed, why);
    }
    st->single_copy = agreed[0];
    double timeout = tcomm_config()->timeout_s;
    if (timeout > 0 && st->size > 1 &&
        (s = tcomm_timeout_create(st->comm, timeout, &st->timeout)) !=
            TCOMM_SUCCESS) {
        mpi_destroy(st);
        return s;
    }
    if ((s = tcomm_hier_create(st)) != TCOMM_SUCCESS) {
        mpi_destroy(st);
        return s;
    }
    /* With a timeout the first exchange must be one that can be given up
     * on (src/mpi/timeout.c); else ranks of one node meet in shared memory. */
    if (timeout <= 0 && !tcomm_test_hook(TCOMM_HOOK_NO_NODE_ROUND) &&
        (s = tcomm_mpi_status(tcomm_node_segment_create(st->comm, &st->segment),
                              "tcomm_comm_create_mpi (shared memory)", __FILE__,
                              __LINE__)) != TCOMM_SUCCESS) {
        mpi_destroy(st);
        return s;
    }
    s = tcomm_comm_wrap_backend(&tcomm_backend_mpi, st, comm);
    if (s != TCOMM_SUCCESS) {
        mpi_destroy(st);
        return s;
    }
    st->owner = *comm;
    tcomm_timeout_set_owner(st->timeout, *comm);
    (*comm)->progress_thread_ok = tcomm_mpi_thread_multiple();
    tcomm_mpi_finalize_hook_add(st);
    return TCOMM_SUCCESS;
}
