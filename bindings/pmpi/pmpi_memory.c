/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Alloc_mem and MPI_Free_mem: blocks of tcomm's shared tensor arena
 * (a tensor of tcomm's host graph), so that a program's buffers from
 * MPI_Alloc_mem take the collectives' mapped-arena paths (a peer copies
 * with memcpy) instead of the paths for foreign memory (cross-memory
 * attach). The arena holds blocks of 4 KiB and more (TCOMM_SINGLE_COPY
 * in `tcomm_info`): smaller ones, and every call under TCOMM_PMPI=0 or
 * where tcomm cannot allocate, go to MPI. MPI_Free_mem knows its blocks
 * by address; any other pointer goes to PMPI_Free_mem. Blocks still
 * allocated at MPI_Finalize stay valid (the graph then outlives it). */
#include <pthread.h>
#include <stdlib.h>

#include "tcomm_pmpi.h"

#define ARENA_MIN 4096 /* the arena's smallest block */

typedef struct block {
    void *base;
    tcomm_tensor_t *t;
    struct block *next;
} block_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block_t *blocks;

TCOMM_PMPI_EXPORT int MPI_Alloc_mem(MPI_Aint size, MPI_Info info,
                                    void *baseptr)
{
    const tcomm_pmpi_fn_t fn = PMPI_FN_ALLOC_MEM;
    tcomm_graph_t *g = NULL;
    tcomm_tensor_t *t = NULL;
    block_t *b = NULL;
    if (tcomm_pmpi_on && !tcomm_pmpi_inside && size >= ARENA_MIN && baseptr)
        g = tcomm_pmpi_graph();
    size_t bytes = (size_t)size;
    if (g && (b = malloc(sizeof *b)) != NULL &&
        tcomm_tensor_empty(g, TCOMM_U8, 1, &bytes, &t) != TCOMM_SUCCESS)
        t = NULL;
    if (!t) {
        free(b);
        tcomm_pmpi_passed(fn, MPI_COMM_NULL);
        return PMPI_Alloc_mem(size, info, baseptr);
    }
    double t0 = tcomm_pmpi_now();
    b->base = tcomm_tensor_data(t);
    b->t = t;
    pthread_mutex_lock(&lock);
    b->next = blocks;
    blocks = b;
    pthread_mutex_unlock(&lock);
    *(void **)baseptr = b->base;
    tcomm_pmpi_handled(fn, bytes, t0);
    return MPI_SUCCESS;
}

TCOMM_PMPI_EXPORT int MPI_Free_mem(void *base)
{
    block_t *b = NULL;
    pthread_mutex_lock(&lock);
    for (block_t **p = &blocks; *p; p = &(*p)->next)
        if ((*p)->base == base) {
            b = *p;
            *p = b->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    if (!b)
        return PMPI_Free_mem(base);
    tcomm_tensor_release(b->t);
    free(b);
    return MPI_SUCCESS;
}

int tcomm_pmpi_blocks_live(void)
{
    pthread_mutex_lock(&lock);
    int live = blocks != NULL;
    pthread_mutex_unlock(&lock);
    return live;
}
