/* SPDX-License-Identifier: BSD-3-Clause */
/* The public collectives: validate, allocate the output on the input's
 * graph, agree across ranks, dispatch to the backend, each step read off
 * the collective's row (coll_table.c). Outputs are set only on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_frontend.h"
#include "tcomm_progress.h"
#include "tcomm_log.h"
#include "tcomm_trace.h"

static tcomm_status_t alloc_output(const tcomm_call_t *c, int rank,
                                   int world_size, const size_t *sizes,
                                   tcomm_tensor_t **out)
{
    int ndim;
    size_t shape[TCOMM_MAX_DIMS];
    tcomm_call_out_shape(c, rank, world_size, sizes, &ndim, shape);
    return tcomm_tensor_alloc(c->fn, c->in->graph, c->in->dtype, ndim,
                              shape, out);
}

/* World size 1: the input itself (zero copy), or a copy into out. */
static tcomm_status_t run_single(tcomm_comm_t *comm, const tcomm_call_t *c)
{
    int none = c->desc->out == TCOMM_OUT_NONE;
    tcomm_note_path(comm, c->kind,
                    none               ? TCOMM_PATH_SINGLE_RANK
                    : c->out           ? TCOMM_PATH_SINGLE_RANK_ZERO_COPY
                    : c->into == c->in ? TCOMM_PATH_SINGLE_RANK_IN_PLACE
                                       : TCOMM_PATH_SINGLE_RANK_COPY,
                    "%s: world size 1, %s", c->desc->name,
                    none               ? "nothing to move"
                    : c->out           ? "the output is the input"
                    : c->into == c->in ? "in place"
                                       : "one copy");
    if (none)
        return TCOMM_SUCCESS;
    if (c->out) {
        *c->out = tcomm_tensor_retain((tcomm_tensor_t *)c->in);
        return TCOMM_SUCCESS;
    }
    if (c->into == c->in)
        return TCOMM_SUCCESS;
    if (c->desc->out == TCOMM_OUT_CONCAT) /* only dim's size is unchecked */
        TCOMM_TRY(tcomm_validate_gather_out(c, c->into->shape[c->dim],
                                            tcomm_call_dim_size(c)));
    return tcomm_tensor_copy(c->in, c->into);
}

/* The call as the backend gets it: every argument, and what the ranks
 * exchanged (sizes; all_to_all_v's table). */
static tcomm_coll_args_t coll_args(const tcomm_call_t *c, const size_t *sizes,
                                   const tcomm_v_table_t *v,
                                   tcomm_tensor_t *out)
{
    return (tcomm_coll_args_t){
        .size = sizeof(tcomm_coll_args_t),
        .coll = c->kind,
        .in = c->in,
        .out = out,
        .op = (tcomm_op_t)c->op,
        .dim = c->dim,
        .concat_dim = c->concat_dim,
        .root = c->root,
        .send_sizes = c->vsizes,
        .recv_sizes = tcomm_out_exchanged(c->desc->out) ? sizes : NULL,
        .size_table = v->table,
        .extent_max = v->extent_max,
    };
}

static tcomm_status_t dispatch(tcomm_comm_t *comm, const tcomm_call_t *c,
                               const size_t *sizes, const tcomm_v_table_t *v,
                               tcomm_tensor_t *out)
{
    TCOMM_TRACE_PATH(comm->ops->name); /* unless the backend says more */
    tcomm_coll_args_t args = coll_args(c, sizes, v, out);
    if (TCOMM_HAS_OP(comm, collective))
        return comm->ops->collective(comm->state, &args);
    return c->desc->dispatch(comm, &args);
}

/* A collective the backend has neither its own slot nor the `collective`
 * slot for: refused on every rank alike (the ranks share the backend),
 * before any data moves. */
static tcomm_status_t has_slot(const tcomm_comm_t *comm,
                               const tcomm_call_t *c)
{
    if (tcomm_backend_has(comm, c->desc->slot) ||
        TCOMM_HAS_OP(comm, collective))
        return TCOMM_SUCCESS;
    return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                       "%s: backend %s has no %s (its vtable leaves that "
                       "slot and the collective slot NULL; implement one, "
                       "or use a backend that has it)",
                       c->fn, comm->ops->name, c->desc->name);
}

