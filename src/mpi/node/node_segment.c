/* SPDX-License-Identifier: BSD-3-Clause */
/* The node's shared segment (mapped with node_shm_map.c), for MPI
 * communicators whose ranks are all on one node. First, the agreement's
 * first exchange (an element-wise minimum of a few int64) through it.
 * Why: the agreement costs one MPI_Allreduce per checked collective
 * (~0.5 us on 2 ranks here), as much as a small broadcast itself; the
 * ranks of one node can meet in a shared segment for the price of the
 * cache lines that move (~0.1-0.2 us).
 *
 * Every rank owns two slots (one per parity of the round number), each a
 * round number and the values. A rank writes its values, publishes the
 * round with a release store, then waits until every peer's slot of that
 * parity shows the same round and takes the minimum. A slot is rewritten
 * two rounds later at the earliest, and a rank can only start round g+2
 * after every rank has published round g+1, which each does after
 * reading round g: no slot changes under a reader.
 *
 * The agreement's values are [s, -s] (minimum and maximum at once): then
 * only s is published, so that round number and values share one cache
 * line, the one line that has to move per peer (0.22 us a round on 2
 * ranks here, against 0.28 us for two lines and 0.6 us for the smallest
 * MPI_Allreduce).
 *
 * While waiting, a rank calls MPI_Iprobe now and then: Open MPI makes
 * progress only inside MPI calls, and a peer may be blocked in an MPI
 * call (a receive matching our earlier MPI_Isend) that needs ours before
 * it can reach the collective. It also yields the core, for ranks that
 * share cores (--oversubscribe).
 *
 * A round can also carry up to TCOMM_SHM_CARRY_MAX bytes per rank, right
 * after the values in the same slot, so that a small call's inputs
 * travel with its agreement (src/frontend/eager.c): a reader sees them
 * complete once it sees the round, and they stay until the rank's next
 * round, by the rule above.
 *
 * The segment also holds a line per rank, a note on its call published
 * with a sequence number, for the single-copy collectives
 * (src/mpi/node/node_call.c). */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tcomm_internal.h"
#include "tcomm_peer_copy.h"
#include "tcomm_node_shm_map.h"
#include "tcomm_node_segment.h"

/* the round, the values and what they carry, in whole cache lines */
#define SLOT_BYTES                                                          \
    ((sizeof(slot_t) + TCOMM_SHM_CARRY_MAX + TCOMM_CACHE_LINE - 1) /        \
     TCOMM_CACHE_LINE * TCOMM_CACHE_LINE)
/* Waiting: pure spins first (a peer that is on its way arrives within
 * a few hundred), then MPI progress every so often, and the core given
 * up once the wait is long (a peer without a core of its own). */
#define SPINS_BEFORE_PROBE 512
#define SPINS_PER_PROBE 64
#define SPINS_BEFORE_YIELD 16384

/* The bytes a round carries follow the values it uses, so that a few
 * share their cache line. */
typedef struct {
    _Atomic uint64_t round;
    int16_t n;     /* values in v */
    int16_t half;  /* v is s of [s, -s]: the reader negates for the rest */
    int32_t carry; /* bytes carried from &v[n] on; -1: none offered */
    int64_t v[TCOMM_NODE_SEGMENT_MIN_MAX];
} slot_t;

typedef struct {
    _Atomic uint64_t seq;
    tcomm_node_note_t note;
} line_t;

_Static_assert(sizeof(line_t) <= TCOMM_CACHE_LINE,
               "a line is one cache line");

typedef struct {
    _Atomic uint64_t set; /* 1 once arena holds this rank's */
    tcomm_node_arena_line_t arena;
} arena_line_t;

_Static_assert(sizeof(arena_line_t) <= TCOMM_CACHE_LINE,
               "an arena line is one cache line");

struct tcomm_node_segment {
    MPI_Comm comm; /* for MPI_Iprobe while waiting */
    int rank, size;
    uint64_t round;
    char *slots; /* [rank][parity], then a line per rank */
    size_t len;
    int *map_slots; /* node_map.c's, per rank */
};

static slot_t *slot(tcomm_node_segment_t *s, int rank, uint64_t round)
{
    return (slot_t *)(s->slots +
                      SLOT_BYTES * (2 * (size_t)rank + (round & 1)));
}

static line_t *line(tcomm_node_segment_t *s, int rank)
{
    return (line_t *)(s->slots + SLOT_BYTES * 2 * (size_t)s->size +
                      TCOMM_CACHE_LINE * (size_t)rank);
}

static arena_line_t *arena_line(tcomm_node_segment_t *s, int rank)
{
    return (arena_line_t *)(s->slots +
                            (SLOT_BYTES * 2 + TCOMM_CACHE_LINE) *
                                (size_t)s->size +
                            TCOMM_CACHE_LINE * (size_t)rank);
}

static size_t segment_bytes(int size)
{
    return (SLOT_BYTES * 2 + 2 * TCOMM_CACHE_LINE) * (size_t)size;
}

int tcomm_node_segment_create(MPI_Comm comm, tcomm_node_segment_t **out)
{
    MPI_Comm node;
    int rc, size, nsize;
    void *p = NULL;

    *out = NULL;
    if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS || size < 2)
        return rc;
    rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                             &node);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm_size(node, &nsize);
    /* the same answer on every rank: either all share the node or none
     * of the node groups is the whole communicator */
    if (nsize == size)
        rc = tcomm_node_shm_map(node, segment_bytes(size), &p);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS || p == NULL)
        return rc;
    tcomm_node_segment_t *s = calloc(1, sizeof *s);
    int *map_slots = calloc((size_t)size, sizeof *map_slots);
    if (!s || !map_slots) { /* the others would wait: no way to agree */
        free(s);
        free(map_slots);
        munmap(p, segment_bytes(size));
        return MPI_ERR_NO_MEM;
    }
    s->map_slots = map_slots;
    s->comm = comm;
    s->slots = p;
    s->len = segment_bytes(size);
    s->size = size;
    MPI_Comm_rank(comm, &s->rank); /* node ranks may be ordered otherwise */
    *out = s;
    return MPI_SUCCESS;
}

