/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_TIMEOUT for the MPI backend. A rank that never arrives blocks
 * every other rank in the first exchange of a collective (the agreement
 * round, which runs in unchecked mode too when a timeout is set: it
 * carries the call's kind and sequence number, so that no other call can
 * complete it), so with a timeout these
 * exchanges run as MPI_Iallreduce / MPI_Iallgather / MPI_Ibarrier polled
 * with MPI_Test until a deadline. Once they complete every rank has
 * arrived, and the data phase runs as usual: its buffers are the
 * caller's, and a request left pending on them could write into a tensor
 * after the call returned.
 *
 * Naming the missing ranks: the ranks of a node share a small POSIX
 * shared memory segment with one cache line per rank holding the
 * sequence number of the collective it last entered, stored with a plain
 * atomic store when it enters, and a header line recording that some
 * rank gave up. Reading it needs no progress from the target, so a
 * sleeping or spinning rank is still seen, and unlike an MPI window it is
 * released without a collective call. Ranks on other nodes cannot be
 * queried this way and are reported as such. A rank that gives up leaves
 * its request pending (MPI cannot cancel a collective) and marks the
 * header, so that a late rank entering its next collective returns
 * TCOMM_ERR_COMM_FAILED instead of waiting for peers that have left.
 *
 * Cost per collective with a timeout: a timestamp, a counter store and a
 * load of the header, plus the nonblocking form of the exchange. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_node_shm_map.h"
#include "tcomm_timeout.h"

#define SPINS_PER_CHECK 64

typedef struct {
    _Atomic int64_t entered; /* seq of the collective last entered */
    _Atomic int64_t gave_up; /* seq this rank gave up on, 0: never */
} slot_t;

struct tcomm_timeout {
    double seconds;
    uint64_t seq;    /* the collective the deadline belongs to */
    double deadline; /* MPI_Wtime() */
    int rank, size;  /* in the communicator */
    int nnode, me;        /* node size, our node rank */
    int *comm_rank;       /* node rank -> communicator rank */
    char *hosts;          /* every rank's host name (timeout_hosts.c) */
    char *lines;          /* header line, then one line per node rank */
    size_t lines_len;
    int private_lines;    /* no shared memory: lines is ours alone */
    unsigned char *buf;   /* what pending requests read and write */
    size_t buf_len;
    int pending;          /* a request on buf was abandoned */
    const tcomm_comm_t *owner; /* its handle: is anybody waiting? */
    struct tcomm_timeout *next_parked;
};

void tcomm_timeout_set_owner(tcomm_timeout_t *t, const tcomm_comm_t *owner)
{
    if (t)
        t->owner = owner;
}

/* States whose request was abandoned: MPI may still write into their
 * buffer, so they are parked here, reachable, until the process ends. */
static _Atomic(struct tcomm_timeout *) parked;

static _Atomic int64_t *header(tcomm_timeout_t *t)
{
    return (_Atomic int64_t *)t->lines;
}

static slot_t *slot(tcomm_timeout_t *t, int node_rank)
{
    return (slot_t *)(t->lines +
                      TCOMM_CACHE_LINE * (1 + (size_t)node_rank));
}

static int map_lines(tcomm_timeout_t *t, MPI_Comm node)
{
    void *p;
    t->lines_len = TCOMM_CACHE_LINE * (1 + (size_t)t->nnode);
    int rc = tcomm_node_shm_map(node, t->lines_len, &p);
    t->lines = p;
    return rc;
}

tcomm_status_t tcomm_timeout_create(MPI_Comm comm, double seconds,
                                    tcomm_timeout_t **out)
{
    tcomm_timeout_t *t = calloc(1, sizeof *t);
    if (!t)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_comm_create_mpi: out of host memory");
    t->seconds = seconds;
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &t->rank);
    MPI_Comm_size(comm, &t->size);
    int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0,
                                 MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_rank(node, &t->me);
        MPI_Comm_size(node, &t->nnode);
        rc = map_lines(t, node);
    }
    t->comm_rank = malloc((size_t)t->nnode * 2 * sizeof(int) + 1);
    t->buf_len = 4096;
    t->buf = malloc(t->buf_len);
    if (rc == MPI_SUCCESS && (!t->comm_rank || !t->buf))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && !t->lines) {
        /* no shared memory: a private record of this rank alone */
        t->nnode = 1;
        t->me = 0;
        t->comm_rank[0] = t->rank;
        t->lines_len = 2 * TCOMM_CACHE_LINE;
        t->lines = calloc(1, t->lines_len);
        t->private_lines = 1;
        if (!t->lines)
            rc = MPI_ERR_NO_MEM;
    } else if (rc == MPI_SUCCESS) {
        int *ids = t->comm_rank + t->nnode;
        MPI_Group g_node, g_comm;
        for (int i = 0; i < t->nnode; i++)
            ids[i] = i;
        MPI_Comm_group(node, &g_node);
        MPI_Comm_group(comm, &g_comm);
        rc = MPI_Group_translate_ranks(g_node, t->nnode, ids, g_comm,
                                       t->comm_rank);
        MPI_Group_free(&g_node);
        MPI_Group_free(&g_comm);
    }
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    if (rc == MPI_SUCCESS && t->nnode < t->size)
        rc = tcomm_timeout_hosts_gather(comm, &t->hosts);
    if (rc != MPI_SUCCESS) {
        tcomm_status_t st = tcomm_mpi_status(rc, "tcomm_comm_create_mpi "
                                                 "(TCOMM_TIMEOUT record)",
                                             __FILE__, __LINE__);
        tcomm_timeout_destroy(t, 0);
        return st;
    }
    *out = t;
    return TCOMM_SUCCESS;
}

