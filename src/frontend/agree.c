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
#include "tcomm_test_hooks.h"

enum {
    H_KIND, H_SEQ, H_DTYPE, H_OP, H_DIM, H_CONCAT, H_ROOT, H_DET,
    H_VHASH, /* reduce_scatter_v: a hash of sizes */
    H_NDIM, H_SHAPE,
    H_ERR = H_SHAPE + TCOMM_MAX_DIMS, /* fields before H_ERR must agree */
    H_GATHER_IN,  /* all_gather: size along dim; all_to_all_v: along
                     concat_dim */
    H_GATHER_OUT, /* all_gather_into: out's size along dim */
    H_SPLIT_IN,   /* all_to_all_v: size along split_dim */
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

/* The dims whose sizes may differ between ranks, as a bit mask, by the
 * kind's row: all_gather's dim, all_to_all_v's split and concat dims
 * (the exchange that follows checks those). Decoded defensively. */
static const tcomm_coll_desc_t *row_of(const int64_t *h)
{
    return h[H_KIND] > 0 && h[H_KIND] < 64 ? tcomm_coll_desc((int)h[H_KIND])
                                           : NULL;
}

static unsigned free_dims(const int64_t *h)
{
    const tcomm_coll_desc_t *d = row_of(h);
    unsigned mask = 0;
    if (d && d->out == TCOMM_OUT_CONCAT && h[H_DIM] >= 0 &&
        h[H_DIM] < TCOMM_MAX_DIMS)
        mask |= 1u << h[H_DIM];
    if (d && d->out == TCOMM_OUT_ALL_TO_ALL_V && h[H_DIM] >= 0 &&
        h[H_DIM] < TCOMM_MAX_DIMS && h[H_CONCAT] >= 0 &&
        h[H_CONCAT] < TCOMM_MAX_DIMS)
        mask |= 1u << h[H_DIM] | 1u << h[H_CONCAT];
    return mask;
}

static uint64_t mix(uint64_t x, uint64_t v) /* splitmix64's finalizer */
{
    x = (x ^ v) + 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static int64_t hash_sizes(const size_t *v, int n)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int r = 0; r < n; r++)
        x = mix(x, v[r]);
    return (int64_t)(x >> 2);
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
    if (d->args & TCOMM_ARG_CONCAT)
        h[H_CONCAT] = c->concat_dim;
    if (d->out == TCOMM_OUT_SPLIT_V)
        h[H_VHASH] = hash_sizes(c->vsizes, comm->world_size);
    h[H_NDIM] = in->ndim;
    for (int i = 0; i < in->ndim; i++)
        h[H_SHAPE + i] = (int64_t)in->shape[i];
    unsigned free = free_dims(h);
    for (int i = 0; i < in->ndim; i++)
        if (free >> i & 1)
            h[H_SHAPE + i] = 0; /* may differ: exchanged and checked */
}

/* The call's identity (kind, sequence number, error flag) and its
 * arguments, all_gather's sizes along dim. Unchecked mode with a timeout
 * agrees on the arguments too: the ranks choose their paths from them,
 * so ranks that differ would wait in different exchanges, which no
 * timeout bounds; the round's size is the same either way. */