void tcomm_node_segment_destroy(tcomm_node_segment_t *s)
{
    if (!s)
        return;
    munmap(s->slots, s->len);
    free(s->map_slots);
    free(s);
}

int tcomm_node_segment_size(const tcomm_node_segment_t *s)
{
    return s->size;
}

int *tcomm_node_segment_map_slots(tcomm_node_segment_t *s)
{
    return s->map_slots;
}

static void wait_for(tcomm_node_segment_t *s, _Atomic uint64_t *word,
                     uint64_t value)
{
    unsigned spins = 0;
    int flag;
    while (atomic_load_explicit(word, memory_order_acquire) != value) {
        if (++spins < SPINS_BEFORE_PROBE || spins % SPINS_PER_PROBE)
            continue;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &flag,
                   MPI_STATUS_IGNORE);
        if (spins >= SPINS_BEFORE_YIELD)
            sched_yield();
    }
}

static int64_t neg(int64_t v) /* as the agreement's: saturated */
{
    return v == INT64_MIN ? INT64_MAX : -v;
}

static int is_plus_minus(const int64_t *v, int count)
{
    if (count % 2)
        return 0;
    for (int i = 0; i < count / 2; i++)
        if (v[count / 2 + i] != neg(v[i]))
            return 0;
    return 1;
}

int tcomm_node_segment_min_carry(tcomm_node_segment_t *s, int64_t *values,
                                 int count, const void *data, size_t bytes,
                                 const void **blocks, size_t *lens)
{
    uint64_t round = ++s->round;
    slot_t *mine = slot(s, s->rank, round);
    int64_t v[TCOMM_NODE_SEGMENT_MIN_MAX];

    mine->half = (int16_t)is_plus_minus(values, count);
    mine->n = (int16_t)(mine->half ? count / 2 : count);
    memcpy(mine->v, values, (size_t)mine->n * sizeof *values);
    memcpy(v, values, (size_t)count * sizeof *values);
    mine->carry = -1;
    if (data && bytes <= TCOMM_SHM_CARRY_MAX) {
        memcpy(&mine->v[mine->n], data, bytes);
        mine->carry = (int32_t)bytes;
    }
    if (blocks) {
        blocks[s->rank] = &mine->v[mine->n];
        lens[s->rank] = (size_t)mine->carry;
    }
    int carried = mine->carry >= 0;
    atomic_store_explicit(&mine->round, round, memory_order_release);
    for (int k = 1; k < s->size; k++) {
        int r = (s->rank + k) % s->size;
        slot_t *peer = slot(s, r, round);
        wait_for(s, &peer->round, round);
        /* a peer's count is read once: it is in shared memory */
        int32_t carry = peer->carry;
        int16_t pn = peer->n;
        if (carry < 0 || carry > TCOMM_SHM_CARRY_MAX || pn < 0 ||
            pn > TCOMM_NODE_SEGMENT_MIN_MAX)
            carried = 0;
        else if (blocks) {
            blocks[r] = &peer->v[pn];
            lens[r] = (size_t)carry;
        }
        for (int i = 0; i < peer->n && i < count; i++) {
            int64_t x = peer->v[i];
            if (x < v[i])
                v[i] = x;
            if (peer->half && neg(x) < v[peer->n + i])
                v[peer->n + i] = neg(x);
        }
    }
    memcpy(values, v, (size_t)count * sizeof *values);
    return carried && blocks;
}

void tcomm_node_segment_min(tcomm_node_segment_t *s, int64_t *values, int count)
{
    tcomm_node_segment_min_carry(s, values, count, NULL, 0, NULL, NULL);
}

void tcomm_node_segment_publish(tcomm_node_segment_t *s, uint64_t seq,
                                const tcomm_node_note_t *note)
{
    line_t *mine = line(s, s->rank);
    mine->note = *note;
    mine->note.pid = (int64_t)getpid();
    mine->note.ns = tcomm_pid_namespace();
    atomic_store_explicit(&mine->seq, seq, memory_order_release);
}

void tcomm_node_segment_peer(tcomm_node_segment_t *s, int rank, uint64_t seq,
                             tcomm_node_note_t *note)
{
    line_t *peer = line(s, rank);
    wait_for(s, &peer->seq, seq);
    *note = peer->note;
}

int tcomm_node_segment_arena_set(tcomm_node_segment_t *s)
{
    /* only this rank writes its line */
    return (int)atomic_load_explicit(&arena_line(s, s->rank)->set,
                                     memory_order_relaxed);
}

void tcomm_node_segment_publish_arena(tcomm_node_segment_t *s,
                                      const tcomm_node_arena_line_t *arena)
{
    arena_line_t *mine = arena_line(s, s->rank);
    mine->arena = *arena;
    mine->arena.pid = (int64_t)getpid();
    mine->arena.ns = tcomm_pid_namespace();
    atomic_store_explicit(&mine->set, 1, memory_order_release);
}

int tcomm_node_segment_peer_arena(tcomm_node_segment_t *s, int rank,
                                  tcomm_node_arena_line_t *arena)
{
    arena_line_t *peer = arena_line(s, rank);
    if (!atomic_load_explicit(&peer->set, memory_order_acquire))
        return 0;
    *arena = peer->arena;
    return 1;
}
