/* SPDX-License-Identifier: BSD-3-Clause */
/* The identity backend: world size 1. The front end answers every
 * collective itself at world size 1 (zero copy, or a copy into out), so
 * these entries only serve a direct call and keep the vtable complete. */
#include "tcomm_internal.h"

static tcomm_status_t id_query(void *state, int *rank, int *size,
                               int *cuda_aware)
{
    (void)state;
    *rank = 0;
    *size = 1;
    *cuda_aware = 0;
    return TCOMM_SUCCESS;
}

static tcomm_status_t id_allgather_bytes(void *state, const void *mine,
                                         void *all, size_t bytes)
{
    (void)state;
    return tcomm_memspace_host.copy(NULL, all, mine, bytes);
}

static tcomm_status_t id_copy(const tcomm_tensor_t *in, tcomm_tensor_t *out)
{
    return out == in ? TCOMM_SUCCESS : tcomm_tensor_copy(in, out);
}

static tcomm_status_t id_all_reduce(void *state, const tcomm_tensor_t *in,
                                    tcomm_op_t op, tcomm_tensor_t *out)
{
    (void)state, (void)op;
    return id_copy(in, out);
}

static tcomm_status_t id_all_gather(void *state, const tcomm_tensor_t *in,
                                    int dim, const size_t *sizes,
                                    tcomm_tensor_t *out)
{
    (void)state, (void)dim, (void)sizes;
    return id_copy(in, out);
}

static tcomm_status_t id_reduce_scatter(void *state,
                                        const tcomm_tensor_t *in,
                                        tcomm_op_t op, int dim,
                                        tcomm_tensor_t *out)
{
    (void)state, (void)op, (void)dim;
    return id_copy(in, out);
}

static tcomm_status_t id_broadcast(void *state, const tcomm_tensor_t *in,
                                   int root, tcomm_tensor_t *out)
{
    (void)state, (void)root;
    return id_copy(in, out);
}

static tcomm_status_t id_all_to_all(void *state, const tcomm_tensor_t *in,
                                    int split_dim, int concat_dim,
                                    tcomm_tensor_t *out)
{
    (void)state, (void)split_dim, (void)concat_dim;
    return id_copy(in, out);
}

/* One rank: it sends all of in to itself, so out has in's shape. */
static tcomm_status_t id_all_to_all_v(void *state, const tcomm_tensor_t *in,
                                      int split_dim, const size_t *send_sizes,
                                      int concat_dim,
                                      const size_t *recv_sizes,
                                      tcomm_tensor_t *out)
{
    (void)state, (void)split_dim, (void)send_sizes, (void)concat_dim,
        (void)recv_sizes;
    return id_copy(in, out);
}

static tcomm_status_t id_reduce_scatter_v(void *state,
                                          const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          const size_t *sizes,
                                          tcomm_tensor_t *out)
{
    (void)state, (void)op, (void)dim, (void)sizes;
    return id_copy(in, out);
}

static tcomm_status_t id_barrier(void *state)
{
    (void)state;
    return TCOMM_SUCCESS;
}

const tcomm_backend_ops_t tcomm_backend_identity = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "identity",
    .query = id_query,
    .allgather_bytes = id_allgather_bytes,
    .allreduce_min_i64 = NULL,
    .all_reduce = id_all_reduce,
    .all_gather = id_all_gather,
    .reduce_scatter = id_reduce_scatter,
    .broadcast = id_broadcast,
    .barrier = id_barrier,
    .destroy = NULL,
    .all_to_all = id_all_to_all,
    .all_to_all_v = id_all_to_all_v,
    .reduce_scatter_v = id_reduce_scatter_v,
};

tcomm_status_t tcomm_comm_create_identity(tcomm_comm_t **comm)
{
    tcomm_error_clear();
    if (!comm)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_comm_create_identity: comm is NULL (pass "
                           "the address of a tcomm_comm_t pointer)");
    return tcomm_comm_wrap_backend(&tcomm_backend_identity, NULL, comm);
}
