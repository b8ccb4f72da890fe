/* SPDX-License-Identifier: BSD-3-Clause */
/* Candidate (f): all_to_all_v on one node as single copies. Every rank
 * copies the pieces that concern it between its own buffers and its
 * peers', in place on both sides (tcomm_block_copy.h): memcpy where the
 * peer's buffer lies in its mapped tensor arena, else cross-memory
 * attach. MPI_Alltoallv is one copy per byte as well, but pays a
 * rendezvous per peer and, for strided pieces, a pack and an unpack.
 *
 * What a peer's input and output look like follows from the table of
 * every rank's sizes that the front end's exchange handed every rank
 * (tcomm_coll_args_t::size_table): in the token mode (split == concat) rank q's
 * input holds sum_k T[q][k] along the dim and its output sum_k T[k][q],
 * the other dims being ours; in the transpose mode every rank sends the
 * same sizes and rank q's input has T[q][concat] along concat. So each
 * rank finds the piece a peer sends it (or the place a peer keeps for
 * its piece) with no message of its own.
 *
 * Direction: a rank reads the peers' pieces (the token mode, and the
 * transpose where split < concat) or writes its pieces into the peers'
 * outputs (split > concat), so that the remote side, whose rows cost a
 * page pin each under cross-memory attach, is the side with fewer rows:
 * the same rule on every rank, so every piece is moved once.
 *
 * Protocol: the node protocol (src/mpi/node/node_call.c) as the equal
 * pull's, with a signature of this rank's layout: a rank whose other
 * dims, dtype or dims differ (TCOMM_CHECK=0) copies nothing, and every
 * rank redoes the call through MPI. */
#include <stdint.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_block_copy.h"
#include "tcomm_mpi_all_to_all.h"
#include "tcomm_node_call.h"

/* One side of a piece: rows of width elements at off, total apart. */
typedef struct {
    size_t rows, total, off, width;
} side_t;

typedef struct {
    const tcomm_all_to_all_plan_t *p;
    const tcomm_tensor_t *in;
    int s, c, token, n;
    const int64_t *t; /* the table, n rows of n + 1 */
} v_call_t;

/* What rank q sends rank k along split, and receives from k along
 * concat. */
static size_t sent(const v_call_t *v, int q, int k)
{
    return (size_t)v->t[(size_t)(v->token ? q : 0) * (size_t)(v->n + 1) + 1 +
                        (size_t)k];
}

static size_t received(const v_call_t *v, int q, int k)
{
    return v->token ? sent(v, k, q)
                    : (size_t)v->t[(size_t)k * (size_t)(v->n + 1)];
}

/* Rank q's piece for rank k, along dim of shape (q's input: sizes by
 * sent; its output: by received). */
static side_t piece(const v_call_t *v, const size_t *shape, int dim, int q,
                    int k, size_t (*size)(const v_call_t *, int, int))
{
    side_t sd;
    size_t inner = tcomm_shape_prod(shape, dim + 1, v->in->ndim), before = 0;
    for (int j = 0; j < k; j++)
        before += size(v, q, j);
    sd.rows = tcomm_shape_prod(shape, 0, dim);
    sd.total = shape[dim] * inner;
    sd.off = before * inner;
    sd.width = size(v, q, k) * inner;
    return sd;
}

/* Rank q's input and output shapes. */
static void shapes(const v_call_t *v, int q, size_t *in, size_t *out)
{
    size_t along_in = 0, along_out = 0;
    for (int k = 0; k < v->n; k++) {
        along_in += sent(v, q, k);
        along_out += received(v, q, k);
    }
    for (int d = 0; d < v->in->ndim; d++)
        in[d] = out[d] = v->in->shape[d];
    if (!v->token) {
        in[v->c] = (size_t)v->t[(size_t)q * (size_t)(v->n + 1)];
        out[v->s] = sent(v, q, q);
    }
    in[v->s] = along_in;
    out[v->c] = along_out;
}

static int pushes(const v_call_t *v)
{
    return v->s > v->c;
}

/* The mean bytes of an input over the ranks (the tier's size, the same
 * on every rank), the sum, and whether some piece is strided. */
static void survey(const v_call_t *v, size_t *mean, size_t *sum,
                   int *strided, int *two)
{
    size_t in[TCOMM_MAX_DIMS], out[TCOMM_MAX_DIMS];
    int one_side[2] = {0, 0};
    *sum = 0;
    for (int q = 0; q < v->n; q++) {
        shapes(v, q, in, out);
        *sum += tcomm_shape_prod(in, 0, v->in->ndim) *
                tcomm_dtype_size(v->in->dtype);
        one_side[0] |= tcomm_shape_prod(in, 0, v->s) > 1;
        one_side[1] |= tcomm_shape_prod(out, 0, v->c) > 1;
    }
    *mean = *sum / (size_t)v->n;
    *strided = one_side[0] || one_side[1];
    *two = one_side[0] && one_side[1];
}

