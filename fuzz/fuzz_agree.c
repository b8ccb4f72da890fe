/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the cross-rank agreement's decoder (src/frontend/agree.c),
 * driven through the public API. The input describes this rank's call
 * (world size 2-8, rank, collective and form, dtype, op, dim, root, shape,
 * TCOMM_CHECK and deterministic mode); the rest of the input is what the
 * other ranks "send": a custom backend answers every agreement exchange
 * (the MIN-allreduce over the headers, the header gather, the error
 * records, the sizes along dim) with this rank's bytes XOR the input, so
 * that zero bytes mean an agreeing peer and any other byte a corrupted or
 * malicious one. Whatever the peers send, the call must return a status
 * (never crash, read or write out of bounds), and a call that reaches the
 * backend must hand it sizes that fit the output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm.h"
#include "tcomm_backend.h"

/* Huge sizes from a peer must fail as TCOMM_ERR_NO_MEMORY, not abort. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=256";
}

/* Tensors in private memory, under that limit: the shared tensor arena
 * (a memfd as large as the node's memory) would serve a peer's huge
 * sizes and the fuzzer would stop at its RSS limit instead. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("TCOMM_SINGLE_COPY", "0", 1);
    return 0;
}

typedef struct {
    int n, me;
    const uint8_t *p;
    size_t left;
} peer_t;

static uint8_t next(peer_t *s)
{
    if (!s->left)
        return 0;
    s->left--;
    return *s->p++;
}

static uint64_t next64(peer_t *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)next(s) << (8 * i);
    return v;
}

static tcomm_status_t q(void *st, int *rank, int *ws, int *ca)
{
    peer_t *s = st;
    *rank = s->me;
    *ws = s->n;
    *ca = 0;
    return TCOMM_SUCCESS;
}

static tcomm_status_t gather(void *st, const void *mine, void *all,
                             size_t bytes)
{
    peer_t *s = st;
    const uint8_t *m = mine;
    for (int r = 0; r < s->n; r++) {
        uint8_t *dst = (uint8_t *)all + (size_t)r * bytes;
        for (size_t i = 0; i < bytes; i++)
            dst[i] = r == s->me ? m[i] : (uint8_t)(m[i] ^ next(s));
    }
    return TCOMM_SUCCESS;
}

/* values = [h, -h]: each peer sends [h ^ x, -(h ^ x)] (a consistent
 * header) or, when its first byte is odd, arbitrary pairs. */
static tcomm_status_t min_i64(void *st, int64_t *v, int count)
{
    peer_t *s = st;
    int half = count / 2;
    int64_t *mine = malloc((size_t)count * sizeof *mine);
    if (!mine)
        return tcomm_backend_error(TCOMM_ERR_NO_MEMORY, "fuzz: no memory");
    memcpy(mine, v, (size_t)count * sizeof *mine);
    for (int r = 0; r < s->n; r++) {
        if (r == s->me)
            continue;
        int raw = next(s) & 1;
        for (int i = 0; i < half; i++) {
            uint64_t x = next64(s);
            int64_t lo = (int64_t)((uint64_t)mine[i] ^ x);
            int64_t hi = raw ? (int64_t)next64(s)
                             : (int64_t)(0 - (uint64_t)lo);
            v[i] = lo < v[i] ? lo : v[i];
            v[half + i] = hi < v[half + i] ? hi : v[half + i];
        }
    }
    free(mine);
    return TCOMM_SUCCESS;
}

static tcomm_status_t ar(void *st, const tcomm_tensor_t *in, tcomm_op_t op,
                         tcomm_tensor_t *out)
{
    return TCOMM_SUCCESS;
}

/* The MPI backend places rank r's rows at the sum of sizes[0..r-1]: the
 * sizes the front end passes must add up to out's size along dim. */
