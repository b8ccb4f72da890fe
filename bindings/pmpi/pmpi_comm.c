/* SPDX-License-Identifier: BSD-3-Clause */
/* The tcomm handle of each MPI communicator, cached as an attribute.
 *
 * tcomm calls MPI itself: on the caller's thread inside a taken call
 * (tcomm_pmpi_inside is set, so those calls pass straight to PMPI_), and
 * on a communicator's progress thread. The communicators tcomm makes
 * (its dup of the user's, the node communicators split from that) carry
 * the INTERNAL mark in the same attribute, so that a call on them from
 * any thread also passes straight to PMPI_: the copy callback hands the
 * mark to dups made inside tcomm and to dups of marked communicators,
 * and MPI_Comm_split_type below marks splits of them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tcomm_pmpi.h"

__thread int tcomm_pmpi_inside;

typedef struct cached {
    tcomm_comm_t *tc; /* NULL: every call on this communicator passes */
    int size, rank;
    int multiple; /* every rank has MPI_THREAD_MULTIPLE */
    int pending;  /* nonblocking calls in flight (under live_lock) */
    int orphan;   /* comm was freed with calls in flight: the last one's
                     end destroys tc */
    tcomm_pmpi_backoff_t a2av; /* MPI_Alltoallv's (pmpi_alltoallv.c) */
    MPI_Comm comm;
    struct cached *prev, *next; /* live handles, freed at MPI_Finalize */
} cached_t;

static cached_t internal_mark; /* the value of a tcomm-made communicator */
static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static cached_t live = {.prev = &live, .next = &live};
static tcomm_graph_t *graph;

static int copy_attr(MPI_Comm old, int key, void *extra, void *in,
                     void *out, int *flag)
{
    (void)old, (void)key, (void)extra;
    /* a user's dup gets its own handle on first use */
    *flag = in == &internal_mark || tcomm_pmpi_inside;
    *(void **)out = &internal_mark;
    return MPI_SUCCESS;
}

static void destroy(cached_t *c)
{
    if (c->tc) {
        tcomm_pmpi_inside++;
        tcomm_comm_destroy(c->tc);
        tcomm_pmpi_inside--;
    }
    free(c);
}

/* MPI lets a communicator be freed with nonblocking calls in flight:
 * they complete, and then the handle goes (tcomm_pmpi_comm_release). */
