/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast of host buffers on one node by cross-memory attach, the copy
 * shared between the root and the receivers.
 *
 * Why: MPI_Bcast between ranks of one node is one copy per receiver,
 * done by the receiver (Open MPI's shared-memory transport reads the
 * root's buffer with process_vm_readv) while the root waits for it to
 * finish. Here the root, idle otherwise, writes the first 1/n of every
 * receiver's buffer (process_vm_writev) while each receiver reads the
 * rest: every rank copies (n - 1)/n of the message and no one waits for
 * a copy it could share. On 2 ranks that halves the copy: 64 KiB-16 MiB
 * in 0.45-0.65x the time of MPI_Bcast (numbers in doc/performance.md).
 * Below TCOMM_SHM_BCAST_MIN bytes per receiver MPI's eager messages win
 * (two system calls cost more than the copy).
 *
 * Protocol, per call (seq counts the calls that come here, the same on
 * every rank): every rank publishes its buffer's address, length and
 * root on its line of the agreement's shared segment; the root writes
 * into each receiver as its line appears, the receivers read from the
 * root's, each only where the line shows the same call; then one
 * agreement round (tcomm_shm_min) of two flags (copies done, calls
 * alike), which no rank leaves before every copy into and out of its
 * buffer is over. Calls that differ (TCOMM_CHECK=0 lets them through) go
 * to MPI_Bcast, which answers them as it would have. If any
 * rank failed (a kernel or container that refuses cross-memory attach),
 * every rank learns it there, marks the communicator (no more single
 * copies, TCOMM_SINGLE_COPY's state, shared with all_gather's pull) and
 * the caller redoes the broadcast with MPI_Bcast, which rewrites the
 * receivers' buffers whole. A pid names the same process only within one
 * PID namespace: a peer in another (a container of its own that shares
 * /dev/shm) counts as a failed copy, never as a write to whatever process
 * has that pid here. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_pull.h"
#include "tcomm_shm_bcast.h"
#include "tcomm_shm_min.h"
#include "tcomm_test_hooks.h"

/* One system call moves at most about 2 GiB (MAX_RW_COUNT): go in
 * pieces of 1 GiB. */
#define PIECE ((size_t)1 << 30)

/* Copy len bytes between here and pid's remote; 1 on success. */
static int move(pid_t pid, char *here, uint64_t remote, size_t len,
                int write)
{
    for (size_t off = 0; off < len; off += PIECE) {
        size_t k = len - off < PIECE ? len - off : PIECE;
        struct iovec loc = {here + off, k};
        struct iovec rem = {(void *)(uintptr_t)(remote + off), k};
        ssize_t got = write ? process_vm_writev(pid, &loc, 1, &rem, 1, 0)
                            : process_vm_readv(pid, &loc, 1, &rem, 1, 0);
        if (got != (ssize_t)k) /* short only on an error part way */
            return 0;
    }
    return 1;
}

/* More ranks than cores (mpirun --oversubscribe): a rank that spins on
 * a line while the peer it waits for has no core slows both down (3
 * ranks on 2 cores: 1.3-2x MPI_Bcast at 32-256 KiB). The node's count,
 * not this rank's affinity, so that every rank answers the same. */
static int one_core_each(int ranks)
{
    /* threads may race to fill it: atomic, and all store the same */
    static _Atomic long cached;
    long cpus = atomic_load_explicit(&cached, memory_order_relaxed);
    if (!cpus) {
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
        atomic_store_explicit(&cached, cpus, memory_order_relaxed);
    }
    return cpus <= 0 || ranks <= cpus;
}

int tcomm_shm_bcast_applies(const tcomm_mpi_state_t *st, size_t bytes)
{
    return st->shm_min && st->size > 1 && one_core_each(st->size) &&
           bytes >= TCOMM_SHM_BCAST_MIN * (size_t)(st->size - 1) &&
           tcomm_mpi_pull_state(st->comm) != PULL_OFF;
}

/* Is peer's note the same call as ours? Without the agreement
 * (TCOMM_CHECK=0) it may not be: then nothing is copied, so that no
 * buffer is overrun and no root's input overwritten. */
static int same_call(const tcomm_shm_note_t *peer, size_t bytes, int root)
{
    return peer->bytes == bytes && peer->root == root;
}

int tcomm_shm_bcast(tcomm_mpi_state_t *st, void *buf, size_t bytes,
                    int root, int *done)
{
    uint64_t seq = ++st->bcast_seq;
    tcomm_shm_note_t mine = {.addr = (uint64_t)(uintptr_t)buf,
                             .bytes = bytes, .root = root},
                     peer;
    /* [every copy worked, every rank made the same call] */
    int64_t ok[2] = {!tcomm_test_hook(TCOMM_HOOK_PULL_FAIL), 1};
    int state = tcomm_mpi_pull_state(st->comm);
    /* the root's share, a multiple of a cache line */
    size_t head =
        bytes / (size_t)st->size & ~(size_t)(TCOMM_CACHE_LINE - 1);

    tcomm_shm_publish(st->shm_min, seq, &mine);
    if (st->rank == root) {
        /* in turn from the next rank, as their lines appear */
        for (int k = 1; k < st->size; k++) {
            tcomm_shm_peer(st->shm_min, (root + k) % st->size, seq, &peer);
            if (!same_call(&peer, bytes, root))
                ok[1] = 0;
            else if (ok[0] && head)
                ok[0] = peer.ns == tcomm_pid_namespace() &&
                        move((pid_t)peer.pid, buf, peer.addr, head, 1);
        }
    } else {
        tcomm_shm_peer(st->shm_min, root, seq, &peer);
        if (!same_call(&peer, bytes, root))
            ok[1] = 0;
        else if (ok[0])
            ok[0] = peer.ns == tcomm_pid_namespace() &&
                    move((pid_t)peer.pid, (char *)buf + head,
                         peer.addr + head, bytes - head, 0);
    }
    tcomm_shm_min(st->shm_min, ok, 2); /* every copy is over after it */
    *done = ok[0] == 1 && ok[1] == 1;
    if (ok[1] != 1) /* MPI_Bcast will say what is wrong, as raw MPI would */
        return MPI_SUCCESS;
    if (state != PULL_ON || !*done)
        return tcomm_mpi_pull_mark(st->comm, *done);
    return MPI_SUCCESS;
}
