/* SPDX-License-Identifier: BSD-3-Clause */
/* all_reduce and reduce_scatter of host buffers on one node by
 * cross-memory attach (the contract is in tcomm_node_reduce.h).
 *
 * Why: MPI_Allreduce between the ranks of one node moves every byte
 * through a shared-memory buffer (a copy in, a copy out) and its
 * reduce_scatter is slower still. Here rank r owns chunk r of the
 * result: it reads each peer's part of that chunk once, block by block
 * into a buffer that stays in cache, and folds it in rank order
 * (in_0 op in_1 op ... op in_{n-1}) straight into its output; all_reduce
 * then writes each folded block, still in cache, into every peer's
 * output (process_vm_writev). One fence ends the call. Pushing the
 * folded blocks measured 0.5-0.75x the time of pulling the peers'
 * folded chunks in a second phase up to 256 KiB (a fence less, no
 * second read from memory), the same within the noise above.
 *
 * The fold is the deterministic path's (src/mpi/ordered.c): copy in_0,
 * then acc op= in_j with tcomm_host_reduce, AVG divided once at the end,
 * element by element the same operations, so the result is bitwise the
 * same and this path serves TCOMM_DETERMINISTIC too.
 *
 * In place (all_reduce, out == in): a rank writes chunk r of its own
 * buffer and of its peers' only, which only rank r reads (the peers read
 * their own chunks of it), and block by block after reading it. Each
 * block is folded in a local accumulator and stored only after every
 * peer's part of it was read, and the first one only after a fence that
 * hears whether every rank could read its first block, so that a kernel
 * or container that refuses the copies, on any rank, is found before
 * anything is written and leaves every input whole for the MPI
 * fallback. (A peer's buffer that goes away later in the call is a
 * crash, not a fallback: in place, the chunks folded by then are lost.)
 * The last fence keeps every buffer alive until no peer copies with it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_internal.h"
#include "tcomm_node_call.h"
#include "tcomm_node_map.h"
#include "tcomm_node_reduce.h"

/* The fold's block: its input, accumulator and a peer's part stay in L2
 * (1 MiB a core here); of 32-512 KiB, 128 KiB was as good as any
 * within the noise of a shared machine. */
#define BLOCK ((size_t)131072)

typedef struct {
    tcomm_node_call_t c;
    tcomm_node_note_t stack[TCOMM_STACK_RANKS], *peer; /* [size] */
    tcomm_dtype_t dtype;
    tcomm_op_t op;
    size_t es;
    char *tmp, *acc;  /* BLOCK each: a peer's block, in place's fold */
    const char *push; /* all_reduce: this rank's output, whose folded
                         blocks go to every peer's output as they are */
    int in_place;     /* some rank's note has out == in: the same on all */
} job_t;

int tcomm_node_reduce_applies(tcomm_mpi_state_t *st, int kind, size_t rows,
                              size_t bytes)
{
    size_t min = kind == TCOMM_NODE_ALL_REDUCE ? TCOMM_NODE_ALL_REDUCE_MIN
                 : rows > 1 ? TCOMM_NODE_REDUCE_SCATTER_DIM_MIN
                            : TCOMM_NODE_REDUCE_SCATTER_MIN;
    return tcomm_node_copy_allowed(st) ? tcomm_node_tier(st, bytes, min)
                                       : TCOMM_NODE_MPI;
}

/* Begin the call and wait for every peer's note. 1: copy. The mapped
 * tier checks the peers' inputs and out_bytes of their outputs. */
static int start(job_t *j, tcomm_mpi_state_t *st, const tcomm_node_note_t *mine,
                 tcomm_dtype_t dtype, tcomm_op_t op, int tier, size_t out_bytes)
{
    int n = st->size, go = 1;
    j->dtype = dtype;
    j->op = op;
    j->es = tcomm_dtype_size(dtype);
    j->peer = n <= TCOMM_STACK_RANKS ? j->stack : malloc(n * sizeof *j->peer);
    j->push = NULL;
    j->tmp = malloc(2 * BLOCK);
    j->acc = j->tmp ? j->tmp + BLOCK : NULL;
    tcomm_node_call_begin(&j->c, st, mine);
    if (tier == TCOMM_NODE_MAPPED)
        tcomm_node_call_map_only(&j->c, mine->bytes, out_bytes);
    if (!j->peer || !j->tmp) /* out of memory: every rank goes to MPI */
        tcomm_node_call_copied(&j->c, 0);
    j->in_place = mine->addr == mine->out;
    for (int r = 0; r < n; r++)
        if (r != st->rank) { /* every note read, even out of memory */
            tcomm_node_note_t one, *p = j->peer ? &j->peer[r] : &one;
            go &= tcomm_node_call_peer(&j->c, r, p);
            j->in_place |= p->addr == p->out;
        }
    return go && j->peer && j->tmp;
}

static void stop(job_t *j)
{
    if (j->peer != j->stack)
        free(j->peer);
    free(j->tmp);
}

/* Read nrows rows of cb bytes, rstride apart from byte roff of rank r's
 * input, packed into dst. */