static int delete_attr(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    cached_t *c = value;
    if (c == &internal_mark)
        return MPI_SUCCESS;
    pthread_mutex_lock(&live_lock);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    c->orphan = c->pending > 0;
    pthread_mutex_unlock(&live_lock);
    if (!c->orphan)
        destroy(c);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    if (PMPI_Comm_create_keyval(copy_attr, delete_attr, &keyval, NULL) !=
        MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

int tcomm_pmpi_internal(MPI_Comm comm)
{
    void *v;
    int flag = 0;
    pthread_once(&keyval_once, make_keyval);
    return keyval != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL &&
           PMPI_Comm_get_attr(comm, keyval, &v, &flag) == MPI_SUCCESS &&
           flag && v == &internal_mark;
}

TCOMM_PMPI_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key,
                                          MPI_Info info, MPI_Comm *out)
{
    int rc = PMPI_Comm_split_type(comm, type, key, info, out);
    if (rc == MPI_SUCCESS && *out != MPI_COMM_NULL &&
        (tcomm_pmpi_inside || tcomm_pmpi_internal(comm)))
        PMPI_Comm_set_attr(*out, keyval, &internal_mark);
    return rc;
}

static pthread_once_t graph_once = PTHREAD_ONCE_INIT;

static void make_graph(void)
{
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    if (tcomm_graph_create(host, &graph) != TCOMM_SUCCESS)
        graph = NULL;
}

tcomm_graph_t *tcomm_pmpi_graph(void)
{
    pthread_once(&graph_once, make_graph);
    return graph;
}

/* A new handle over comm, agreed by every rank (one failure: none).
 * comm carries it (as the attribute) before tcomm dups comm, so that
 * the copy callback marks tcomm's dup INTERNAL: a communicator without
 * the attribute would hand none to its dups. */
static cached_t *create(MPI_Comm comm)
{
    cached_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL; /* cannot go on: 64 bytes of memory are missing */
    c->comm = comm;
    pthread_mutex_lock(&live_lock);
    c->next = live.next;
    c->prev = &live;
    live.next->prev = c;
    live.next = c;
    pthread_mutex_unlock(&live_lock);
    PMPI_Comm_set_attr(comm, keyval, c);
    int ok = tcomm_pmpi_graph() != NULL;
    PMPI_Comm_size(comm, &c->size);
    PMPI_Comm_rank(comm, &c->rank);
    tcomm_pmpi_inside++;
    if (ok && (tcomm_comm_create_mpi(comm, &c->tc) != TCOMM_SUCCESS ||
               tcomm_comm_set_attr(c->tc, TCOMM_ATTR_CHECK, 0) !=
                   TCOMM_SUCCESS))
        ok = 0;
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    int mine[2] = {ok, level == MPI_THREAD_MULTIPLE}, both[2];
    PMPI_Allreduce(mine, both, 2, MPI_INT, MPI_MIN, comm);
    int all = both[0];
    c->multiple = both[1];
    if (!all && c->tc) {
        tcomm_comm_destroy(c->tc);
        c->tc = NULL;
    }
    tcomm_pmpi_inside--;
    if (!all && tcomm_pmpi_report_on && c->rank == 0)
        fprintf(stderr, "tcomm_pmpi: a communicator of %d ranks stays "
                "with MPI: %s\n", c->size, tcomm_last_error());
    return c;
}

static cached_t *lookup(MPI_Comm comm)
{
    void *v;
    int flag = 0, inter = 0;
    pthread_once(&keyval_once, make_keyval);
    if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS)
        return NULL;
    cached_t *c = v;
    if (!flag) {
        if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
            return NULL; /* inter is the same on every rank */
        c = create(comm);
        if (!c)
            return NULL;
    } else if (c == &internal_mark) {
        return NULL;
    }
    return c;
}

tcomm_comm_t *tcomm_pmpi_comm(MPI_Comm comm, int *size, int *rank)
{
    cached_t *c = lookup(comm);
    if (!c)
        return NULL;
    *size = c->size;
    *rank = c->rank;
    return c->tc;
}

tcomm_comm_t *tcomm_pmpi_comm_a2av(MPI_Comm comm, int *size, int *rank,
                                   tcomm_pmpi_backoff_t **backoff)
{
    cached_t *c = lookup(comm);
    if (!c || !c->tc)
        return NULL;
    *size = c->size;
    *rank = c->rank;
    *backoff = &c->a2av;
    return c->tc;
}

tcomm_comm_t *tcomm_pmpi_comm_acquire(MPI_Comm comm, int *size, int *rank,
                                      void **key)
{
    cached_t *c = lookup(comm);
    if (!c || !c->tc || !c->multiple)
        return NULL;
    pthread_mutex_lock(&live_lock);
    c->pending++;
    pthread_mutex_unlock(&live_lock);
    *size = c->size;
    *rank = c->rank;
    *key = c;
    return c->tc;
}

void tcomm_pmpi_comm_release(void *key)
{
    cached_t *c = key;
    pthread_mutex_lock(&live_lock);
    int last = --c->pending == 0 && c->orphan;
    pthread_mutex_unlock(&live_lock);
    if (last)
        destroy(c);
}

void tcomm_pmpi_free_all(void)
{
    for (;;) {
        pthread_mutex_lock(&live_lock);
        cached_t *c = live.next == &live ? NULL : live.next;
        pthread_mutex_unlock(&live_lock);
        if (!c)
            break;
        /* the delete callback unlinks and destroys it */
        PMPI_Comm_delete_attr(c->comm, keyval);
    }
    /* blocks of MPI_Alloc_mem not yet freed keep the graph */
    if (graph && !tcomm_pmpi_blocks_live()) {
        tcomm_graph_destroy(graph);
        graph = NULL;
    }
}
