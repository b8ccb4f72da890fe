/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicator lifecycle: any backend behind one handle. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_config.h"
#include "tcomm_internal.h"
#include "tcomm_log.h"

tcomm_status_t tcomm_comm_wrap_backend(const tcomm_backend_ops_t *ops,
                                       void *state, tcomm_comm_t **comm)
{
    tcomm_comm_t *c = calloc(1, sizeof *c);
    if (!c)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_comm_create: out of host memory");
    int rank = 0, size = 1, cuda_aware = 0;
    tcomm_status_t st = ops->query(state, &rank, &size, &cuda_aware);
    if (st != TCOMM_SUCCESS) {
        free(c);
        return st;
    }
    if (size < 1 || rank < 0 || rank >= size) {
        free(c);
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_comm_create: backend %s reports rank %d "
                           "of world size %d (fix its query function)",
                           ops->name, rank, size);
    }
    const tcomm_config_t *cfg = tcomm_config();
    c->ops = ops;
    c->state = state;
    c->rank = rank;
    c->world_size = size;
    c->cuda_aware = cuda_aware;
    c->check = cfg->check;
    c->deterministic = cfg->deterministic;
    c->timed = cfg->timeout_s > 0;
    c->progress_thread_ok = 1; /* MPI-based backends say otherwise */
    TCOMM_INFO(rank, "communicator over %s: %d ranks, check %d, "
                     "deterministic %d, cuda-aware %d",
               ops->name, size, c->check, c->deterministic, cuda_aware);
    *comm = c;
    return TCOMM_SUCCESS;
}

/* The slots of contract 0.1's table, which had no size field. */
#define OPS_SIZE_0_1                                                        \
    (offsetof(tcomm_backend_ops_t, destroy) + sizeof(void (*)(void)))

int tcomm_backend_has(const tcomm_comm_t *comm, size_t slot)
{
    const tcomm_backend_ops_t *ops = comm->ops;
    size_t size = ops->size ? ops->size : OPS_SIZE_0_1;
    if (slot + sizeof(void (*)(void)) > size)
        return 0;
    void (*op)(void); /* every slot is a function pointer of this size */
    memcpy(&op, (const char *)ops + slot, sizeof op);
    return op != NULL;
}

tcomm_status_t tcomm_comm_create_custom(const tcomm_backend_ops_t *ops,
                                        void *state, tcomm_comm_t **comm)
{
    static const char fn[] = "tcomm_comm_create_custom";
    tcomm_error_clear();
    if (!ops || !comm)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: %s is NULL (pass a backend vtable and the "
                           "address of a tcomm_comm_t pointer)",
                           fn, !ops ? "ops" : "comm");
    /* the collectives may be absent (include/tcomm_backend.h) */
    if (!ops->name || !ops->query)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: the vtable lacks a required entry (set "
                           "name and query)",
                           fn);
    if (ops->size && ops->size < offsetof(tcomm_backend_ops_t, query) +
                                     sizeof ops->query)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: the vtable's size %zu is too small to hold "
                           "name and query (set .size = "
                           "sizeof(tcomm_backend_ops_t))",
                           fn, ops->size);
    return tcomm_comm_wrap_backend(ops, state, comm);
}

tcomm_status_t tcomm_comm_info(const tcomm_comm_t *comm,
                               tcomm_comm_info_t *info)
{
    tcomm_error_clear();
    if (!comm || !info)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_comm_info: %s is NULL (pass a "
                           "communicator and a tcomm_comm_info_t)",
                           !comm ? "comm" : "info");
    info->rank = comm->rank;
    info->world_size = comm->world_size;
    info->backend = comm->ops->name;
    info->cuda_aware = comm->cuda_aware;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_comm_destroy(tcomm_comm_t *comm)
{
    tcomm_error_clear();
    if (!comm)
        return TCOMM_SUCCESS;
    if (comm->stop_progress) /* completes the requests still running */
        comm->stop_progress(comm);
    if (TCOMM_HAS_OP(comm, destroy))
        comm->ops->destroy(comm->state);
    free(comm);
    return TCOMM_SUCCESS;
}

/* The communicator's field behind attr, NULL for an unknown one. */
static int *attr_field(tcomm_comm_t *comm, tcomm_comm_attr_t attr)
{
    switch (attr) {
    case TCOMM_ATTR_CHECK: return &comm->check;
    case TCOMM_ATTR_DETERMINISTIC: return &comm->deterministic;
    }
    return NULL;
}

static tcomm_status_t bad_attr(const char *fn, tcomm_comm_attr_t attr)
{
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "%s: attribute %d is not a tcomm_comm_attr_t (use "
                       "TCOMM_ATTR_CHECK or TCOMM_ATTR_DETERMINISTIC)",
                       fn, (int)attr);
}

tcomm_status_t tcomm_comm_set_attr(tcomm_comm_t *comm,
                                   tcomm_comm_attr_t attr, int value)
{
    static const char fn[] = "tcomm_comm_set_attr";
    tcomm_error_clear();
    if (!comm)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: comm is NULL (pass a communicator)", fn);
    if (value != 0 && value != 1)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: value %d is not 0 or 1 (use 0 or 1)", fn,
                           value);
    int *field = attr_field(comm, attr);
    if (!field)
        return bad_attr(fn, attr);
    /* The requests in flight run with the value they were started under,
     * on every rank alike: complete them first (the thread restarts with
     * the next start), else a rank whose thread had not reached one yet
     * would run it with the new value, its peers with the old. */
    if (comm->stop_progress && *field != value)
        comm->stop_progress(comm);
    *field = value;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_comm_get_attr(const tcomm_comm_t *comm,
                                   tcomm_comm_attr_t attr, int *value)
{
    static const char fn[] = "tcomm_comm_get_attr";
    tcomm_error_clear();
    if (!comm || !value)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: %s is NULL (pass a communicator and an int "
                           "pointer)",
                           fn, !comm ? "comm" : "value");
    const int *field = attr_field((tcomm_comm_t *)comm, attr);
    if (!field)
        return bad_attr(fn, attr);
    *value = *field;
    return TCOMM_SUCCESS;
}
