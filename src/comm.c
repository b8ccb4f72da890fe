/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicator lifecycle: any backend behind one handle. */
#include <stdlib.h>

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
    TCOMM_INFO(rank, "communicator over %s: %d ranks, check %d, "
                     "deterministic %d, cuda-aware %d",
               ops->name, size, c->check, c->deterministic, cuda_aware);
    *comm = c;
    return TCOMM_SUCCESS;
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
    if (!ops->name || !ops->query || !ops->all_reduce || !ops->all_gather ||
        !ops->reduce_scatter || !ops->broadcast || !ops->barrier)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: the vtable lacks a required entry (set "
                           "name, query and all five collectives)",
                           fn);
    return tcomm_comm_wrap_backend(ops, state, comm);
}

tcomm_status_t tcomm_comm_create_identity(tcomm_comm_t **comm)
{
    tcomm_error_clear();
    if (!comm)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_comm_create_identity: comm is NULL (pass "
                           "the address of a tcomm_comm_t pointer)");
    return tcomm_comm_wrap_backend(&tcomm_backend_identity, NULL, comm);
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
    if (comm->ops->destroy)
        comm->ops->destroy(comm->state);
    free(comm);
    return TCOMM_SUCCESS;
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
    switch (attr) {
    case TCOMM_ATTR_CHECK: comm->check = value; return TCOMM_SUCCESS;
    case TCOMM_ATTR_DETERMINISTIC:
        comm->deterministic = value;
        return TCOMM_SUCCESS;
    }
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "%s: attribute %d is not a tcomm_comm_attr_t (use "
                       "TCOMM_ATTR_CHECK or TCOMM_ATTR_DETERMINISTIC)",
                       fn, (int)attr);
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
    switch (attr) {
    case TCOMM_ATTR_CHECK: *value = comm->check; return TCOMM_SUCCESS;
    case TCOMM_ATTR_DETERMINISTIC:
        *value = comm->deterministic;
        return TCOMM_SUCCESS;
    }
    return tcomm_error(TCOMM_ERR_INVALID_ARG,
                       "%s: attribute %d is not a tcomm_comm_attr_t (use "
                       "TCOMM_ATTR_CHECK or TCOMM_ATTR_DETERMINISTIC)",
                       fn, (int)attr);
}