/* A backend's sentence that starts "tcomm: " (an MPI failure, a timeout)
 * is made to name the public call instead; one that names no call (a
 * `collective` slot's refusal) gets the call's name in front. */
static tcomm_status_t name_the_call(const tcomm_comm_t *comm,
                                    const tcomm_call_t *c, tcomm_status_t st)
{
    const char *msg = tcomm_last_error();
    size_t fn_len = strlen(c->fn);
    int prefixed = strncmp(msg, "tcomm: ", 7) == 0;
    if (!prefixed && (st != TCOMM_ERR_UNSUPPORTED || !comm ||
                      !TCOMM_HAS_OP(comm, collective) ||
                      (!strncmp(msg, c->fn, fn_len) && msg[fn_len] == ':')))
        return st;
    char text[1024];
    snprintf(text, sizeof text, "%s", msg + (prefixed ? 7 : 0));
    return tcomm_error(st, "%s: %s", c->fn, text);
}

/* In place where the backend's op is not (all_to_all moves every chunk
 * to another rank's place): the op reads a copy of the input. */
static int needs_copy(const tcomm_call_t *c)
{
    return c->into && c->into == c->in &&
           c->desc->out == TCOMM_OUT_ALL_TO_ALL;
}

static tcomm_status_t copy_input(const tcomm_call_t *c, tcomm_tensor_t **copy)
{
    const tcomm_tensor_t *in = c->in;
    TCOMM_TRY(tcomm_tensor_alloc(c->fn, in->graph, in->dtype, in->ndim,
                                 in->shape, copy));
    tcomm_status_t st = tcomm_tensor_copy(in, *copy);
    if (st != TCOMM_SUCCESS) {
        tcomm_tensor_release(*copy);
        *copy = NULL;
    }
    return st;
}

/* A barrier is complete once the agreement is: no rank leaves that
 * collective exchange before every rank has entered it. */
static int agreement_was_barrier(const tcomm_comm_t *comm,
                                 const tcomm_call_t *c)
{
    return c->desc->out == TCOMM_OUT_NONE && tcomm_agrees(comm);
}

static tcomm_status_t run_call(tcomm_comm_t *comm, const tcomm_call_t *c)
{
    tcomm_error_clear();
    if (!comm)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: comm is NULL (create one with "
                           "tcomm_comm_create_mpi)",
                           c->fn);
    if (comm->failed)
        return tcomm_error(TCOMM_ERR_COMM_FAILED,
                           "%s: the communicator failed earlier (%s); its "
                           "state is unknown (destroy it, or end the job "
                           "with MPI_Abort)",
                           c->fn, tcomm_status_string(comm->failed));
    comm->seq++;
    tcomm_status_t local = tcomm_validate(c, comm->rank, comm->world_size);
    if (comm->world_size == 1)
        return local != TCOMM_SUCCESS ? local : run_single(comm, c);

    if (local == TCOMM_SUCCESS && !agreement_was_barrier(comm, c))
        local = has_slot(comm, c);
    int n = comm->world_size, me = comm->rank;
    int exchanged = tcomm_out_exchanged(c->desc->out);
    size_t stack[TCOMM_STACK_RANKS], *sizes = stack;
    tcomm_tensor_t *fresh = NULL, *copy = NULL;
    if (exchanged && n > TCOMM_STACK_RANKS &&
        !(sizes = malloc((size_t)n * sizeof *sizes))) {
        sizes = stack;
        if (local == TCOMM_SUCCESS)
            local = tcomm_error(TCOMM_ERR_NO_MEMORY,
                                "%s: out of host memory", c->fn);
    }
    /* reduce off its root has no output; through all_reduce (no
     * collective slot) it needs a scratch one */
    int no_output = TCOMM_NO_OUTPUT_HERE(c, me);
    int scratch = no_output && !TCOMM_HAS_OP(comm, collective);
    /* Allocate before agreeing, so that a failure is agreed on too. */
    if (local == TCOMM_SUCCESS && ((c->out && !exchanged) || scratch))
        local = alloc_output(c, me, n, NULL, &fresh);
    tcomm_call_t in_place;
    if (local == TCOMM_SUCCESS && needs_copy(c)) {
        local = copy_input(c, &copy);
        in_place = *c;
        in_place.in = copy;
        c = &in_place;
    }

    tcomm_eager_t eager;
    tcomm_v_table_t v;
    tcomm_status_t st = tcomm_agree(comm, c, local, sizes, &eager, &v);
    if (st == TCOMM_SUCCESS && c->out && exchanged)
        st = alloc_output(c, me, n, sizes, &fresh);
    if (st == TCOMM_SUCCESS && agreement_was_barrier(comm, c))
        tcomm_note_path(comm, c->kind, TCOMM_PATH_AGREEMENT,
                        "barrier: the agreement's round was the barrier");
    tcomm_tensor_t *target = c->into && !no_output ? c->into : fresh;
    if (st == TCOMM_SUCCESS && eager.carried) { /* no op to dispatch */
        st = tcomm_eager_run(comm, c, &eager, sizes, target);
    } else if (st == TCOMM_SUCCESS && !agreement_was_barrier(comm, c)) {
        st = dispatch(comm, c, sizes, &v, target);
        /* the peers' state is unknown now, unless the backend refused
         * the call before moving data (tcomm_backend_ops_t::collective) */
        if (st != TCOMM_SUCCESS &&
            !(st == TCOMM_ERR_UNSUPPORTED && TCOMM_HAS_OP(comm, collective)))
            comm->failed = st;
    } else if (st == TCOMM_ERR_MPI || st == TCOMM_ERR_TIMEOUT ||
               st == TCOMM_ERR_COMM_FAILED) {
        comm->failed = st;
    }
    if (sizes != stack)
        free(sizes);
    free(v.table);
    tcomm_tensor_release(copy);
    if (st != TCOMM_SUCCESS) {
        tcomm_tensor_release(fresh);
        return name_the_call(comm, c, st);
    }
    if (c->out)
        *c->out = fresh;
    else /* the scratch output, if any */
        tcomm_tensor_release(fresh);
    return TCOMM_SUCCESS;
}