static int read_rows(job_t *j, int r, char *dst, uint64_t roff, size_t rstride,
                     size_t nrows, size_t cb)
{
    const tcomm_node_note_t *p = &j->peer[r];
    int ok = nrows == 1
                 ? tcomm_node_read((pid_t)p->pid, dst, p->addr + roff, cb)
                 : tcomm_node_read_strided((pid_t)p->pid, dst, p->addr + roff,
                                           rstride, nrows, cb);
    tcomm_node_call_copied(&j->c, ok);
    return ok;
}

/* Rank r's input from byte roff on, len bytes, where it lies in r's
 * mapped arena: folded from there, with no copy into tmp. */
static const char *mapped_rows(job_t *j, int r, uint64_t roff, size_t len)
{
    const tcomm_node_note_t *p = &j->peer[r];
    return tcomm_node_mapped((pid_t)p->pid, p->addr + roff, len);
}

/* acc (nrows rows of cb bytes, packed) = src's rows (sstride apart) if
 * first, else acc op src. */
static void combine(job_t *j, int first, char *acc, const char *src,
                    size_t sstride, size_t nrows, size_t cb)
{
    if (sstride == cb) { /* packed: one call */
        cb *= nrows;
        nrows = 1;
    }
    for (size_t k = 0; k < nrows; k++) {
        if (first)
            memcpy(acc + k * cb, src + k * sstride, cb);
        else
            tcomm_host_reduce(j->dtype, j->op, acc + k * cb, src + k * sstride,
                              cb / j->es);
    }
}

/* acc (nrows rows of cb bytes, packed) = a's rows op b's rows (astride,
 * bstride apart), in one pass. */
static void fold3(job_t *j, char *acc, const char *a, size_t astride,
                  const char *b, size_t bstride, size_t nrows, size_t cb)
{
    if (astride == cb && bstride == cb) { /* packed: one call */
        cb *= nrows;
        nrows = 1;
    }
    for (size_t k = 0; k < nrows; k++)
        tcomm_host_reduce3(j->dtype, j->op, acc + k * cb, a + k * astride,
                           b + k * bstride, cb / j->es);
}

/* all_reduce: a folded block (at o in this rank's output, its bytes
 * at src, still in cache) written into every peer's output. */
static int push_block(job_t *j, const char *o, const char *src, size_t len)
{
    int n = j->c.st->size, me = j->c.st->rank;
    for (int k = 1; j->push && k < n; k++) {
        const tcomm_node_note_t *p = &j->peer[(me + k) % n];
        int ok = tcomm_node_write((pid_t)p->pid, src,
                                  p->out + (uint64_t)(o - j->push), len);
        tcomm_node_call_copied(&j->c, ok);
        if (!ok)
            return 0;
    }
    return 1;
}

/* One block: o (nrows * cb bytes, packed) = the rank-order fold of rows
 * of cb bytes, stride apart, at offset off of every rank's input (mine:
 * this rank's own, at that offset already). span: read each peer's rows
 * with what lies between them in one piece (short rows: the kernel pins
 * a page per remote piece, some 0.3 us, dearer than a few KiB copied). */
static int fold_block(job_t *j, char *o, const char *mine, uint64_t off,
                      size_t stride, size_t nrows, size_t cb, int in_place,
                      int span)
{
    int n = j->c.st->size, me = j->c.st->rank;
    char *acc = in_place ? j->acc : o;
    size_t extent = (nrows - 1) * stride + cb; /* of the rows in an input */
    const char *src;
    int r = 0;
    if (n > 1) {
        /* in_0 op in_1 in one pass, not a copy and a pass, where both
         * are at hand: own or mapped, rows stride apart; or, on rank 0,
         * rank 1's packed rows read into tmp (rank 0 would do a pass
         * more than its peers and keep them waiting) */
        const char *a = me == 0 ? mine : mapped_rows(j, 0, off, extent);
        const char *b = me == 1 ? mine : mapped_rows(j, 1, off, extent);
        size_t bstride = stride;
        if (me == 0 && !b && !span && (nrows == 1 || stride == cb)) {
            if (!read_rows(j, 1, j->tmp, off, stride, nrows, cb))
                return 0;
            b = j->tmp;
            bstride = cb;
        }
        if (a && b) {
            fold3(j, acc, a, stride, b, bstride, nrows, cb);
            r = 2;
        }
    }
    for (; r < n; r++) {
        if (r == me) {
            combine(j, r == 0, acc, mine, stride, nrows, cb);
        } else if ((src = mapped_rows(j, r, off, extent))) {
            combine(j, r == 0, acc, src, stride, nrows, cb);
        } else if (span) {
            if (!read_rows(j, r, j->tmp, off, 0, 1, extent))
                return 0;
            combine(j, r == 0, acc, j->tmp, stride, nrows, cb);
        } else if (!read_rows(j, r, r == 0 ? acc : j->tmp, off, stride, nrows,
                              cb)) {
            return 0;
        } else if (r > 0) {
            combine(j, 0, acc, j->tmp, cb, nrows, cb);
        }
    }
    if (j->op == TCOMM_AVG)
        tcomm_host_divide(j->dtype, acc, nrows * cb / j->es, (double)n);
    if (in_place && o != acc)
        memcpy(o, acc, nrows * cb);
    return o == j->acc || push_block(j, o, acc, nrows * cb); /* probe */
}

