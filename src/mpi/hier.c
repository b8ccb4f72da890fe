/* SPDX-License-Identifier: BSD-3-Clause */
/* The node layout of a communicator that spans several nodes, found once
 * at its creation: which ranks share a node (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED, as MPI sees the cluster, whatever the placement:
 * by slot, by node, round robin, uneven), a child communicator over each
 * node's ranks for the node level, and the communicator across nodes.
 * Every rank learns the whole layout from one MPI_Allgather of each
 * rank's node leader, so every rank decides alike. */
#include <stdlib.h>

#include "tcomm_config.h"
#include "tcomm_mpi.h"
#include "tcomm_hier.h"

/* Numbers the nodes by their lowest rank and fills h from lead[r], the
 * lowest rank of rank r's node; returns the node count. */
static int read_layout(tcomm_hier_t *h, const int *lead, int n, int rank,
                       int *node_of)
{
    int nodes = 0;
    for (int r = 0; r < n; r++)
        if (lead[r] == r)
            node_of[r] = nodes++;
    for (int r = 0; r < n; r++)
        node_of[r] = node_of[lead[r]];
    h->nodes = nodes;
    h->node_index = node_of[rank];
    h->by_slot = 1;
    for (int r = 1; r < n; r++)
        if (node_of[r] != node_of[r - 1] && node_of[r] != node_of[r - 1] + 1)
            h->by_slot = 0;
    int count0 = 0;
    h->node_size = 0;
    for (int r = 0; r < n; r++) {
        count0 += node_of[r] == 0;
        h->node_size += node_of[r] == h->node_index;
    }
    h->equal = n % nodes == 0 && count0 == n / nodes;
    for (int k = 1; h->equal && k < nodes; k++) {
        int c = 0;
        for (int r = 0; r < n; r++)
            c += node_of[r] == k;
        h->equal = c == count0;
    }
    return nodes;
}

/* Keeps each rank's node and node rank, and each node's first rank. */
static tcomm_status_t keep_layout(tcomm_hier_t *h, const int *node_of, int n)
{
    h->node_of = malloc((2 * (size_t)n + h->nodes + 1) * sizeof *h->node_of);
    if (!h->node_of)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_comm_create_mpi: out of host memory for "
                           "the node layout");
    h->local_of = h->node_of + n;
    h->node_first = h->local_of + n;
    for (int k = 0; k <= h->nodes; k++)
        h->node_first[k] = 0; /* counts the ranks seen per node first */
    for (int r = 0; r < n; r++) {
        h->node_of[r] = node_of[r];
        h->local_of[r] = h->node_first[node_of[r]]++;
    }
    for (int k = 0; k <= h->nodes; k++)
        h->node_first[k] = n;
    for (int r = n - 1; r >= 0; r--)
        if (h->local_of[r] == 0)
            h->node_first[node_of[r]] = r;
    return TCOMM_SUCCESS;
}

void tcomm_hier_locate(const tcomm_hier_t *h, int rank, int *node,
                       int *node_rank)
{
    *node = h->node_of[rank];
    *node_rank = h->local_of[rank];
}

void tcomm_hier_destroy(tcomm_hier_t *h, int failed)
{
    if (!h)
        return;
    if (h->node) {
        h->node->failed = failed ? TCOMM_ERR_MPI : h->node->failed;
        tcomm_comm_destroy(h->node);
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (h->cross != MPI_COMM_NULL && !finalized && !failed)
        MPI_Comm_free(&h->cross);
    free(h->node_of);
    free(h);
}

tcomm_status_t tcomm_hier_create(tcomm_mpi_state_t *st)
{
    st->hier = NULL;
    /* Two ranks are on one node or on two: no level to split. */
    if (!tcomm_config()->hier || st->size < 3)
        return TCOMM_SUCCESS;
    tcomm_status_t s = TCOMM_SUCCESS;
    MPI_Comm node = MPI_COMM_NULL;
    int first, nodes = 0;
    int *lead = malloc(2 * (size_t)st->size * sizeof *lead);
    tcomm_hier_t *h = calloc(1, sizeof *h);
    if (!lead || !h) {
        s = tcomm_error(TCOMM_ERR_NO_MEMORY, "tcomm_comm_create_mpi: out "
                        "of host memory for the node layout");
        goto out;
    }
    h->cross = MPI_COMM_NULL;
    TCOMM_MPI_CHECK_GOTO(MPI_Comm_split_type(st->comm, MPI_COMM_TYPE_SHARED,
                                             0, MPI_INFO_NULL, &node),
                         s, out);
    TCOMM_MPI_CHECK_GOTO(MPI_Allreduce(&st->rank, &first, 1, MPI_INT,
                                       MPI_MIN, node),
                         s, out);
    TCOMM_MPI_CHECK_GOTO(MPI_Allgather(&first, 1, MPI_INT, lead, 1, MPI_INT,
                                       st->comm),
                         s, out);
    nodes = read_layout(h, lead, st->size, st->rank, lead + st->size);
    if (nodes == 1 || nodes == st->size)
        goto out; /* one level only: the flat paths */
    MPI_Comm_rank(node, &h->node_rank);
    if ((s = keep_layout(h, lead + st->size, st->size)) != TCOMM_SUCCESS ||
        (s = tcomm_comm_create_mpi(node, &h->node)) != TCOMM_SUCCESS)
        goto out;
    int color = h->equal ? h->node_rank
                         : h->node_rank == 0 ? 0 : MPI_UNDEFINED;
    TCOMM_MPI_CHECK_GOTO(MPI_Comm_split(st->comm, color, h->node_index,
                                        &h->cross),
                         s, out);
    if (h->cross != MPI_COMM_NULL)
        TCOMM_MPI_CHECK_GOTO(MPI_Comm_set_errhandler(h->cross,
                                                     MPI_ERRORS_RETURN),
                             s, out);
    st->hier = h;
    h = NULL;
out:
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    tcomm_hier_destroy(h, 0);
    free(lead);
    return s;
}

int tcomm_hier_applies(const tcomm_mpi_state_t *st)
{
    return st->hier != NULL;
}

int tcomm_hier_reduces(const tcomm_mpi_state_t *st)
{
    /* The rank-order fold of deterministic mode is the flat one's. */
    return st->hier && !st->owner->deterministic;
}