/* TCOMM_DEBUG=TRACE: one line per call (src/frontend/trace.c); below it, no
 * clock is read. */
tcomm_status_t tcomm_frontend_run(tcomm_comm_t *comm, const tcomm_call_t *c)
{
    if (!comm || !TCOMM_TRACING())
        return run_call(comm, c);
    double t0 = tcomm_trace_begin();
    tcomm_status_t st = run_call(comm, c);
    tcomm_trace_end(comm, c, st, t0);
    return st;
}

/* A blocking call: behind the nonblocking ones still in flight on comm,
 * if any (tcomm_progress.h). */
static tcomm_status_t run(tcomm_comm_t *comm, const tcomm_call_t *c)
{
    int queued = 0;
    if (comm && comm->progress) {
        tcomm_status_t st = tcomm_progress_run_blocking(comm, c, &queued);
        if (queued)
            return st;
    }
    return tcomm_frontend_run(comm, c);
}

#define CALL(k, f, ...)                                                     \
    (&(tcomm_call_t){.kind = (k), .desc = tcomm_coll_desc(k), .fn = (f),    \
                     __VA_ARGS__})

tcomm_status_t tcomm_all_reduce(tcomm_comm_t *comm, const tcomm_tensor_t *in,
                                tcomm_op_t op, tcomm_tensor_t **out)
{
    return run(comm, CALL(TCOMM_COLL_ALL_REDUCE, "tcomm_all_reduce",
                          .in = in, .out = out, .op = op));
}

tcomm_status_t tcomm_all_gather(tcomm_comm_t *comm, const tcomm_tensor_t *in,
                                int dim, tcomm_tensor_t **out)
{
    return run(comm, CALL(TCOMM_COLL_ALL_GATHER, "tcomm_all_gather",
                          .in = in, .out = out, .dim = dim));
}

tcomm_status_t tcomm_reduce_scatter(tcomm_comm_t *comm,
                                    const tcomm_tensor_t *in, tcomm_op_t op,
                                    int dim, tcomm_tensor_t **out)
{
    return run(comm, CALL(TCOMM_COLL_REDUCE_SCATTER, "tcomm_reduce_scatter",
                          .in = in, .out = out, .op = op, .dim = dim));
}