/* Rows closer than this read as one span (fold_block). */
#define SPAN_GAP ((size_t)2048)

/* Phase 1: out (rows * rb bytes, packed) = the fold of rows of rb bytes,
 * stride apart, from byte off of every rank's input, in blocks. */
static int fold_piece(job_t *j, char *out, const char *in, uint64_t off,
                      size_t stride, size_t rows, size_t rb, int in_place)
{
    int span = rows > 1 && stride - rb <= SPAN_GAP;
    size_t per = span ? (BLOCK - rb) / stride + 1 : BLOCK / (rb ? rb : 1);
    if (rows == 1 || per < 2) { /* a row or less per block */
        for (size_t k = 0; k < rows; k++)
            for (size_t col = 0; col < rb; col += BLOCK) {
                size_t cb = rb - col < BLOCK ? rb - col : BLOCK;
                uint64_t at = off + k * stride + col;
                if (!fold_block(j, out + k * rb + col, in + at, at, 0, 1, cb,
                                in_place, 0))
                    return 0;
            }
        return 1;
    }
    for (size_t k = 0; k < rows; k += per) { /* whole rows per block */
        size_t nr = rows - k < per ? rows - k : per;
        uint64_t at = off + k * stride;
        if (!fold_block(j, out + k * rb, in + at, at, stride, nr, rb, in_place,
                        span))
            return 0;
    }
    return 1;
}

/* Chunk r of numel elements: a multiple of a cache line, the last rank's
 * takes the rest. */
static void chunk_of(size_t numel, size_t es, int n, int r, size_t *lo,
                     size_t *len)
{
    size_t line = TCOMM_CACHE_LINE / es;
    size_t q = numel / (size_t)n / line * line;
    *lo = (size_t)r * q;
    *len = r == n - 1 ? numel - (size_t)(n - 1) * q : q;
}

int tcomm_node_all_reduce(tcomm_mpi_state_t *st, const void *in, void *out,
                          size_t numel, tcomm_dtype_t dtype, tcomm_op_t op,
                          int tier, int *done)
{
    int n = st->size, me = st->rank;
    size_t es = tcomm_dtype_size(dtype), lo, len;
    tcomm_node_note_t mine = {
        .addr = (uint64_t)(uintptr_t)in,
        .out = (uint64_t)(uintptr_t)out,
        .bytes = numel * es,
        .sig = tcomm_node_sig(TCOMM_NODE_ALL_REDUCE, dtype, op, 0)};
    job_t j;
    int go, in_place = in == out;
    char *o;
    size_t head = 0; /* bytes of the chunk done before the loop */
    chunk_of(numel, es, n, me, &lo, &len);
    o = (char *)out + lo * es;
    go = start(&j, st, &mine, dtype, op, tier, mine.bytes); /* pushes */
    j.push = out;
    if (j.in_place) { /* every rank, so that all meet in the same fences */
        /* Nothing is stored before every rank has read its first block
         * from every peer: a peer that cannot copy is heard here, with
         * every input whole for MPI. */
        head = len * es < BLOCK ? len * es : BLOCK;
        if (go && head)
            go = fold_block(&j, j.acc, (const char *)in + lo * es,
                            lo * es, 0, 1, head, 1, 0);
        go = tcomm_node_call_fence(&j.c) && go;
        if (go && head) {
            memcpy(o, j.acc, head);
            go = push_block(&j, o, j.acc, head);
        }
    }
    if (go)
        fold_piece(&j, o + head, in, lo * es + head, 0, 1, len * es - head,
                   in_place);
    tcomm_node_call_fence(&j.c); /* every copy with this rank is over */
    stop(&j);
    return tcomm_node_call_end(&j.c, done);
}

int tcomm_node_reduce_scatter(tcomm_mpi_state_t *st, const void *in, void *out,
                              size_t outer, size_t chunk, int dim,
                              tcomm_dtype_t dtype, tcomm_op_t op, int tier,
                              int *done)
{
    int n = st->size, me = st->rank;
    size_t es = tcomm_dtype_size(dtype), rb = chunk * es;
    tcomm_node_note_t mine = {
        .addr = (uint64_t)(uintptr_t)in,
        .out = (uint64_t)(uintptr_t)out,
        .bytes = outer * (size_t)n * rb,
        .root = (int64_t)outer,
        .sig = tcomm_node_sig(TCOMM_NODE_REDUCE_SCATTER, dtype, op, dim)};
    job_t j;
    if (start(&j, st, &mine, dtype, op, tier, 0))
        fold_piece(&j, out, in, (uint64_t)me * rb, (size_t)n * rb, outer, rb,
                   0);
    tcomm_node_call_fence(&j.c); /* no rank reads an input after it */
    stop(&j);
    return tcomm_node_call_end(&j.c, done);
}