size_t tcomm_all_to_all_v_mean_bytes(const tcomm_tensor_t *in, int split,
                                     int concat, const int64_t *table, int n)
{
    v_call_t v = {NULL, in, split, concat, split == concat, n, table};
    size_t mean, sum;
    int strided, two;
    survey(&v, &mean, &sum, &strided, &two);
    return mean;
}

static tcomm_all_to_all_walk_t walk_of(uint64_t base, side_t sd, size_t es)
{
    return tcomm_all_to_all_walk(base + sd.off * es, sd.rows, sd.width * es,
                                 sd.total * es);
}

/* The piece between this rank and peer q (pid, its in and out; its
 * shapes qin, qout). */
static int with_peer(const v_call_t *v, const void *in, void *out, int q,
                     const size_t *qin, const size_t *qout, pid_t pid,
                     uint64_t rin, uint64_t rout)
{
    const tcomm_all_to_all_plan_t *p = v->p;
    size_t es = p->es;
    side_t mine, theirs;
    tcomm_all_to_all_walk_t rem, loc;
    if (pushes(v)) { /* ours for q, into q's output */
        mine = (side_t){p->souter, p->stotal, p->soff[q], p->sw[q]};
        theirs = piece(v, qout, v->c, q, p->rank, received);
        loc = walk_of((uint64_t)(uintptr_t)in, mine, es);
        rem = walk_of(rout, theirs, es);
    } else { /* q's for us, from q's input */
        mine = (side_t){p->router, p->rtotal, p->roff[q], p->rw[q]};
        theirs = piece(v, qin, v->s, q, p->rank, sent);
        loc = walk_of((uint64_t)(uintptr_t)out, mine, es);
        rem = walk_of(rin, theirs, es);
    }
    if (!theirs.rows || !theirs.width)
        return 1;
    return tcomm_all_to_all_walk_with_peer(pid, &rem, &loc, pushes(v));
}

/* The note's signature: dtype, dims and our shape but for them. */
static uint64_t signature(const v_call_t *v)
{
    size_t dims[TCOMM_MAX_DIMS + 1];
    for (int d = 0; d < v->in->ndim; d++)
        dims[d] = d == v->s || d == v->c ? 0 : v->in->shape[d];
    dims[v->in->ndim] = (size_t)v->in->ndim;
    return tcomm_node_sig_layout(tcomm_node_sig(TCOMM_NODE_ALL_TO_ALL_V,
                                                (int)v->p->dtype, v->s, v->c),
                                 dims, v->in->ndim + 1);
}

int tcomm_all_to_all_v_pull(const tcomm_all_to_all_plan_t *p,
                            const tcomm_tensor_t *in, int split, int concat,
                            const int64_t *table, tcomm_tensor_t *out,
                            int *done)
{
    v_call_t v = {p, in, split, concat, split == concat, p->nranks, table};
    size_t mean, sum;
    int strided, two;
    *done = 0;
    if (!p->st || !table || !tcomm_node_copy_allowed(p->st))
        return MPI_SUCCESS;
    survey(&v, &mean, &sum, &strided, &two);
    int tier = tcomm_node_tier(
        p->st, mean, strided ? TCOMM_ALL_TO_ALL_PULL_MIN(two) : SIZE_MAX);
    if (tier == TCOMM_NODE_MPI)
        return MPI_SUCCESS;

    tcomm_node_note_t mine = {.addr = (uint64_t)(uintptr_t)in->data,
                              .out = (uint64_t)(uintptr_t)out->data,
                              .bytes = sum,
                              .sig = signature(&v)},
                      peer;
    tcomm_node_call_t c;
    tcomm_node_call_begin(&c, p->st, &mine);
    tcomm_all_to_all_copy_own(p, in->data, out->data);
    for (int k = 1; k < p->nranks; k++) {
        int q = (p->rank + k) % p->nranks;
        size_t qin[TCOMM_MAX_DIMS], qout[TCOMM_MAX_DIMS];
        shapes(&v, q, qin, qout);
        if (tier == TCOMM_NODE_MAPPED) { /* the buffer of q's we touch */
            size_t bytes = tcomm_shape_prod(pushes(&v) ? qout : qin, 0,
                                            in->ndim) * p->es;
            tcomm_node_call_map_only(&c, pushes(&v) ? 0 : bytes,
                                     pushes(&v) ? bytes : 0);
        }
        if (tcomm_node_call_peer(&c, q, &peer))
            tcomm_node_call_copied(&c, with_peer(&v, in->data, out->data,
                                                 q, qin, qout,
                                                 (pid_t)peer.pid, peer.addr,
                                                 peer.out));
    }
    tcomm_node_call_fence(&c);
    return tcomm_node_call_end(&c, done);
}