tcomm_status_t tcomm_broadcast(tcomm_comm_t *comm, const tcomm_tensor_t *in,
                               int root, tcomm_tensor_t **out)
{
    return run(comm, CALL(TCOMM_COLL_BROADCAST, "tcomm_broadcast", .in = in,
                          .out = out, .root = root));
}

tcomm_status_t tcomm_barrier(tcomm_comm_t *comm)
{
    return run(comm, CALL(TCOMM_COLL_BARRIER, "tcomm_barrier", .in = NULL));
}

tcomm_status_t tcomm_all_reduce_into(tcomm_comm_t *comm,
                                     const tcomm_tensor_t *in, tcomm_op_t op,
                                     tcomm_tensor_t *out)
{
    return run(comm, CALL(TCOMM_COLL_ALL_REDUCE, "tcomm_all_reduce_into",
                          .in = in, .into = out, .op = op));
}

tcomm_status_t tcomm_all_gather_into(tcomm_comm_t *comm,
                                     const tcomm_tensor_t *in, int dim,
                                     tcomm_tensor_t *out)
{
    return run(comm, CALL(TCOMM_COLL_ALL_GATHER, "tcomm_all_gather_into",
                          .in = in, .into = out, .dim = dim));
}

tcomm_status_t tcomm_reduce_scatter_into(tcomm_comm_t *comm,
                                         const tcomm_tensor_t *in,
                                         tcomm_op_t op, int dim,
                                         tcomm_tensor_t *out)
{
    return run(comm,
               CALL(TCOMM_COLL_REDUCE_SCATTER, "tcomm_reduce_scatter_into",
                    .in = in, .into = out, .op = op, .dim = dim));
}

tcomm_status_t tcomm_broadcast_into(tcomm_comm_t *comm,
                                    const tcomm_tensor_t *in, int root,
                                    tcomm_tensor_t *out)
{
    return run(comm, CALL(TCOMM_COLL_BROADCAST, "tcomm_broadcast_into",
                          .in = in, .into = out, .root = root));
}

tcomm_status_t tcomm_reduce_into(tcomm_comm_t *comm, const tcomm_tensor_t *in,
                                 tcomm_op_t op, int root, tcomm_tensor_t *out)
{
    return run(comm, CALL(TCOMM_COLL_REDUCE, "tcomm_reduce_into", .in = in,
                          .into = out, .op = op, .root = root));
}

tcomm_status_t tcomm_all_to_all(tcomm_comm_t *comm, const tcomm_tensor_t *in,
                                int split_dim, int concat_dim,
                                tcomm_tensor_t **out)
{
    return run(comm, CALL(TCOMM_COLL_ALL_TO_ALL, "tcomm_all_to_all",
                          .in = in, .out = out, .dim = split_dim,
                          .concat_dim = concat_dim));
}

tcomm_status_t tcomm_all_to_all_into(tcomm_comm_t *comm,
                                     const tcomm_tensor_t *in, int split_dim,
                                     int concat_dim, tcomm_tensor_t *out)
{
    return run(comm, CALL(TCOMM_COLL_ALL_TO_ALL, "tcomm_all_to_all_into",
                          .in = in, .into = out, .dim = split_dim,
                          .concat_dim = concat_dim));
}

tcomm_status_t tcomm_all_to_all_v(tcomm_comm_t *comm, const tcomm_tensor_t *in,
                                  int split_dim, const size_t *send_sizes,
                                  int concat_dim, tcomm_tensor_t **out)
{
    return run(comm, CALL(TCOMM_COLL_ALL_TO_ALL_V, "tcomm_all_to_all_v",
                          .in = in, .out = out, .dim = split_dim,
                          .vsizes = send_sizes, .concat_dim = concat_dim));
}

tcomm_status_t tcomm_reduce_scatter_v(tcomm_comm_t *comm,
                                      const tcomm_tensor_t *in, tcomm_op_t op,
                                      int dim, const size_t *sizes,
                                      tcomm_tensor_t **out)
{
    return run(comm,
               CALL(TCOMM_COLL_REDUCE_SCATTER_V, "tcomm_reduce_scatter_v",
                    .in = in, .out = out, .op = op, .dim = dim,
                    .vsizes = sizes));
}