void tcomm_timeout_destroy(tcomm_timeout_t *t, int failed)
{
    (void)failed; /* nothing here waits for a peer */
    if (!t)
        return;
    if (t->lines && t->private_lines)
        free(t->lines);
    else if (t->lines)
        munmap(t->lines, t->lines_len);
    free(t->comm_rank);
    free(t->hosts);
    t->hosts = NULL;
    if (t->pending) { /* MPI may still write into buf: park it */
        t->next_parked = atomic_load(&parked);
        while (!atomic_compare_exchange_weak(&parked, &t->next_parked, t))
            ;
        return;
    }
    free(t->buf);
    free(t);
}

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* The ranks of this node that have not entered collective seq (their
 * communicator ranks, sorted, in late[]); *last: what the first of them
 * last entered. */
static int find_late(tcomm_timeout_t *t, uint64_t seq, int *late,
                     int64_t *last)
{
    int n = 0;
    for (int i = 0; i < t->nnode; i++) {
        int64_t e = atomic_load(&slot(t, i)->entered);
        if (e < (int64_t)seq) {
            if (n == 0 || t->comm_rank[i] < late[0])
                *last = e;
            late[n++] = t->comm_rank[i];
        }
    }
    qsort(late, (size_t)n, sizeof *late, by_value);
    return n;
}

/* Above this many ranks a timeout counts the ranks on other nodes
 * instead of naming them (naming compares host names pairwise). */
#define HOSTS_NAMED_MAX 4096

static tcomm_status_t timed_out(tcomm_timeout_t *t, uint64_t seq,
                                const char *call)
{
    int64_t none = 0, mine = (int64_t)seq;
    atomic_compare_exchange_strong(header(t), &none, mine);
    atomic_store(&slot(t, t->me)->gave_up, mine);
    t->pending = 1;
    int *late = malloc((size_t)t->nnode * sizeof *late + 1);
    int64_t last = 0;
    int nlate = late ? find_late(t, seq, late, &last) : 0;
    char who[512] = "", off[512] = "", where[400] = "";
    if (nlate == 1)
        snprintf(who, sizeof who, ": rank %d has not arrived (it last "
                                  "entered call %lld)",
                 late[0], (long long)last);
    else if (nlate > 1) {
        char list[400];
        tcomm_timeout_rank_list(late, nlate, list, sizeof list);
        snprintf(who, sizeof who, ": ranks %s have not arrived", list);
    }
    int away = t->size - t->nnode;
    if (away > 0 && t->hosts && t->size <= HOSTS_NAMED_MAX)
        tcomm_timeout_hosts_away(t->hosts, t->size, t->comm_rank, t->nnode,
                                 where, sizeof where);
    if (away > 0)
        snprintf(off, sizeof off, "%s%d other rank%s could not be queried "
                                  "(not sharing memory with this one%s%s)",
                 nlate ? "; " : ": ", away, away > 1 ? "s" : "",
                 where[0] ? ": " : "", where);
    else if (nlate == 0)
        snprintf(off, sizeof off, ": every rank entered it but it did not "
                                  "complete");
    free(late);
    return tcomm_error(TCOMM_ERR_TIMEOUT,
                       "tcomm: call %llu on this communicator did not "
                       "complete within %g s in %s%s%s; the communicator "
                       "is now "
                       "unusable (find why the ranks are late, raise "
                       "TCOMM_TIMEOUT, or end the job with MPI_Abort)",
                       (unsigned long long)seq, t->seconds, call, who, off);
}

/* A peer gave up on this communicator: name the first that did. */
static tcomm_status_t peer_gave_up(tcomm_timeout_t *t, uint64_t seq)
{
    int who = -1;
    int64_t at = 0;
    for (int i = 0; i < t->nnode; i++) {
        int64_t g = atomic_load(&slot(t, i)->gave_up);
        if (g && (who < 0 || t->comm_rank[i] < who)) {
            who = t->comm_rank[i];
            at = g;
        }
    }
    atomic_store(&slot(t, t->me)->gave_up, (int64_t)seq);
    return tcomm_error(TCOMM_ERR_COMM_FAILED,
                       "tcomm: call %llu on this communicator cannot "
                       "complete: rank %d gave up on call %lld after "
                       "TCOMM_TIMEOUT=%g s; the communicator is unusable "
                       "(destroy it, or end the job with MPI_Abort)",
                       (unsigned long long)seq, who, (long long)at,
                       t->seconds);
}

