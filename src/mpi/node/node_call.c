/* SPDX-License-Identifier: BSD-3-Clause */
/* The protocol of a single-copy collective on one node (the contract is
 * in tcomm_node_call.h).
 *
 * seq counts the calls that come here on a communicator, the same on
 * every rank (every rank's gate gives the same answer for the same
 * call). A rank rewrites its line only at its next call's begin, and
 * every call ends with a fence that each peer reaches only after it has
 * read every note it needs: no note changes under a reader.
 *
 * Calls that differ (TCOMM_CHECK=0 lets them through) copy nothing: a
 * peer's note names its buffers' lengths and its call's signature, and a
 * rank copies only with a peer whose note matches its own, so that no
 * buffer is overrun and no input overwritten. A pid names the same
 * process only within one PID namespace: a peer in another (a container
 * of its own that shares /dev/shm) counts as a failed copy, never as a
 * copy with whatever process has that pid here. */
#include <stdatomic.h>
#include <unistd.h>

#include "tcomm_node_call.h"
#include "tcomm_node_map.h"
#include "tcomm_test_hooks.h"

uint64_t tcomm_node_sig(int kind, int a, int b, int c)
{
    return (uint64_t)(kind & 0xff) | (uint64_t)(a & 0xff) << 8 |
           (uint64_t)(b & 0xff) << 16 | (uint64_t)(c & 0xffff) << 24;
}

uint64_t tcomm_node_sig_layout(uint64_t sig, const size_t *v, int n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (int i = 0; i < n; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return sig ^ (h ^ h >> 40) << 24;
}

long tcomm_node_cores(void)
{
    /* threads may race to fill it: atomic, and all store the same */
    static _Atomic long cached;
    long cpus = atomic_load_explicit(&cached, memory_order_relaxed);
    if (!cpus) {
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
        atomic_store_explicit(&cached, cpus, memory_order_relaxed);
    }
    return cpus;
}

int tcomm_node_tier(tcomm_mpi_state_t *st, size_t bytes, size_t attach_min)
{
    if (bytes >= attach_min)
        return TCOMM_NODE_ATTACH;
    if (bytes < TCOMM_NODE_MAPPED_MIN)
        return TCOMM_NODE_MPI;
    if (st->map_skip) {
        st->map_skip--;
        return TCOMM_NODE_MPI;
    }
    return TCOMM_NODE_MAPPED;
}

int tcomm_node_copy_allowed(const tcomm_mpi_state_t *st)
{
    return st->segment && st->size > 1 &&
           tcomm_mpi_pull_state(st->comm) != PULL_OFF;
}

void tcomm_node_call_begin(tcomm_node_call_t *c, tcomm_mpi_state_t *st,
                           const tcomm_node_note_t *mine)
{
    c->st = st;
    c->seq = ++st->node_seq;
    c->mine = *mine;
    c->state = tcomm_mpi_pull_state(st->comm);
    c->ok[0] = !tcomm_test_hook(TCOMM_HOOK_PULL_FAIL);
    c->ok[1] = 1;
    c->map_only = 0;
    tcomm_node_map_publish(st->segment); /* before the note that needs it */
    tcomm_node_segment_publish(st->segment, c->seq, mine);
}

void tcomm_node_call_map_only(tcomm_node_call_t *c, size_t in_bytes,
                              size_t out_bytes)
{
    c->map_only = 1;
    c->map_in = in_bytes;
    c->map_out = out_bytes;
}

/* Are the peer's buffers that a mapped-tier call touches mapped? */
static int mapped(const tcomm_node_call_t *c, const tcomm_node_note_t *peer)
{
    pid_t pid = (pid_t)peer->pid;
    return (!c->map_in || tcomm_node_is_mapped(pid, peer->addr, c->map_in)) &&
           (!c->map_out || tcomm_node_is_mapped(pid, peer->out, c->map_out));
}

int tcomm_node_call_peer(tcomm_node_call_t *c, int rank,
                         tcomm_node_note_t *peer)
{
    tcomm_node_segment_peer(c->st->segment, rank, c->seq, peer);
    if (peer->bytes != c->mine.bytes || peer->root != c->mine.root ||
        peer->sig != c->mine.sig)
        c->ok[1] = 0;
    else if (peer->ns != tcomm_pid_namespace())
        c->ok[0] = 0;
    if (c->ok[0] != 1 || c->ok[1] != 1)
        return 0;
    tcomm_node_map_peer(c->st->segment, rank, (pid_t)peer->pid);
    if (c->map_only && !mapped(c, peer))
        c->ok[1] = 0; /* as calls that differ: MPI, nothing turned off */
    return c->ok[1] == 1;
}

void tcomm_node_call_copied(tcomm_node_call_t *c, int worked)
{
    if (!worked)
        c->ok[0] = 0;
}

int tcomm_node_call_fence(tcomm_node_call_t *c)
{
    tcomm_node_segment_min(c->st->segment, c->ok, 2);
    return c->ok[0] == 1 && c->ok[1] == 1;
}

int tcomm_node_call_end(tcomm_node_call_t *c, int *done)
{
    tcomm_mpi_state_t *st = c->st;
    *done = c->ok[0] == 1 && c->ok[1] == 1;
    if (c->map_only && *done) {
        st->map_backoff = 0;
    } else if (c->map_only) {
        st->map_backoff = st->map_backoff ? 2 * st->map_backoff : 1;
        if (st->map_backoff > 1024)
            st->map_backoff = 1024;
        st->map_skip = st->map_backoff;
    }
    if (c->ok[1] != 1) /* the MPI fallback says what is wrong */
        return MPI_SUCCESS;
    if (c->state != PULL_ON || !*done)
        return tcomm_mpi_pull_mark(c->st->comm, *done);
    return MPI_SUCCESS;
}
