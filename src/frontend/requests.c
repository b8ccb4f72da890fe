/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives (contract 0.2): each start validates its
 * arguments where the caller is, then hands the call, as an _into call,
 * to the communicator's progress thread (src/frontend/progress.c), or
 * runs it at once where no thread may call the backend (TCOMM_PROGRESS=
 * caller; an MPI below MPI_THREAD_MULTIPLE; world size 1). A local
 * argument error is returned by the start itself; where the ranks agree
 * before data moves, the call still runs in the background so that the
 * peers' requests complete with that error instead of waiting for it. */
#include <stdlib.h>

#include "tcomm_config.h"
#include "tcomm_progress.h"

static int use_thread(const tcomm_comm_t *comm)
{
    return comm->world_size > 1 && comm->progress_thread_ok &&
           tcomm_config()->progress_thread;
}

static void hold(tcomm_request_t *r)
{
    if (r->call.in)
        r->hold[0] = tcomm_tensor_retain((tcomm_tensor_t *)r->call.in);
    if (r->call.into)
        r->hold[1] = tcomm_tensor_retain(r->call.into);
}

/* Runs r where the caller is: complete when this returns. */
static void run_here(tcomm_request_t *r)
{
    tcomm_request_finish(r, tcomm_frontend_run(r->comm, &r->call));
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static tcomm_status_t start(tcomm_comm_t *comm, const tcomm_call_t *c,
                            tcomm_request_t **req)
{
    tcomm_error_clear();
    if (!req)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: req is NULL (pass the address of a "
                           "tcomm_request_t pointer)",
                           c->fn);
    *req = NULL;
    if (!comm) /* the blocking path's sentence */
        return tcomm_frontend_run(comm, c);
    tcomm_status_t local = comm->failed
                               ? TCOMM_SUCCESS /* the run says so */
                               : tcomm_validate(c, comm->rank,
                                                comm->world_size);
    int tell_peers = local != TCOMM_SUCCESS && comm->world_size > 1 &&
                     tcomm_agrees(comm);
    if (local != TCOMM_SUCCESS && !tell_peers)
        return local;
    tcomm_error_kept_t own;
    tcomm_error_keep(&own);
    tcomm_request_t *r = calloc(1, sizeof *r);
    if (!r)
        return local != TCOMM_SUCCESS
                   ? local
                   : tcomm_error(TCOMM_ERR_NO_MEMORY,
                                 "%s: out of host memory", c->fn);
    r->comm = comm;
    r->call = *c;
    r->orphan = local != TCOMM_SUCCESS;
    hold(r);
    if (!use_thread(comm) || tcomm_progress_submit(r) != TCOMM_SUCCESS) {
        run_here(r); /* no thread: complete now */
        if (r->orphan)
            free(r);
    }
    if (local != TCOMM_SUCCESS)
        return tcomm_error_restore(&own);
    *req = r;
    tcomm_error_clear();
    return TCOMM_SUCCESS;
}

#define CALL(k, f, ...)                                                     \
    (&(tcomm_call_t){.kind = (k), .desc = tcomm_coll_desc(k), .fn = (f),    \
                     __VA_ARGS__})

tcomm_status_t tcomm_all_reduce_start(tcomm_comm_t *comm,
                                      const tcomm_tensor_t *in, tcomm_op_t op,
                                      tcomm_tensor_t *out,
                                      tcomm_request_t **req)
{
    return start(comm, CALL(TCOMM_COLL_ALL_REDUCE, "tcomm_all_reduce_start",
                            .in = in, .into = out, .op = op),
                 req);
}

tcomm_status_t tcomm_all_gather_start(tcomm_comm_t *comm,
                                      const tcomm_tensor_t *in, int dim,
                                      tcomm_tensor_t *out,
                                      tcomm_request_t **req)
{
    return start(comm, CALL(TCOMM_COLL_ALL_GATHER, "tcomm_all_gather_start",
                            .in = in, .into = out, .dim = dim),
                 req);
}

tcomm_status_t tcomm_reduce_scatter_start(tcomm_comm_t *comm,
                                          const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          tcomm_tensor_t *out,
                                          tcomm_request_t **req)
{
    return start(comm,
                 CALL(TCOMM_COLL_REDUCE_SCATTER, "tcomm_reduce_scatter_start",
                      .in = in, .into = out, .op = op, .dim = dim),
                 req);
}

tcomm_status_t tcomm_broadcast_start(tcomm_comm_t *comm,
                                     const tcomm_tensor_t *in, int root,
                                     tcomm_tensor_t *out,
                                     tcomm_request_t **req)
{
    return start(comm, CALL(TCOMM_COLL_BROADCAST, "tcomm_broadcast_start",
                            .in = in, .into = out, .root = root),
                 req);
}

tcomm_status_t tcomm_reduce_start(tcomm_comm_t *comm, const tcomm_tensor_t *in,
                                  tcomm_op_t op, int root, tcomm_tensor_t *out,
                                  tcomm_request_t **req)
{
    return start(comm, CALL(TCOMM_COLL_REDUCE, "tcomm_reduce_start", .in = in,
                            .into = out, .op = op, .root = root),
                 req);
}

tcomm_status_t tcomm_all_to_all_start(tcomm_comm_t *comm,
                                      const tcomm_tensor_t *in,
                                      int split_dim, int concat_dim,
                                      tcomm_tensor_t *out,
                                      tcomm_request_t **req)
{
    return start(comm, CALL(TCOMM_COLL_ALL_TO_ALL, "tcomm_all_to_all_start",
                            .in = in, .into = out, .dim = split_dim,
                            .concat_dim = concat_dim),
                 req);
}

tcomm_status_t tcomm_barrier_start(tcomm_comm_t *comm, tcomm_request_t **req)
{
    return start(comm, CALL(TCOMM_COLL_BARRIER, "tcomm_barrier_start",
                            .in = NULL),
                 req);
}

tcomm_status_t tcomm_wait(tcomm_request_t **req)
{
    tcomm_error_clear();
    if (!req || !*req)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_wait: the request is NULL (pass the "
                           "address of a request a start call returned; a "
                           "request is completed only once)");
    tcomm_request_t *r = *req;
    *req = NULL;
    tcomm_status_t st = tcomm_progress_wait(r);
    free(r);
    return st;
}

tcomm_status_t tcomm_test(tcomm_request_t **req, int *done)
{
    tcomm_error_clear();
    if (!req || !*req || !done)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_test: %s is NULL (pass %s)",
                           done ? "the request" : "done",
                           done ? "the address of a request a start call "
                                  "returned"
                                : "the address of an int");
    *done = tcomm_progress_done(*req);
    return *done ? tcomm_wait(req) : TCOMM_SUCCESS;
}

tcomm_status_t tcomm_wait_all(int n, tcomm_request_t **reqs)
{
    tcomm_error_clear();
    if (n < 0 || (n > 0 && !reqs))
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_wait_all: %s (pass n >= 0 and an array "
                           "of n requests)",
                           n < 0 ? "n is negative" : "reqs is NULL");
    tcomm_status_t first = TCOMM_SUCCESS;
    tcomm_error_kept_t kept;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        tcomm_status_t st = tcomm_wait(&reqs[i]);
        if (st != TCOMM_SUCCESS && first == TCOMM_SUCCESS) {
            first = st;
            tcomm_error_keep(&kept);
        }
    }
    if (first == TCOMM_SUCCESS) {
        tcomm_error_clear();
        return TCOMM_SUCCESS;
    }
    return tcomm_error_restore(&kept);
}
