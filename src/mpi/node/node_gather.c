/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather on one node by cross-memory attach, along every dim.
 *
 * Why: MPI_Allgather(v) between ranks of one node copies small blocks
 * twice (in and out of vader's shared fragments) and big ones once (a
 * CMA read by the receiver), after a rendezvous per peer; along a dim >
 * 0 the blocks are strided in out, which MPI moves through a derived
 * datatype or a temporary (two copies) or one message per row (a few us
 * each). Here each rank writes its input once into every peer's output
 * (pushed(): one block, or rows of 1 KiB and more; process_vm_writev,
 * the rows of the peer's out as the remote scatter list along a dim > 0)
 * and reads shorter rows from every peer's input into place (one
 * process_vm_readv per peer). The synchronisation is the node
 * protocol (node_call.c): a note per rank and one fence, a fraction of
 * the MPI_Allgather and MPI_Allreduce that the MPI-synchronised pull
 * (src/mpi/node/all_gather_attach.c) pays.
 *
 * A note's bytes are the output's (the same on every rank of the same
 * call, uneven sizes included); its sig carries the dtype and a hash of
 * outer and every rank's row bytes, so that a call whose sizes differ
 * (TCOMM_CHECK=0) copies nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_internal.h"
#include "tcomm_node_call.h"
#include "tcomm_node_gather.h"

int tcomm_node_gather_applies(const tcomm_mpi_state_t *st, size_t out_bytes)
{
    return tcomm_node_copy_allowed(st) &&
           out_bytes >= TCOMM_NODE_GATHER_MIN * (size_t)st->size;
}

/* The kind, dtype and dim-0 flag, with outer and the row bytes hashed
 * above them (tcomm_node_sig_layout). */
static uint64_t layout_sig(int dtype, size_t outer, const size_t *rb, int n)
{
    uint64_t sig =
        tcomm_node_sig(TCOMM_NODE_ALL_GATHER, dtype, outer == 1, 0);
    return tcomm_node_sig_layout(tcomm_node_sig_layout(sig, &outer, 1), rb,
                                 n);
}

/* Rows shorter than this are read packed, in one system call, into a
 * temporary and placed by memcpy: the kernel's copy into a scatter list
 * costs more per entry than a memcpy of a short row, and a system call
 * per chunk more still (doc/performance.md). */
#define ROW_VIA_TMP ((size_t)1024)
#define STACK_BYTES ((size_t)16 << 10)

/* Rows of rb bytes from pid's remote (packed) into out at col, stride
 * apart; tmp (NULL: none) holds outer * rb bytes. Calls of at most 1
 * GiB (a system call moves under 2 GiB). 1: all read. */