/* Entering collective seq: a timestamp, a counter store, a load. */
static tcomm_status_t enter(tcomm_timeout_t *t, uint64_t seq)
{
    if (seq != t->seq) {
        t->seq = seq;
        t->deadline = MPI_Wtime() + t->seconds;
        atomic_store(&slot(t, t->me)->entered, (int64_t)seq);
    }
    if (atomic_load(header(t)))
        return peer_gave_up(t, seq);
    return TCOMM_SUCCESS;
}

static tcomm_status_t wait_until_deadline(tcomm_timeout_t *t,
                                          MPI_Request *req,
                                          const char *call)
{
    for (unsigned spins = 1;; spins++) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            t->pending = 1;
            return tcomm_mpi_status(rc, call, __FILE__, __LINE__);
        }
        if (done)
            break;
        if (spins % SPINS_PER_CHECK)
            continue;
        if (atomic_load(header(t))) {
            /* a peer gave up: still a timeout if some rank is missing */
            int64_t last;
            int *late = malloc((size_t)t->nnode * sizeof *late + 1);
            int n = late ? find_late(t, t->seq, late, &last) : 0;
            free(late);
            if (n > 0)
                return timed_out(t, t->seq, call);
            t->pending = 1;
            return peer_gave_up(t, t->seq);
        }
        if (t->owner && tcomm_comm_unwaited(t->owner)) /* a request */
            t->deadline = MPI_Wtime() + t->seconds; /* bounds the wait */
        if (MPI_Wtime() > t->deadline) {
            rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && done)
                break;
            return timed_out(t, t->seq, call);
        }
    }
    if (atomic_load(header(t))) /* completed, but a peer has left */
        return peer_gave_up(t, t->seq);
    return TCOMM_SUCCESS;
}

static tcomm_status_t reserve(tcomm_timeout_t *t, size_t bytes)
{
    if (bytes <= t->buf_len)
        return TCOMM_SUCCESS;
    unsigned char *b = realloc(t->buf, bytes);
    if (!b)
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "tcomm: out of host memory");
    t->buf = b;
    t->buf_len = bytes;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_timeout_allreduce_min_i64(tcomm_timeout_t *t,
                                               MPI_Comm comm, uint64_t seq,
                                               int64_t *values, int count)
{
    size_t bytes = (size_t)count * sizeof *values;
    TCOMM_TRY(enter(t, seq));
    TCOMM_TRY(reserve(t, bytes));
    memcpy(t->buf, values, bytes);
    MPI_Request req;
    TCOMM_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, t->buf, count, MPI_INT64_T,
                                   MPI_MIN, comm, &req));
    TCOMM_TRY(
        wait_until_deadline(t, &req, "the agreement round (MPI_Iallreduce)"));
    memcpy(values, t->buf, bytes);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_timeout_allgather_bytes(tcomm_timeout_t *t,
                                             MPI_Comm comm, uint64_t seq,
                                             const void *mine, void *all,
                                             size_t bytes)
{
    size_t total = bytes * (size_t)t->size;
    TCOMM_TRY(enter(t, seq));
    TCOMM_TRY(reserve(t, total));
    memcpy(t->buf + bytes * (size_t)t->rank, mine, bytes);
    MPI_Request req;
    TCOMM_MPI_CHECK(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                                   t->buf, (int)bytes, MPI_BYTE, comm,
                                   &req));
    TCOMM_TRY(
        wait_until_deadline(t, &req, "the agreement round (MPI_Iallgather)"));
    memcpy(all, t->buf, total);
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_timeout_barrier(tcomm_timeout_t *t, MPI_Comm comm,
                                     uint64_t seq)
{
    TCOMM_TRY(enter(t, seq));
    MPI_Request req;
    TCOMM_MPI_CHECK(MPI_Ibarrier(comm, &req));
    return wait_until_deadline(t, &req, "the barrier (MPI_Ibarrier)");
}

tcomm_status_t tcomm_timeout_scratch(tcomm_timeout_t *t, size_t bytes,
                                     void **scratch)
{
    TCOMM_TRY(reserve(t, bytes ? bytes : 1));
    *scratch = t->buf;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_timeout_wait(tcomm_timeout_t *t, uint64_t seq,
                                  MPI_Request *req, const char *call)
{
    TCOMM_TRY(enter(t, seq));
    return wait_until_deadline(t, req, call);
}

tcomm_status_t tcomm_timeout_node_failed(tcomm_timeout_t *t, uint64_t seq,
                                         const char *call)
{
    if (atomic_load(header(t)))
        return peer_gave_up(t, seq);
    atomic_store(&slot(t, t->me)->gave_up, (int64_t)seq);
    atomic_store(header(t), (int64_t)seq);
    return tcomm_error(TCOMM_ERR_COMM_FAILED,
                       "tcomm: call %llu on this communicator cannot "
                       "complete: a rank of this node failed in %s (its "
                       "own error names the cause); the communicator is "
                       "unusable (destroy it, or end the job with "
                       "MPI_Abort)",
                       (unsigned long long)seq, call);
}