static void encode(const tcomm_comm_t *comm, const tcomm_call_t *c,
                   tcomm_status_t local, int64_t *h)
{
    memset(h, 0, H_LEN * sizeof *h);
    h[H_KIND] = c->kind;
    h[H_SEQ] = (int64_t)comm->seq;
    h[H_ERR] = local != TCOMM_SUCCESS;
    if (local != TCOMM_SUCCESS || !(c->desc->args & TCOMM_ARG_TENSOR))
        return;
    if (comm->check || !tcomm_test_hook(TCOMM_HOOK_IDENTITY_ONLY))
        encode_arguments(comm, c, h);
    if (c->desc->out == TCOMM_OUT_CONCAT) {
        h[H_GATHER_IN] = (int64_t)tcomm_call_dim_size(c);
        h[H_GATHER_OUT] = c->into ? (int64_t)c->into->shape[c->dim] : -1;
    }
    if (c->desc->out == TCOMM_OUT_ALL_TO_ALL_V) {
        h[H_GATHER_IN] = (int64_t)c->in->shape[c->concat_dim];
        h[H_GATHER_OUT] = -1;
        h[H_SPLIT_IN] = (int64_t)c->in->shape[c->dim];
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

static void field_text(const int64_t *h, int field, char *buf, size_t len)
{
    if (field == H_SHAPE) {
        size_t shape[TCOMM_MAX_DIMS];
        int64_t nd = h[H_NDIM];
        if (nd < 0 || nd > TCOMM_MAX_DIMS) {
            snprintf(buf, len, "(invalid: %lld dims)", (long long)nd);
            return;
        }
        const tcomm_coll_desc_t *d = row_of(h);
        unsigned free = free_dims(h);
        for (int i = 0; i < nd; i++)
            shape[i] = (size_t)h[H_SHAPE + i];
        /* the real sizes of the free dims, for the reader */
        if (free && d->out == TCOMM_OUT_ALL_TO_ALL_V) {
            if (h[H_DIM] < nd)
                shape[h[H_DIM]] = (size_t)h[H_SPLIT_IN];
            if (h[H_CONCAT] < nd)
                shape[h[H_CONCAT]] = (size_t)h[H_GATHER_IN];
        } else if (free && h[H_DIM] < nd) {
            shape[h[H_DIM]] = (size_t)h[H_GATHER_IN];
        }
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

/* "[a, b, c]" of n sizes, cut short with "..." when it does not fit. */
static void sizes_text(const int64_t *v, int n, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int r = 0; r < n && at + 24 < len; r++)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld", r ? ", " : "",
                               (long long)v[r]);
    snprintf(buf + at, len - at, at + 24 < len ? "]" : ", ...]");
}

static tcomm_status_t sizes_differ(const tcomm_call_t *c, const char *name,
                                   int n, const int64_t *v0, int r,
                                   const int64_t *vr, const char *fix)
{
    char a[256], b[256];
    sizes_text(v0, n, a, sizeof a);
    sizes_text(vr, n, b, sizeof b);
    return tcomm_error(TCOMM_ERR_MISMATCH,
                       "%s: ranks disagree on %s: rank 0 has %s, rank %d "
                       "has %s (%s)",
                       c->fn, name, a, r, b, fix);
}

/* reduce_scatter_v's sizes differ (their hashes did): every rank is
 * here, so one more exchange shows the arrays, the first rank whose
 * array differs from rank 0's beside it. */
static tcomm_status_t name_sizes_mismatch(tcomm_comm_t *comm,
                                          const tcomm_call_t *c)
{
    int n = comm->world_size, r = 1;
    int64_t *all = malloc((size_t)n * (size_t)n * sizeof *all);
    int64_t *mine = malloc((size_t)n * sizeof *mine);
    tcomm_status_t st = TCOMM_ERR_NO_MEMORY;
    if (all && mine) {
        for (int q = 0; q < n; q++)
            mine[q] = (int64_t)c->vsizes[q];
        st = comm->ops->allgather_bytes(comm->state, mine, all,
                                        (size_t)n * sizeof *all);
    }
    while (st == TCOMM_SUCCESS && r < n - 1 &&
           !memcmp(all, all + (size_t)r * n, (size_t)n * sizeof *all))
        r++;
    if (st == TCOMM_SUCCESS)
        st = sizes_differ(c, "sizes", n, all, r, all + (size_t)r * n,
                          "pass the same sizes on every rank");
    else if (st == TCOMM_ERR_NO_MEMORY)
        st = tcomm_error(TCOMM_ERR_MISMATCH,
                         "%s: ranks disagree on sizes: rank 0's differ "
                         "from another rank's (pass the same sizes on "
                         "every rank)",
                         c->fn);
    free(all);
    free(mine);
    return st;
}

/* TCOMM_CHECK=0 without a timeout: reduce_scatter_v's ranks choose
 * their algorithm from sizes (one MPI call for equal sizes, another for
 * uneven ones), so they compare a hash of them first, as all_to_all_v
 * exchanges its table; ranks that differ would wait in different calls.
 * A backend that can exchange nothing chooses no path from them. */
static tcomm_status_t agree_vsizes(tcomm_comm_t *comm, const tcomm_call_t *c)
{
    int n = comm->world_size, differ = 0;
    int64_t mine = hash_sizes(c->vsizes, n), mm[2] = {mine, neg(mine)};
    int64_t stack[TCOMM_STACK_RANKS], *all = stack;
    tcomm_status_t st = TCOMM_SUCCESS;
    if (TCOMM_HAS_OP(comm, allreduce_min_i64)) {
        st = comm->ops->allreduce_min_i64(comm->state, mm, 2);
        differ = mm[0] != neg(mm[1]);
    } else if (TCOMM_HAS_OP(comm, allgather_bytes)) {
        if (n > TCOMM_STACK_RANKS &&
            !(all = malloc((size_t)n * sizeof *all)))
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "%s: out of host memory", c->fn);
        st = comm->ops->allgather_bytes(comm->state, &mine, all,
                                        sizeof mine);
        for (int r = 0; st == TCOMM_SUCCESS && r < n; r++)
            differ |= all[r] != mine;
        if (all != stack)
            free(all);
    }
    return st == TCOMM_SUCCESS && differ ? name_sizes_mismatch(comm, c)
                                         : st;
}

/* Name the first field on which some rank differs from rank 0. */
static tcomm_status_t name_mismatch(tcomm_comm_t *comm, const tcomm_call_t *c,
                                    const int64_t *all)
{
    int n = comm->world_size;
    static const struct {
        int field, end;
        const char *name;
    } fields[] = {
        {H_KIND, H_KIND + 1, "the collective"},
        {H_SEQ, H_SEQ + 1, "the call sequence number"},
        {H_DTYPE, H_DTYPE + 1, "dtype"},
        {H_OP, H_OP + 1, "op"},
        {H_DIM, H_DIM + 1, "dim"},
        {H_CONCAT, H_CONCAT + 1, "concat_dim"},
        {H_ROOT, H_ROOT + 1, "root"},
        {H_DET, H_DET + 1, "deterministic mode"},
        {H_VHASH, H_VHASH + 1, "sizes"},
        {H_NDIM, H_ERR, "shape"},
    };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        int lo = fields[f].field, hi = fields[f].end;
        for (int r = 1; r < n; r++) {
            const int64_t *h0 = all, *hr = all + (size_t)r * H_LEN;
            if (!memcmp(h0 + lo, hr + lo, (size_t)(hi - lo) * 8))
                continue;
            if (lo == H_VHASH && c->desc->out == TCOMM_OUT_SPLIT_V &&
                c->vsizes) /* else a corrupted header: name the field */
                return name_sizes_mismatch(comm, c);
            int shown = lo == H_NDIM ? H_SHAPE : lo;
            const char *name = fields[f].name;
            if (lo == H_DIM && (c->desc->args & TCOMM_ARG_CONCAT))
                name = "split_dim";
            char a[256], b[256];
            field_text(h0, shown, a, sizeof a);
            field_text(hr, shown, b, sizeof b);
            return tcomm_error(TCOMM_ERR_MISMATCH,
                               "%s: ranks disagree on %s: rank 0 has %s, "
                               "rank %d has %s (call the same collective "
                               "with matching arguments on every rank)",
                               c->fn, name, a, r, b);
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

/* all_to_all_v's table of sizes, a row per rank (its size along
 * concat_dim, then its send_sizes): recv[r] as exchange_v says. */
static tcomm_status_t check_v(const tcomm_comm_t *comm,
                              const tcomm_call_t *c, const int64_t *all,
                              size_t *recv, size_t *extent_max)
{
    int n = comm->world_size, me = comm->rank;
    size_t row = (size_t)n + 1;
    tcomm_status_t st = TCOMM_SUCCESS;
    size_t total = 0, extent = 0;
    for (int r = 0; r < n && st == TCOMM_SUCCESS; r++) {
        const int64_t *v = all + (size_t)r * row;
        size_t rows = 0, cols = 0; /* rank r's input, output along dim */
        for (int q = 0; q < n; q++) {
            rows += (size_t)v[1 + q];
            cols += (size_t)all[(size_t)q * row + 1 + r];
        }
        extent = rows > extent ? rows : extent;
        extent = cols > extent ? cols : extent;
        for (size_t i = 0; i < row; i++)
            if (v[i] < 0)
                st = tcomm_error(TCOMM_ERR_MISMATCH,
                                 "%s: rank %d sent an invalid size %lld (a "
                                 "corrupted agreement header)",
                                 c->fn, r, (long long)v[i]);
        if (c->dim != c->concat_dim && r > 0 && st == TCOMM_SUCCESS &&
            memcmp(all + 1, v + 1, (size_t)n * sizeof *v))
            st = sizes_differ(c, "send_sizes", n, all + 1, r, v + 1,
                              "split_dim != concat_dim is a transpose: pass "
                              "the same send_sizes on every rank");
        recv[r] = (size_t)(c->dim != c->concat_dim ? v[0] : v[1 + me]);
        if (st == TCOMM_SUCCESS && recv[r] > SIZE_MAX - total)
            st = tcomm_error(TCOMM_ERR_SHAPE,
                             "%s: the pieces sent to rank %d add up to more "
                             "than SIZE_MAX along concat_dim",
                             c->fn, me);
        total += st == TCOMM_SUCCESS ? recv[r] : 0;
    }
    *extent_max = extent; /* the token mode's (tcomm_coll_args_t) */
    return st;
}

/* all_to_all_v: every rank's size along concat_dim and send_sizes, so
 * that each knows what arrives from whom: recv[r] is the size along
 * concat_dim of rank r's piece for this rank (the token exchange: rank
 * r's send_sizes[me]; the transpose: rank r's size along concat_dim,
 * after checking that every rank passed the same send_sizes). Every rank
 * sees the same table, so every rank reaches the same verdict. The table
 * comes with the round where it carried the sizes (eager: with the
 * inputs, or alone where an input was too large), else from one more
 * exchange; it goes to the backend with the call (v->table, which the
 * caller frees). */
static tcomm_status_t exchange_v(tcomm_comm_t *comm, const tcomm_call_t *c,
                                 size_t *recv, tcomm_eager_t *eager,
                                 tcomm_v_table_t *v)
{
    int n = comm->world_size;
    size_t row = (size_t)n + 1;
    int64_t *all = v->table = malloc(row * (size_t)n * sizeof *all);
    int64_t stack[TCOMM_STACK_RANKS + 1], *mine = stack;
    tcomm_status_t st;
    if (all && eager && eager->carried) {
        int whole = tcomm_eager_v_table(comm, c, eager, all);
        if (whole || tcomm_eager_v_sizes(comm, c, eager, all)) {
            eager->carried = whole; /* the sizes alone: dispatch */
            return check_v(comm, c, all, recv, &v->extent_max);
        }
    }
    if (eager) /* another op: the blocks are gone */
        eager->carried = 0;
    if (!all || (n > TCOMM_STACK_RANKS &&
                 !(mine = malloc(row * sizeof *mine))))
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                           c->fn);
    tcomm_eager_v_header(comm, c, mine);
    tcomm_note_step(comm, c->kind, TCOMM_PATH_V_TABLE_ROUND,
                    "%s: every rank's sizes by a round of their own (not "
                    "carried in the agreement's)",
                    c->desc->name);
    st = comm->ops->allgather_bytes(comm->state, mine, all,
                                    row * sizeof *all);
    if (st == TCOMM_SUCCESS)
        st = check_v(comm, c, all, recv, &v->extent_max);
    if (mine != stack)
        free(mine);
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
    unsigned free = free_dims(h);
    for (int i = 0; i < H_ERR; i++)
        x = mix(x, (uint64_t)h[i]);
    for (int i = 0; i < TCOMM_MAX_DIMS; i++) /* free dims are 0 there */
        if (i < h[H_NDIM] && !(free >> i & 1))
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

/* The first exchange over the summary [s, -s], carrying this rank's
 * input where the backend can (src/frontend/eager.c). */
static tcomm_status_t first_round(tcomm_comm_t *comm, const tcomm_call_t *c,
                                  tcomm_status_t local, int64_t *mm,
                                  tcomm_eager_t *eager)
{
    if (!eager || !TCOMM_HAS_OP(comm, allreduce_min_i64_carry))
        return comm->ops->allreduce_min_i64(comm->state, mm, 2 * S_LEN);
    const void *data;
    size_t bytes;
    tcomm_eager_offer(comm, c, local, eager, &data, &bytes);
    return comm->ops->allreduce_min_i64_carry(comm->state, mm, 2 * S_LEN,
                                              data, bytes, eager->blocks,
                                              eager->lens, &eager->carried);
}

static tcomm_status_t agree(tcomm_comm_t *comm, const tcomm_call_t *call,
                            tcomm_status_t local, size_t *sizes,
                            tcomm_eager_t *eager, tcomm_v_table_t *v)
{
    int n = comm->world_size;
    int gather = call->desc->out == TCOMM_OUT_CONCAT;
    int all_to_all_v = call->desc->out == TCOMM_OUT_ALL_TO_ALL_V;
    if ((gather || all_to_all_v) && !TCOMM_HAS_OP(comm, allgather_bytes) &&
        local == TCOMM_SUCCESS)
        return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                           "%s: backend %s has no allgather_bytes, which "
                           "%s needs to learn every rank's sizes (add it "
                           "to the backend's vtable)",
                           call->fn, comm->ops->name, call->desc->name);
    if (!tcomm_agrees(comm)) {
        if (local == TCOMM_SUCCESS && call->desc->out == TCOMM_OUT_SPLIT_V)
            return agree_vsizes(comm, call);
        if (local != TCOMM_SUCCESS || !(gather || all_to_all_v))
            return local;
        return gather ? exchange_sizes(comm, call, sizes)
                      : exchange_v(comm, call, sizes, NULL, v);
    }
    int64_t h[H_LEN], mm[2 * S_LEN];
    encode(comm, call, local, h);
    int64_t stack[H_LEN * 16], *all = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    if (!TCOMM_HAS_OP(comm, allreduce_min_i64) &&
        !TCOMM_HAS_OP(comm, allreduce_min_i64_carry)) { /* gather headers */
        if (!(all = header_buffer(n, stack, H_LEN * 16)))
            return tcomm_error(TCOMM_ERR_NO_MEMORY,
                               "%s: out of host memory", call->fn);
        TCOMM_CHECK_GOTO(gather_headers(comm, h, all), st, out);
        summarize_all(all, n, mm);
    } else { /* the same call for every collective kind */
        summarize(h, mm);
        for (int i = 0; i < S_LEN; i++)
            mm[S_LEN + i] = neg(mm[i]);
        TCOMM_TRY(first_round(comm, call, local, mm, eager));
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
            TCOMM_CHECK_GOTO(gather_headers(comm, h, all), st, out);
        }
        st = name_mismatch(comm, call, all);
        goto out;
    }
    if (gather && all) /* the headers carry the sizes */
        st = gather_sizes(call, n, comm->rank, all + H_GATHER_IN,
                          all + H_GATHER_OUT, H_LEN, sizes);
    else if (gather && !equal_sizes(call, n, mm, sizes, &st)) {
        if (eager) /* another op: the blocks are gone */
            eager->carried = 0;
        st = exchange_sizes(comm, call, sizes); /* uneven: one more round */
    } else if (all_to_all_v)
        st = exchange_v(comm, call, sizes, eager, v);
out:
    if (all && all != stack)
        free(all);
    return st;
}

tcomm_status_t tcomm_agree(tcomm_comm_t *comm, const tcomm_call_t *call,
                           tcomm_status_t local, size_t *sizes,
                           tcomm_eager_t *eager, tcomm_v_table_t *v)
{
    if (eager)
        eager->carried = 0;
    v->table = NULL;
    v->extent_max = 0;
    tcomm_status_t st = agree(comm, call, local, sizes, eager, v);
    if (eager && st != TCOMM_SUCCESS)
        eager->carried = 0;
    return st;
}