static tcomm_status_t ag(void *st, const tcomm_tensor_t *in, int dim,
                         const size_t *sizes, tcomm_tensor_t *out)
{
    peer_t *s = st;
    size_t total = 0, want = tcomm_tensor_dim(out, dim);
    for (int r = 0; r < s->n; r++) {
        if (sizes[r] > want - total)
            __builtin_trap(); /* would overrun out */
        total += sizes[r];
    }
    if (total != want)
        __builtin_trap();
    return TCOMM_SUCCESS;
}

static tcomm_status_t rs(void *st, const tcomm_tensor_t *in, tcomm_op_t op,
                         int dim, tcomm_tensor_t *out)
{
    return TCOMM_SUCCESS;
}

static tcomm_status_t bc(void *st, const tcomm_tensor_t *in, int root,
                         tcomm_tensor_t *out)
{
    return TCOMM_SUCCESS;
}

static tcomm_status_t bar(void *st) { return TCOMM_SUCCESS; }

static const tcomm_backend_ops_t ops = {
    .name = "fuzz",
    .query = q,
    .allgather_bytes = gather,
    .allreduce_min_i64 = min_i64,
    .all_reduce = ar,
    .all_gather = ag,
    .reduce_scatter = rs,
    .broadcast = bc,
    .barrier = bar,
};

/* The same, without allreduce_min_i64: headers gathered by every rank. */
static const tcomm_backend_ops_t ops_gather = {
    .name = "fuzz-gather",
    .query = q,
    .allgather_bytes = gather,
    .all_reduce = ar,
    .all_gather = ag,
    .reduce_scatter = rs,
    .broadcast = bc,
    .barrier = bar,
};

static tcomm_graph_t *graph;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 12)
        return 0;
    if (!graph &&
        tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &graph))
        abort();
    peer_t s = {.n = 2 + data[0] % 7, .p = data + 12, .left = size - 12};
    s.me = data[1] % s.n;
    int call = data[2] % 10, flags = data[3];
    tcomm_dtype_t dtype = (tcomm_dtype_t)(data[4] % 9);
    int op = (int8_t)data[5] % 7;
    int dim = (int8_t)data[6] % 6;
    int root = (int8_t)data[7] % 10;
    int nd = data[8] % 5;
    size_t shape[4];
    for (int i = 0; i < 4; i++)
        shape[i] = (data[9 + i / 2] >> (4 * (i % 2))) & 7;
    size_t out_shape[4];
    memcpy(out_shape, shape, sizeof shape);
    if (nd > 0 && dim >= 0 && dim < nd)
        out_shape[dim] += data[11] % 24; /* all_gather_into's guess */

    tcomm_comm_t *comm;
    if (tcomm_comm_create_custom(flags & 4 ? &ops_gather : &ops, &s, &comm))
        return 0;
    tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, !(flags & 1));
    tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, (flags >> 1) & 1);
    tcomm_tensor_t *in = NULL, *into = NULL, *out = NULL;
    if (tcomm_tensor_empty(graph, dtype, nd, shape, &in))
        goto done;
    if (call >= 5 && tcomm_tensor_empty(graph, dtype,
                                        call == 6 && nd == 0 ? 1 : nd,
                                        out_shape, &into))
        goto done;
    switch (call) {
    case 0: tcomm_all_reduce(comm, in, (tcomm_op_t)op, &out); break;
    case 1: tcomm_all_gather(comm, in, dim, &out); break;
    case 2: tcomm_reduce_scatter(comm, in, (tcomm_op_t)op, dim, &out); break;
    case 3: tcomm_broadcast(comm, in, root, &out); break;
    case 4: tcomm_barrier(comm); break;
    case 5: tcomm_all_reduce_into(comm, in, (tcomm_op_t)op, into); break;
    case 6: tcomm_all_gather_into(comm, in, dim, into); break;
    case 7:
        tcomm_reduce_scatter_into(comm, in, (tcomm_op_t)op, dim, into);
        break;
    case 8: tcomm_broadcast_into(comm, in, root, into); break;
    default: tcomm_all_gather_into(comm, in, dim, in); break;
    }
    (void)strlen(tcomm_last_error());
done:
    tcomm_tensor_release(out);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
    tcomm_comm_destroy(comm);
    return 0;
}
