/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-rank agreement before data moves. Every rank encodes its call as
 * a fixed header of int64 fields and contributes a summary of it (a hash,
 * the element count, all_gather's sizes, the error flag) to one
 * MPI_Allreduce(MIN) over [s, -s], which yields the minimum and maximum
 * of each, so any difference and any local error is seen by all ranks in
 * one small call; only then do the ranks gather the full headers (or the
 * error texts) to name who differs. The first exchange is the same MPI
 * call for every collective, so that ranks calling different collectives
 * still meet in it; once they agree, all_gather exchanges the sizes along
 * dim. With TCOMM_CHECK=0 and a timeout the same rounds run on the call's
 * identity alone (tcomm_agrees in tcomm_frontend.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_frontend.h"

enum {
    H_KIND, H_SEQ, H_DTYPE, H_OP, H_DIM, H_ROOT, H_DET, H_NDIM, H_SHAPE,
    H_ERR = H_SHAPE + TCOMM_MAX_DIMS, /* fields before H_ERR must agree */
    H_GATHER_IN,  /* all_gather: size along dim */
    H_GATHER_OUT, /* all_gather_into: out's size along dim */
    H_LEN
};

/* The peers' headers are decoded defensively: a corrupted header (a
 * broken peer, a wrong library on one rank) must give an error, never an
 * out-of-range index, an overflow or an unterminated string. */
static int64_t neg(int64_t v) /* -v, saturated: -INT64_MIN overflows */
{
    return v == INT64_MIN ? INT64_MAX : -v;
}

#define ERR_TEXT 240
typedef struct {
    int64_t status;
    int64_t gather_in; /* all_gather: the size along dim, else -1 */
    char text[ERR_TEXT];
} err_record_t;

/* all_gather: the sum of the sizes along dim, once every rank has sent
 * one; (size_t)-1 when some rank could not. */
static size_t gather_total(const err_record_t *all, int n)
{
    size_t total = 0;
    for (int r = 0; r < n; r++) {
        if (all[r].gather_in < 0 ||
            (uint64_t)all[r].gather_in >= SIZE_MAX - total)
            return SIZE_MAX;
        total += (size_t)all[r].gather_in;
    }
    return total;
}

/* The arguments checked mode agrees on. */
static void encode_arguments(const tcomm_comm_t *comm, const tcomm_call_t *c,
                             int64_t *h)
{
    const tcomm_coll_desc_t *d = c->desc;
    const tcomm_tensor_t *in = c->in;
    h[H_DTYPE] = in->dtype;
    if (d->args & TCOMM_ARG_OP)
        h[H_OP] = c->op;
    if (d->deterministic) /* the algorithms differ */
        h[H_DET] = comm->deterministic;
    if (d->args & TCOMM_ARG_DIM)
        h[H_DIM] = c->dim;
    if (d->args & TCOMM_ARG_ROOT)
        h[H_ROOT] = c->root;
    h[H_NDIM] = in->ndim;
    for (int i = 0; i < in->ndim; i++)
        h[H_SHAPE + i] = (int64_t)in->shape[i];
    if (d->out == TCOMM_OUT_CONCAT && in->ndim > 0)
        h[H_SHAPE + c->dim] = 0; /* sizes along dim may differ */
}

/* The call's identity (kind, sequence number, error flag) always; its
 * arguments in checked mode; all_gather's sizes along dim. */
static void encode(const tcomm_comm_t *comm, const tcomm_call_t *c,
                   tcomm_status_t local, int64_t *h)
{
    memset(h, 0, H_LEN * sizeof *h);
    h[H_KIND] = c->kind;
    h[H_SEQ] = (int64_t)comm->seq;
    h[H_ERR] = local != TCOMM_SUCCESS;
    if (local != TCOMM_SUCCESS || !(c->desc->args & TCOMM_ARG_TENSOR))
        return;
    if (comm->check)
        encode_arguments(comm, c, h);
    if (c->desc->out == TCOMM_OUT_CONCAT) {
        h[H_GATHER_IN] = (int64_t)tcomm_call_dim_size(c);
        h[H_GATHER_OUT] = c->into ? (int64_t)c->into->shape[c->dim] : -1;
    }
}

static tcomm_status_t gather_headers(tcomm_comm_t *comm, const int64_t *h,
                                     int64_t *all)
{
    return comm->ops->allgather_bytes(comm->state, h, all,
                                      H_LEN * sizeof *h);
}

/* The error round: every rank learns the first failing rank's sentence. */
static tcomm_status_t share_errors(tcomm_comm_t *comm,
                                   const tcomm_call_t *c,
                                   tcomm_status_t local)
{
    int n = comm->world_size;
    err_record_t mine = {.status = local,
                         .gather_in = tcomm_call_gather_size(c)};
    if (local != TCOMM_SUCCESS) {
        const char *msg = tcomm_last_error();
        const char *colon = strstr(msg, ": ");
        snprintf(mine.text, ERR_TEXT, "%s", colon ? colon + 2 : msg);
    }
    err_record_t *all = malloc((size_t)n * sizeof *all);
    if (!all) /* still answer: the failing ranks' own errors stand */
        return local != TCOMM_SUCCESS
                   ? local
                   : tcomm_error(TCOMM_ERR_MISMATCH,
                                 "%s: another rank rejected the call",
                                 c->fn);
    tcomm_error_kept_t own;
    tcomm_error_keep(&own);
    tcomm_status_t st = comm->ops->allgather_bytes(comm->state, &mine, all,
                                                   sizeof mine);
    size_t total = st == TCOMM_SUCCESS ? gather_total(all, n) : SIZE_MAX;
    if (local != TCOMM_SUCCESS) { /* the rank's own error stands */
        if (total != SIZE_MAX)
            tcomm_validate_fill_total(own.text, sizeof own.text, total);
        own.status = local;
        tcomm_error_restore(&own);
        free(all);
        return local;
    }
    if (st == TCOMM_SUCCESS) {
        int r = 0;
        while (r < n && all[r].status == TCOMM_SUCCESS)
            r++;
        if (r < n) {
            char text[512];
            all[r].text[ERR_TEXT - 1] = '\0';
            snprintf(text, sizeof text, "%s", all[r].text);
            if (total != SIZE_MAX)
                tcomm_validate_fill_total(text, sizeof text, total);
            st = tcomm_error(TCOMM_ERR_MISMATCH,
                             "%s: rank %d rejected the call: %s", c->fn, r,
                             text);
        } else { /* an error flag but no error: never move data then */
            st = tcomm_error(TCOMM_ERR_MISMATCH,
                             "%s: a rank flagged an error in the agreement "
                             "but sent none (inconsistent headers)",
                             c->fn);
        }
    }
    free(all);
    return st;
}

/* A peer's kind, as decoded: does its row concatenate along dim? */
static int concat_kind(int64_t kind)
{
    const tcomm_coll_desc_t *d =
        kind > 0 && kind < 64 ? tcomm_coll_desc((int)kind) : NULL;
    return d && d->out == TCOMM_OUT_CONCAT;
}

static void field_text(const int64_t *h, int field, char *buf, size_t len)
{
    if (field == H_SHAPE) {
        size_t shape[TCOMM_MAX_DIMS];
        int64_t nd = h[H_NDIM];
        if (nd < 0 || nd > TCOMM_MAX_DIMS) {
            snprintf(buf, len, "(invalid: %lld dims)", (long long)nd);
            return;
        }
        for (int i = 0; i < nd; i++)
            shape[i] = (size_t)h[H_SHAPE + i];
        if (concat_kind(h[H_KIND]) && nd > 0 && h[H_DIM] >= 0 &&
            h[H_DIM] < nd)
            shape[h[H_DIM]] = (size_t)h[H_GATHER_IN];
        tcomm_shape_text((int)nd, shape, buf, len);
    } else if (field == H_KIND) {
        snprintf(buf, len, "%s", tcomm_coll_name(h[H_KIND]));
    } else if (field == H_DTYPE) {
        snprintf(buf, len, "%s", tcomm_dtype_name(h[H_DTYPE]));
    } else if (field == H_OP) {
        snprintf(buf, len, "%s", tcomm_op_name(h[H_OP]));
    } else {
        snprintf(buf, len, "%lld", (long long)h[field]);
    }
}

/* Name the first field on which some rank differs from rank 0. */
static tcomm_status_t name_mismatch(const tcomm_call_t *c, int n,
                                    const int64_t *all)
{
    static const struct {
        int field, end;
        const char *name;
    } fields[] = {
        {H_KIND, H_KIND + 1, "the collective"},
        {H_SEQ, H_SEQ + 1, "the call sequence number"},
        {H_DTYPE, H_DTYPE + 1, "dtype"},
        {H_OP, H_OP + 1, "op"},
        {H_DIM, H_DIM + 1, "dim"},
        {H_ROOT, H_ROOT + 1, "root"},
        {H_DET, H_DET + 1, "deterministic mode"},
        {H_NDIM, H_ERR, "shape"},
    };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        int lo = fields[f].field, hi = fields[f].end;
        for (int r = 1; r < n; r++) {
            const int64_t *h0 = all, *hr = all + (size_t)r * H_LEN;
            if (!memcmp(h0 + lo, hr + lo, (size_t)(hi - lo) * 8))
                continue;
            int shown = lo == H_NDIM ? H_SHAPE : lo;
            char a[256], b[256];
            field_text(h0, shown, a, sizeof a);
            field_text(hr, shown, b, sizeof b);
            return tcomm_error(TCOMM_ERR_MISMATCH,
                               "%s: ranks disagree on %s: rank 0 has %s, "
                               "rank %d has %s (call the same collective "
                               "with matching arguments on every rank)",
                               c->fn, fields[f].name, a, r, b);
        }
    }
    return tcomm_error(TCOMM_ERR_INTERNAL,
                       "%s: ranks disagree but the headers match", c->fn);
}

/* all_gather: every rank's size along dim, and each _into output's size
 * checked against their sum on every rank, so that all agree. */
static tcomm_status_t gather_sizes(const tcomm_call_t *c, int n, int me,
                                   const int64_t *in_sz,
                                   const int64_t *out_sz, size_t stride,
                                   size_t *sizes)
{
    size_t total = 0;
    for (int r = 0; r < n; r++) {
        int64_t v = in_sz[(size_t)r * stride];
        if (v < 0 || (uint64_t)v > SIZE_MAX - total)
            return tcomm_error(TCOMM_ERR_MISMATCH,
                               "%s: rank %d sent an invalid size %lld along "
                               "dim %d (a corrupted agreement header)",
                               c->fn, r, (long long)v, c->dim);
        total += sizes[r] = (size_t)v;
    }
    /* A rank whose own out is wrong reports its own error, even when an
     * earlier rank's is wrong too. */
    int64_t mine = out_sz[(size_t)me * stride];
    if (mine >= 0 && (size_t)mine != total)
        return tcomm_validate_gather_out(c, (size_t)mine, total);
    for (int r = 0; r < n; r++) {
        int64_t o = out_sz[(size_t)r * stride];
        if (o < 0 || (size_t)o == total)
            continue;
        return tcomm_error(TCOMM_ERR_MISMATCH,
                           "%s: rank %d rejected the call: out has size "
                           "%lld along dim %d but the ranks' sizes add up "
                           "to %zu",
                           c->fn, r, (long long)o, c->dim, total);
    }
    return TCOMM_SUCCESS;
}

/* TCOMM_CHECK=0: all_gather still exchanges the sizes along dim. */
static tcomm_status_t exchange_sizes(tcomm_comm_t *comm,
                                     const tcomm_call_t *c, size_t *sizes)
{
    int n = comm->world_size;
    int64_t mine[2] = {(int64_t)tcomm_call_dim_size(c),
                       c->into ? (int64_t)c->into->shape[c->dim] : -1};
    int64_t stack[2 * TCOMM_STACK_RANKS], *all = stack;
    if (n > TCOMM_STACK_RANKS && !(all = malloc((size_t)n * sizeof mine)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                           c->fn);
    tcomm_status_t st =
        comm->ops->allgather_bytes(comm->state, mine, all, sizeof mine);
    if (st == TCOMM_SUCCESS)
        st = gather_sizes(c, n, comm->rank, all, all + 1, 2, sizes);
    if (all != stack)
        free(all);
    return st;
}

/* The summary every rank contributes to the first exchange: a hash of
 * the fields that must agree, the element count they imply (exact, so a
 * size difference can never hide in a hash collision), all_gather's sizes
 * along dim, and the error flag. [s, -s] under MIN yields the minimum and
 * maximum of each in 80 bytes, whatever the number of dims. */
enum { S_HASH, S_SIZE, S_GIN, S_GOUT, S_ERR, S_LEN };

static void summarize(const int64_t *h, int64_t *s)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    int64_t size = 1;
    for (int i = 0; i < H_ERR; i++) { /* splitmix64's finalizer per field */
        x = (x ^ (uint64_t)h[i]) + 0x9e3779b97f4a7c15u;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
        x ^= x >> 31;
    }
    for (int i = 0; i < TCOMM_MAX_DIMS; i++) /* all_gather: dim's is 0 */
        if (i < h[H_NDIM] && !(concat_kind(h[H_KIND]) &&
                               i == h[H_DIM]))
            size = (int64_t)((uint64_t)size * (uint64_t)h[H_SHAPE + i]);
    s[S_HASH] = (int64_t)(x >> 2); /* non-negative: -s never overflows */
    s[S_SIZE] = size;
    s[S_GIN] = h[H_GATHER_IN];
    s[S_GOUT] = h[H_GATHER_OUT];
    s[S_ERR] = h[H_ERR];
}

/* Element-wise minimum of [s, -s] over the gathered headers. */
static void summarize_all(const int64_t *all, int n, int64_t *mm)
{
    for (int r = 0; r < n; r++) {
        int64_t s[S_LEN];
        summarize(all + (size_t)r * H_LEN, s);
        for (int i = 0; i < S_LEN; i++) {
            if (r == 0 || s[i] < mm[i])
                mm[i] = s[i];
            if (r == 0 || neg(s[i]) < mm[S_LEN + i])
                mm[S_LEN + i] = neg(s[i]);
        }
    }
}

static int64_t *header_buffer(int n, int64_t *stack, size_t stack_len)
{
    if ((size_t)n * H_LEN <= stack_len)
        return stack;
    return malloc((size_t)n * H_LEN * sizeof(int64_t));
}

/* all_gather when every rank has the same size along dim and the same
 * out size: the sizes are known without another exchange. */
static int equal_sizes(const tcomm_call_t *c, int n, const int64_t *mm,
                       size_t *sizes, tcomm_status_t *st)
{
    int64_t gin = mm[S_GIN], gout = mm[S_GOUT];
    if (gin != neg(mm[S_LEN + S_GIN]) || gout != neg(mm[S_LEN + S_GOUT]) ||
        gin < 0 || (uint64_t)gin > SIZE_MAX / (uint64_t)n)
        return 0;
    for (int r = 0; r < n; r++)
        sizes[r] = (size_t)gin;
    /* every rank made the same _into error, or none did */
    *st = gout < 0 ? TCOMM_SUCCESS
                   : tcomm_validate_gather_out(c, (size_t)gout,
                                               (size_t)gin * (size_t)n);
    return 1;
}

tcomm_status_t tcomm_agree(tcomm_comm_t *comm, const tcomm_call_t *call,
                           tcomm_status_t local, size_t *sizes)
{
    int n = comm->world_size;
    int gather = call->desc->out == TCOMM_OUT_CONCAT;
    if (gather && !TCOMM_HAS_OP(comm, allgather_bytes) &&
        local == TCOMM_SUCCESS)
        return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                           "%s: backend %s has no allgather_bytes, which "
                           "all_gather needs to learn every rank's size "
                           "along dim (add it to the backend's vtable)",
                           call->fn, comm->ops->name);
    if (!tcomm_agrees(comm)) {
        if (local != TCOMM_SUCCESS || !gather)
            return local;
        return exchange_sizes(comm, call, sizes);
    }
    int64_t h[H_LEN], mm[2 * S_LEN];
    encode(comm, call, local, h);
    int64_t stack[H_LEN * 16], *all = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    if (!TCOMM_HAS_OP(comm, allreduce_min_i64)) { /* gather headers */
        if (!(all = header_buffer(n, stack, H_LEN * 16)))
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "%s: out of host memory", call->fn);
        if ((st = gather_headers(comm, h, all)) != TCOMM_SUCCESS)
            goto out;
        summarize_all(all, n, mm);
    } else { /* the same call for every collective kind */
        summarize(h, mm);
        for (int i = 0; i < S_LEN; i++)
            mm[S_LEN + i] = neg(mm[i]);
        st = comm->ops->allreduce_min_i64(comm->state, mm, 2 * S_LEN);
        if (st != TCOMM_SUCCESS)
            return st;
    }
    if (mm[S_LEN + S_ERR] != 0) { /* some rank rejected the call */
        st = share_errors(comm, call, local);
        goto out;
    }
    if (mm[S_HASH] != neg(mm[S_LEN + S_HASH]) ||
        mm[S_SIZE] != neg(mm[S_LEN + S_SIZE])) {
        if (!all) {
            if (!(all = header_buffer(n, stack, H_LEN * 16)))
                return tcomm_error(TCOMM_ERR_NO_MEMORY,
                                   "%s: out of host memory", call->fn);
            if ((st = gather_headers(comm, h, all)) != TCOMM_SUCCESS)
                goto out;
        }
        st = name_mismatch(call, n, all);
        goto out;
    }
    if (gather && all) /* the headers carry the sizes */
        st = gather_sizes(call, n, comm->rank, all + H_GATHER_IN,
                          all + H_GATHER_OUT, H_LEN, sizes);
    else if (gather && !equal_sizes(call, n, mm, sizes, &st))
        st = exchange_sizes(comm, call, sizes); /* uneven: one more round */
out:
    if (all && all != stack)
        free(all);
    return st;
}