static int read_rows(pid_t pid, uint64_t remote, char *out, size_t col,
                     size_t stride, size_t outer, size_t rb, char *tmp)
{
    size_t per = ((size_t)1 << 30) / rb;
    if (outer == 1)
        return tcomm_node_read(pid, out + col, remote, rb);
    if (tmp && rb < ROW_VIA_TMP) {
        if (!tcomm_node_read(pid, tmp, remote, outer * rb))
            return 0;
        for (size_t o = 0; o < outer; o++)
            memcpy(out + o * stride + col, tmp + o * rb, rb);
        return 1;
    }
    if (per == 0)
        per = 1; /* a row over 1 GiB: tcomm_node_read splits it */
    for (size_t o = 0; o < outer; o += per) {
        size_t k = outer - o < per ? outer - o : per;
        int ok = per == 1 ? tcomm_node_read(pid, out + o * stride + col,
                                            remote + o * rb, rb)
                          : tcomm_node_read_rows(pid, remote + o * rb,
                                                 out + o * stride, col,
                                                 stride, k, rb);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Whose rows travel how, the same on every rank (outer and rb are the
 * call's, agreed by the note's sig): rank r pushes its rows into every
 * peer's output where they are one block or rows of ROW_VIA_TMP bytes and
 * more, else each peer pulls them. A push reads r's input once, from
 * r's cache right after r wrote its own rows from it, where every peer
 * reading it would fetch it from r's cache or memory on its own: with
 * new input every call, 2 ranks, 256 KiB-2 MiB a rank, pushes took
 * 0.47-0.64x the pulls' time (bench/gather_traffic.c,
 * doc/performance.md). */
static int pushed(size_t outer, size_t rb)
{
    return outer == 1 || rb >= ROW_VIA_TMP;
}

/* Pushes go in pieces of about this many bytes of our input: each read
 * once from memory, then again from the cache for every peer. */
#define PUSH_PIECE ((size_t)256 << 10)

/* Our rows (or, in one row, its bytes) from piece start a, len of them,
 * into a peer's output at out (the peer's note), column col. */
static int push_piece(pid_t pid, uint64_t out, const char *in, size_t col,
                      size_t stride, size_t outer, size_t rb, size_t a,
                      size_t len)
{
    if (outer == 1)
        return tcomm_node_write(pid, in + a, out + col + a, len);
    if (len == 1)
        return tcomm_node_write(pid, in + a * rb, out + a * stride + col, rb);
    return tcomm_node_write_rows(pid, out + a * stride, in + a * rb, col,
                                 stride, len, rb);
}

/* Our own rows [a, a + len) (or bytes, in one row) into our output. */
static void own_piece(const char *in, char *out, size_t col, size_t stride,
                      size_t outer, size_t rb, size_t a, size_t len)
{
    if (outer == 1) {
        if (out + col != in)
            memmove(out + col + a, in + a, len);
        return;
    }
    for (size_t o = a; o < a + len; o++) {
        char *d = out + o * stride + col;
        const char *s = in + o * rb;
        if (d != s)
            memmove(d, s, rb);
    }
}

/* Our rows, into our output and, where pushed, into every peer's
 * (whose notes are in peers[], ok[] where the call may copy with it),
 * piece by piece. */
static void write_ours(tcomm_node_call_t *c, const tcomm_node_note_t *peers,
                       const int *ok, int n, int me, const char *in, char *out,
                       size_t col, size_t stride, size_t outer, size_t rb)
{
    int push = pushed(outer, rb) && rb;
    size_t total = outer == 1 ? rb : outer; /* bytes, or rows */
    size_t step = !push ? total : outer == 1 ? PUSH_PIECE : PUSH_PIECE / rb;
    step = step ? step : 1; /* rb 0 is never pushed: no division by it */
    for (size_t a = 0; a < total; a += step) {
        size_t len = total - a < step ? total - a : step;
        own_piece(in, out, col, stride, outer, rb, a, len);
        for (int k = 1; push && k < n; k++) {
            int r = (me + k) % n;
            if (ok[r])
                tcomm_node_call_copied(
                    c, push_piece((pid_t)peers[r].pid, peers[r].out, in,
                                  col, stride, outer, rb, a, len));
        }
    }
}

int tcomm_node_all_gather(tcomm_mpi_state_t *st, const void *in, void *out,
                          size_t outer, const size_t *rb, int dtype,
                          int *done)
{
    int n = st->size, me = st->rank;
    size_t stride = 0, col = 0;
    for (int r = 0; r < n; r++) {
        stride += rb[r];
        col += r < me ? rb[r] : 0;
    }
    tcomm_node_note_t mine = {.addr = (uint64_t)(uintptr_t)in,
                              .out = (uint64_t)(uintptr_t)out,
                              .bytes = outer * stride,
                              .sig = layout_sig(dtype, outer, rb, n)},
                      peer;
    tcomm_node_call_t c;
    char stack[STACK_BYTES], *tmp = NULL;
    size_t most = 0; /* the largest peer block of short rows */
    for (int r = 0; r < n; r++)
        if (r != me && rb[r] < ROW_VIA_TMP && outer * rb[r] > most)
            most = outer * rb[r];
    /* without a temporary the rows go straight into place */
    if (outer > 1 && most)
        tmp = most <= sizeof stack ? stack : malloc(most);

    tcomm_node_note_t nstack[TCOMM_STACK_RANKS], *peers = nstack;
    int okstack[TCOMM_STACK_RANKS], *ok = okstack;
    if (n > TCOMM_STACK_RANKS) {
        peers = malloc((size_t)n * sizeof(*peers));
        ok = malloc((size_t)n * sizeof(*ok));
    }
    tcomm_node_call_begin(&c, st, &mine);
    /* every peer's note (from the next rank on, so that not everyone
     * waits for rank 0 first); a peer we may not copy with: ok 0, and
     * the fence redoes the call with MPI */
    for (int k = 1; peers && ok && k < n; k++) {
        int r = (me + k) % n;
        ok[r] = tcomm_node_call_peer(&c, r, &peers[r]) && outer;
    }
    if (!peers || !ok) /* no memory: MPI, after the fence */
        tcomm_node_call_copied(&c, 0);
    else if (outer)
        write_ours(&c, peers, ok, n, me, in, out, col, stride, outer, rb[me]);
    /* the rows the peers do not push, read from their inputs */
    for (int k = 1; peers && ok && k < n; k++) {
        int r = (me + k) % n;
        size_t at = 0;
        for (int q = 0; q < r; q++)
            at += rb[q];
        peer = peers[r];
        if (ok[r] && rb[r] && !pushed(outer, rb[r]))
            tcomm_node_call_copied(
                &c, read_rows((pid_t)peer.pid, peer.addr, out, at, stride,
                              outer, rb[r], tmp));
    }
    tcomm_node_call_fence(&c); /* every copy with our buffers is over */
    if (tmp != stack)
        free(tmp);
    if (peers != nstack)
        free(peers);
    if (ok != okstack)
        free(ok);
    return tcomm_node_call_end(&c, done);
}
