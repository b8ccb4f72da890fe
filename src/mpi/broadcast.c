/* SPDX-License-Identifier: BSD-3-Clause */
/* broadcast on host tensors: its named algorithms, in the order they are
 * tried (src/mpi/algo_select.c chooses; TCOMM_TUNE may put one first).
 * The byte ranges count the tensor's bytes. The root sends from its
 * input (only read by the copies) and keeps a copy in out unless the
 * call is in place. */
#include "tcomm_hier.h"
#include "tcomm_mpi_algo.h"
#include "tcomm_mpi_kernels.h"
#include "tcomm_node_broadcast.h"
#include "tcomm_node_call.h"

static void *buffer(const tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    return st->rank == a->root ? a->in->data : a->out->data;
}

static tcomm_status_t root_copy(const tcomm_mpi_state_t *st,
                                const tcomm_coll_args_t *a)
{
    if (st->rank == a->root && a->out != a->in)
        return tcomm_tensor_copy(a->in, a->out);
    return TCOMM_SUCCESS;
}

/* The shared copy (src/mpi/node/node_broadcast.c): its tier (no more ranks
 * than cores; attach from TCOMM_NODE_BROADCAST_MIN per receiver) is the node
 * code's; a failed copy on any rank sends every rank on. */
static tcomm_status_t shm_run(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    int done = 0, tier = tcomm_node_broadcast_applies(st, a->in->nbytes);
    if (tier == TCOMM_NODE_MPI)
        return TCOMM_MPI_NOT_APPLIED;
    TCOMM_MPI_CHECK(tcomm_node_broadcast(st, buffer(st, a), a->in->nbytes,
                                         a->root, tier, &done));
    return done ? root_copy(st, a) : TCOMM_MPI_NOT_APPLIED;
}

static tcomm_status_t mpi_run(tcomm_mpi_state_t *st, const tcomm_coll_args_t *a)
{
    TCOMM_MPI_CHECK(tcomm_mpi_bcast(buffer(st, a), a->in->numel, a->in->dtype,
                                    a->root, st->comm));
    return root_copy(st, a);
}

static const tcomm_mpi_algo_t algos[] = {
    {TCOMM_PATH_NODE_BROADCAST, "shared copy on one node",
     TCOMM_NODE_MAPPED_MIN, TCOMM_MPI_ANY_SIZE, tcomm_mpi_one_node, shm_run},
    {TCOMM_PATH_HIER_BROADCAST, "two levels, one rank per node across nodes", 0,
     TCOMM_MPI_ANY_SIZE, tcomm_hier_broadcast_applies,
     tcomm_hier_broadcast_run},
    {TCOMM_PATH_MPI_BCAST, "MPI_Bcast on host buffers", 0, TCOMM_MPI_ANY_SIZE,
     NULL, mpi_run},
};

TCOMM_MPI_TABLE(tcomm_mpi_broadcast_table, TCOMM_COLL_BROADCAST, "broadcast",
                "tensor bytes", tcomm_mpi_input_bytes);
