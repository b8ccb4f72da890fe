/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI backend: lifecycle, the agreement channel, and error mapping.
 * The collectives themselves are in src/mpi_collectives.c. */
#include <stdio.h>
#include <stdlib.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_config.h"
#include "tcomm_log.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_mpi.h"
#include "tcomm_shm_min.h"
#include "tcomm_timeout.h"

tcomm_status_t tcomm_mpi_status(int mpi_rc, const char *call,
                                const char *file, int line)
{
    if (mpi_rc == MPI_SUCCESS)
        return TCOMM_SUCCESS;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", mpi_rc);
    return tcomm_error(TCOMM_ERR_MPI,
                       "tcomm: %s failed at %s:%d: %s (the communicator is "
                       "unusable: destroy it or end the job with "
                       "MPI_Abort)",
                       call, file, line, text);
}

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
    TCOMM_MPI_CHECK(MPI_Allgather(mine, (int)bytes, MPI_BYTE, all,
                                  (int)bytes, MPI_BYTE, st->comm));
    return TCOMM_SUCCESS;
}

static tcomm_status_t mpi_allreduce_min_i64(void *state, int64_t *values,
                                            int count)
{
    tcomm_mpi_state_t *st = state;
    if (st->timeout)
        return tcomm_timeout_allreduce_min_i64(st->timeout, st->comm,
                                               st->owner->seq, values,
                                               count);
    if (st->shm_min && count <= TCOMM_SHM_MIN_MAX) {
        tcomm_shm_min(st->shm_min, values, count);
        return TCOMM_SUCCESS;
    }
    TCOMM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_INT64_T,
                                  MPI_MIN, st->comm));
    return TCOMM_SUCCESS;
}

static tcomm_status_t mpi_barrier(void *state)
{
    tcomm_mpi_state_t *st = state;
    if (st->timeout)
        return tcomm_timeout_barrier(st->timeout, st->comm, st->owner->seq);
    TCOMM_MPI_CHECK(MPI_Barrier(st->comm));
    return TCOMM_SUCCESS;
}

static void mpi_destroy(void *state)
{
    tcomm_mpi_state_t *st = state;
    /* After a failure a peer may never free its side: freeing ours could
     * hang, so the communicator is left to MPI_Finalize. */
    int failed = st->owner && st->owner->failed, finalized = 0;
    tcomm_timeout_destroy(st->timeout, failed);
    tcomm_shm_min_destroy(st->shm_min);
    MPI_Finalized(&finalized);
    if (!finalized && !failed)
        MPI_Comm_free(&st->comm);
    free(st);
}

tcomm_status_t tcomm_mpi_all_reduce(void *state, const tcomm_tensor_t *in,
                                    tcomm_op_t op, tcomm_tensor_t *out);
tcomm_status_t tcomm_mpi_all_gather(void *state, const tcomm_tensor_t *in,
                                    int dim, const size_t *sizes,
                                    tcomm_tensor_t *out);
tcomm_status_t tcomm_mpi_reduce_scatter(void *state,
                                        const tcomm_tensor_t *in,
                                        tcomm_op_t op, int dim,
                                        tcomm_tensor_t *out);
tcomm_status_t tcomm_mpi_broadcast(void *state, const tcomm_tensor_t *in,
                                   int root, tcomm_tensor_t *out);

const tcomm_backend_ops_t tcomm_backend_mpi = {
    .name = "mpi",
    .query = mpi_query,
    .allgather_bytes = mpi_allgather_bytes,
    .allreduce_min_i64 = mpi_allreduce_min_i64,
    .all_reduce = tcomm_mpi_all_reduce,
    .all_gather = tcomm_mpi_all_gather,
    .reduce_scatter = tcomm_mpi_reduce_scatter,
    .broadcast = tcomm_mpi_broadcast,
    .barrier = mpi_barrier,
    .destroy = mpi_destroy,
};

static tcomm_status_t dup_comm(MPI_Comm user, tcomm_mpi_state_t *st)
{
    static const char fn[] = "tcomm_comm_create_mpi";
    int rc = MPI_Comm_dup(user, &st->comm);
    if (rc != MPI_SUCCESS)
        return tcomm_mpi_status(rc, "MPI_Comm_dup", __FILE__, __LINE__);
    /* Errors come back to us as codes: tcomm never aborts the job. */
    rc = MPI_Comm_set_errhandler(st->comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(st->comm, &st->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(st->comm, &st->size);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&st->comm);
        return tcomm_mpi_status(rc, fn, __FILE__, __LINE__);
    }
    return TCOMM_SUCCESS;
}

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

tcomm_status_t tcomm_comm_create_mpi(MPI_Comm mpi_comm, tcomm_comm_t **comm)
{
    static const char fn[] = "tcomm_comm_create_mpi";
    tcomm_error_clear();
    TCOMM_TRY(tcomm_mpi_check_ready(fn));
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
    tcomm_status_t s = dup_comm(mpi_comm, st);
    if (s != TCOMM_SUCCESS) {
        free(st);
        return s;
    }
    st->cuda_aware = tcomm_mpi_probe_cuda_aware(st->comm);
    /* Off if any rank says so: the ranks must take the same paths. */
    int single_copy = tcomm_config()->single_copy, all_single_copy = 0;
    if (MPI_Allreduce(&single_copy, &all_single_copy, 1, MPI_INT, MPI_MIN,
                      st->comm) != MPI_SUCCESS ||
        (!all_single_copy && tcomm_mpi_pull_off(st->comm))) {
        mpi_destroy(st);
        return tcomm_error(TCOMM_ERR_MPI,
                           "%s: agreeing on TCOMM_SINGLE_COPY failed in MPI",
                           fn);
    }
    double timeout = tcomm_config()->timeout_s;
    if (timeout > 0 && st->size > 1 &&
        (s = tcomm_timeout_create(st->comm, timeout, &st->timeout)) !=
            TCOMM_SUCCESS) {
        mpi_destroy(st);
        return s;
    }
    /* With a timeout the first exchange must be one that can be given up
     * on (src/timeout.c); else ranks of one node meet in shared memory. */
    if (timeout <= 0 &&
        (s = tcomm_mpi_status(tcomm_shm_min_create(st->comm, &st->shm_min),
                              "tcomm_comm_create_mpi (shared memory)",
                              __FILE__, __LINE__)) != TCOMM_SUCCESS) {
        mpi_destroy(st);
        return s;
    }
    s = tcomm_comm_wrap_backend(&tcomm_backend_mpi, st, comm);
    if (s != TCOMM_SUCCESS) {
        mpi_destroy(st);
        return s;
    }
    st->owner = *comm;
    return TCOMM_SUCCESS;
}
