/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend's all_to_all and all_to_all_v. Each rank shows the
 * others its input, its shape and its send sizes, waits for everyone,
 * copies the piece every rank sends it straight from that rank's input
 * into its place in the output (no pack, no unpack: the peers' memory is
 * ours to read), and waits again before anyone may reuse an input.
 * Device tensors (sim, cuda) are staged through host buffers as in
 * backend_local_colls.c. */
#include <stdlib.h>
#include <string.h>

#include "backend_local_world.h"

/* What a rank shows its peers: the host view of its input, the input's
 * shape and how much of it along split goes to each rank. */
typedef struct {
    const char *data;
    const size_t *shape;
    const size_t *send;
} all_to_all_show_t;

/* The piece a rank sends: in its input (shape ish) the slice [a, a + len)
 * along split; it lands in out (shape osh) as the slice [b, b + m) along
 * concat. Both slices are the same box in row-major order. Viewed along
 * split the box is rows of len * inner(split) elements at the source's
 * row pitch; viewed along concat, rows of m * inner(concat) at out's.
 * Both row lengths are suffix products of the box's shape, so the shorter
 * divides the longer, and runs of the shorter never cross a row of
 * either side. */
static void copy_piece(char *dst, const size_t *osh, int concat, size_t b,
                       size_t m, const char *src, const size_t *ish,
                       int split, size_t a, size_t len, int nd, size_t es)
{
    size_t in_s = tcomm_shape_prod(ish, split + 1, nd) * es;
    size_t in_c = tcomm_shape_prod(osh, concat + 1, nd) * es;
    size_t ls = len * in_s, ld = m * in_c; /* row bytes, each side */
    size_t total = tcomm_shape_prod(ish, 0, split) * ls;
    if (!total || !ld)
        return;
    size_t run = ls < ld ? ls : ld;
    size_t spitch = ish[split] * in_s, dpitch = osh[concat] * in_c;
    for (size_t pos = 0; pos < total; pos += run)
        memcpy(dst + (pos / ld) * dpitch + b * in_c + pos % ld,
               src + (pos / ls) * spitch + a * in_s + pos % ls, run);
}

/* The general exchange: rank r's input sends its send[j] along split to
 * rank j; the piece from rank r has recv[r] along concat in out. */
static tcomm_status_t exchange(tcomm_local_rank_t *me,
                               const tcomm_tensor_t *in, int split,
                               const size_t *send, int concat,
                               const size_t *recv, tcomm_tensor_t *out)
{
    tcomm_local_world_t *w = me->world;
    local_bufs_t b;
    tcomm_status_t st = tcomm_local_stage_in(in, 1, out, &b);
    all_to_all_show_t show = {b.in, in->shape, send};
    st = tcomm_local_share(me, &show, st);
    if (st != TCOMM_SUCCESS)
        return tcomm_local_stage_out(st, out, &b);
    size_t es = tcomm_dtype_size(in->dtype), at = 0;
    for (int r = 0; r < w->size; r++) {
        const all_to_all_show_t *peer = w->slot[r];
        size_t from = 0; /* where our piece starts in rank r's input */
        for (int j = 0; j < me->rank; j++)
            from += peer->send[j];
        copy_piece(b.out, out->shape, concat, at, recv[r], peer->data,
                   peer->shape, split, from, peer->send[me->rank], in->ndim,
                   es);
        at += recv[r];
    }
    st = tcomm_local_sync(me); /* nobody reuses an input we read */
    return tcomm_local_stage_out(st, out, &b);
}

tcomm_status_t tcomm_local_all_to_all_v(void *state,
                                        const tcomm_tensor_t *in,
                                        int split_dim,
                                        const size_t *send_sizes,
                                        int concat_dim,
                                        const size_t *recv_sizes,
                                        tcomm_tensor_t *out)
{
    return exchange(state, in, split_dim, send_sizes, concat_dim, recv_sizes,
                    out);
}

/* Equal chunks: every rank sends c = shape[split] / n to each; the piece
 * from rank r has in's size along concat (c when split == concat). */
tcomm_status_t tcomm_local_all_to_all(void *state, const tcomm_tensor_t *in,
                                      int split_dim, int concat_dim,
                                      tcomm_tensor_t *out)
{
    tcomm_local_rank_t *me = state;
    int n = me->world->size;
    size_t stack[2 * TCOMM_STACK_RANKS] = {0}, *sizes = stack;
    if (n > TCOMM_STACK_RANKS &&
        !(sizes = malloc(2 * (size_t)n * sizeof *sizes)))
        return tcomm_local_share( /* the peers learn it, no data moves */
            me, NULL,
            tcomm_error(TCOMM_ERR_NO_MEMORY, "tcomm: out of host memory"));
    size_t c = in->shape[split_dim] / (size_t)n;
    for (int r = 0; r < n; r++) {
        sizes[r] = c;
        sizes[n + r] = split_dim == concat_dim ? c : in->shape[concat_dim];
    }
    tcomm_status_t st = exchange(me, in, split_dim, sizes, concat_dim,
                                 sizes + n, out);
    if (sizes != stack)
        free(sizes);
    return st;
}
