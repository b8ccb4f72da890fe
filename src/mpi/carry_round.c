/* SPDX-License-Identifier: BSD-3-Clause */
/* The agreement's round where no node-wide segment exists (ranks on
 * several nodes), carrying small inputs as the shared-memory round does
 * on one node (src/mpi/node/node_segment.c; the front end completes a call
 * whose inputs all came: src/frontend/eager.c).
 *
 * Why: across nodes a checked call otherwise costs two trips over the
 * network, the agreement's MPI_Allreduce and then the collective; a
 * small one now costs one, an MPI_Allgather of a slot per rank.
 *
 * MPI needs the same count on every rank, so the slot's room for data
 * (the cap) cannot follow this call's input. It follows the call
 * before, which every rank saw whole in its round: the smallest class
 * that held every rank's input of it, or none after a call that some
 * rank could not offer (a large one: the next large call then pays for
 * no room it does not use); the first round has the most. So a small
 * call is carried unless the call before it was smaller or large, and a
 * loop of calls of one size from its second call on, each round no
 * larger than its inputs need (on a slow link the room's bytes cost
 * what the data's do). Every rank computes the same cap from the same
 * slots.
 *
 * A round moves every rank's slot to every rank, where an MPI_Allreduce
 * of the summary moves log(n) of them: so it is taken only up to
 * TCOMM_CARRY_RANKS ranks, and its room only as large as keeps the
 * whole round within CARRY_ROUND_BYTES. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_carry_round.h"
#include "tcomm_internal.h"
#include "tcomm_test_hooks.h"

/* the room for data a round may have, the largest TCOMM_EAGER_BYTES;
 * powers of two, so that the room is at most twice what came */
static const size_t caps[] = {0, 64, 128, 256, 512, 1024, 2048, 4096};
#define NCAPS ((int)(sizeof caps / sizeof caps[0]))
#define CARRY_ROUND_BYTES ((size_t)16 << 10) /* n slots' room, at most */

/* A slot: count values, then this rank's offer and what it wanted to
 * offer (bytes, -1: none), then the room. All int64: 8-byte aligned. */
enum { OFFER, WANT, FIELDS };

struct tcomm_carry_round {
    int cap;       /* index into caps, the same on every rank */
    int most;      /* the largest index for this many ranks */
    int64_t *buf;  /* the last round's slots: what blocks point into */
    size_t buf_bytes;
};

void tcomm_carry_round_destroy(tcomm_carry_round_t *r)
{
    if (r)
        free(r->buf);
    free(r);
}

static size_t slot_words(int count, size_t cap)
{
    return (size_t)count + FIELDS + cap / sizeof(int64_t);
}

/* The cap after a round: none where some rank wanted to offer nothing,
 * else the class of the largest wanted offer. */
static int next_cap(const int64_t *all, size_t words, int count, int n)
{
    int64_t most = 0;
    for (int r = 0; r < n; r++) {
        int64_t want = all[(size_t)r * words + (size_t)count + WANT];
        if (want < 0 || (uint64_t)want > caps[NCAPS - 1])
            return 0;
        if (want > most)
            most = want;
    }
    int cap = 0;
    while ((size_t)most > caps[cap] && cap + 1 < NCAPS)
        cap++;
    return cap;
}

/* The largest room n slots may have. */
static int most_cap(int n)
{
    int c = NCAPS - 1;
    while (c > 0 && (size_t)n * caps[c] > CARRY_ROUND_BYTES)
        c--;
    return c;
}

tcomm_status_t tcomm_carry_round(tcomm_mpi_state_t *st, int64_t *values,
                                 int count, const void *mine, size_t bytes,
                                 const void **blocks, size_t *lens,
                                 int *carried)
{
    int n = st->size;
    *carried = 0;
    if (!st->carry) {
        if (!(st->carry = calloc(1, sizeof *st->carry)))
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "the agreement's round: out of host memory");
        st->carry->cap = st->carry->most = most_cap(n);
    }
    tcomm_carry_round_t *r = st->carry;
    size_t cap = caps[r->cap], words = slot_words(count, cap);
    size_t need = (size_t)(n + 1) * words * sizeof(int64_t);
    if (need > r->buf_bytes) {
        int64_t *grown = realloc(r->buf, need);
        if (!grown) /* the same cap everywhere: report, never diverge */
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "the agreement's round: out of host memory "
                               "(%zu bytes)", need);
        r->buf = grown;
        r->buf_bytes = need;
    }
    /* slot n is this rank's outgoing one, after the n received */
    int64_t *out = r->buf + (size_t)n * words;
    memcpy(out, values, (size_t)count * sizeof *values);
    out[count + WANT] = mine ? (int64_t)bytes : -1;
    out[count + OFFER] = mine && bytes <= cap ? (int64_t)bytes : -1;
    size_t put = out[count + OFFER] >= 0 ? bytes : 0;
    if (put)
        memcpy(&out[count + FIELDS], mine, put);
    memset((char *)&out[count + FIELDS] + put, 0, cap - put);
    int bytes_per_slot = (int)(words * sizeof(int64_t));
    TCOMM_MPI_CHECK(MPI_Allgather(out, bytes_per_slot, MPI_BYTE, r->buf,
                                  bytes_per_slot, MPI_BYTE, st->comm));
    int all_came = 1;
    for (int k = 0; k < n; k++) {
        const int64_t *s = r->buf + (size_t)k * words;
        for (int i = 0; i < count; i++)
            if (s[i] < values[i])
                values[i] = s[i];
        int64_t offer = s[count + OFFER];
        if (offer < 0 || (uint64_t)offer > cap) {
            all_came = 0;
        } else if (blocks) {
            blocks[k] = &s[count + FIELDS];
            lens[k] = (size_t)offer;
        }
    }
    r->cap = tcomm_test_hook(TCOMM_HOOK_CARRY_MOST)
                 ? r->most
                 : next_cap(r->buf, words, count, n);
    if (r->cap > r->most)
        r->cap = r->most;
    *carried = all_came && blocks;
    return TCOMM_SUCCESS;
}
