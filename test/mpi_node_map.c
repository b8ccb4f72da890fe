/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI suite of the mapped tensor arenas (src/mpi/node/node_map.c,
 * src/core/host_arena.c), 1-4 ranks: the single copies between
 * tensors that tcomm allocated are memcpy through the peer's mapped
 * arena, those with wrapped private buffers cross-memory attach, mixed
 * ones both; every collective's result against the reference, inputs
 * unchanged, and the count of mapped copies says which way they went. */
#include <check.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_suite.h"
#include "node_suite.h"
#include "tcomm.h"
#include "tcomm_host_arena.h"
#include "tcomm_mpi.h"
#include "node_map_count.h"
#include "tcomm_test_hooks.h"

static int rank, np;

#define R 48   /* rows: divisible by 1-4 ranks */
#define C 1536 /* columns, too: 288 KiB of f32 a rank */

static float value(int r, size_t i)
{
    return (float)((r + 1) * 4096 + (int)(i % 4093));
}

typedef struct {
    tcomm_graph_t *g;
    int private_mem; /* wrap posix_memalign buffers, not tcomm's */
    void *held[2];
    int nheld;
} maker_t;

static tcomm_tensor_t *make(maker_t *m, int ndim, const size_t *shape)
{
    size_t numel = 1;
    tcomm_tensor_t *t = NULL;
    for (int d = 0; d < ndim; d++)
        numel *= shape[d];
    if (!m->private_mem) {
        ck_assert_int_eq(tcomm_tensor_empty(m->g, TCOMM_F32, ndim, shape, &t),
                         TCOMM_SUCCESS);
        return t;
    }
    void *buf;
    ck_assert_int_eq(posix_memalign(&buf, 4096, numel * 4), 0);
    memset(buf, 0, numel * 4);
    ck_assert_int_lt(m->nheld, 2);
    m->held[m->nheld++] = buf;
    ck_assert_int_eq(tcomm_tensor_wrap(m->g, TCOMM_F32, buf, ndim, shape, &t),
                     TCOMM_SUCCESS);
    return t;
}

static void unmake(maker_t *m, tcomm_tensor_t *in, tcomm_tensor_t *out)
{
    tcomm_tensor_release(in);
    tcomm_tensor_release(out);
    for (int i = 0; i < m->nheld; i++)
        free(m->held[i]);
    m->nheld = 0;
}

enum { ALL_REDUCE, RS_DIM0, RS_DIM1, AG_DIM0, AG_DIM1, BCAST, A2A, A2A_FLAT,
       KINDS };

/* The reference of out's element (row, col) of an out of oc columns. */
static float expect(int kind, size_t row, size_t col, size_t oc)
{
    int root = np - 1;
    float s = 0;
    switch (kind) {
    case ALL_REDUCE:
    case RS_DIM0:
    case RS_DIM1: {
        size_t r0 = kind == RS_DIM0 ? (size_t)rank * (R / np) : 0;
        size_t c0 = kind == RS_DIM1 ? (size_t)rank * (C / np) : 0;
        for (int p = 0; p < np; p++)
            s += value(p, (r0 + row) * C + c0 + col);
        return s;
    }
    case AG_DIM0:
        return value((int)(row / R), (row % R) * C + col);
    case AG_DIM1:
        return value((int)(col / C), row * C + col % C);
    case BCAST:
        return value(root, row * C + col);
    case A2A: /* split dim 1, concat dim 0 */
        return value((int)(row / R),
                     (row % R) * C + (size_t)rank * (C / np) + col);
    default: { /* A2A_FLAT: split and concat dim 0 */
        size_t q = R / np; /* rows a peer */
        (void)oc;
        return value((int)(row / q), ((size_t)rank * q + row % q) * C + col);
    }
    }
}

/* One collective of kind on m's tensors. Returns the wrong elements. */
static int one(tcomm_comm_t *comm, maker_t *m, int kind)
{
    size_t ishape[2] = {R, C}, oshape[2] = {R, C};
    if (kind == RS_DIM0)
        oshape[0] = R / np;
    if (kind == RS_DIM1 || kind == A2A)
        oshape[1] = C / np;
    if (kind == AG_DIM0 || kind == A2A)
        oshape[0] = (size_t)R * np;
    if (kind == AG_DIM1)
        oshape[1] = (size_t)C * np;
    tcomm_tensor_t *in = make(m, 2, ishape), *out = make(m, 2, oshape);
    float *a = tcomm_tensor_data(in), *o = tcomm_tensor_data(out);
    for (size_t i = 0; i < (size_t)R * C; i++)
        a[i] = value(rank, i);
    tcomm_status_t st;
    switch (kind) {
    case ALL_REDUCE:
        st = tcomm_all_reduce_into(comm, in, TCOMM_SUM, out);
        break;
    case RS_DIM0:
    case RS_DIM1:
        st = tcomm_reduce_scatter_into(comm, in, TCOMM_SUM,
                                       kind == RS_DIM1, out);
        break;
    case AG_DIM0:
    case AG_DIM1:
        st = tcomm_all_gather_into(comm, in, kind == AG_DIM1, out);
        break;
    case BCAST:
        st = tcomm_broadcast_into(comm, in, np - 1, out);
        break;
    case A2A:
        st = tcomm_all_to_all_into(comm, in, 1, 0, out);
        break;
    default:
        st = tcomm_all_to_all_into(comm, in, 0, 0, out);
        break;
    }
    int bad = st != TCOMM_SUCCESS;
    for (size_t row = 0; !bad && row < oshape[0]; row++)
        for (size_t col = 0; col < oshape[1]; col++)
            bad += o[row * oshape[1] + col] !=
                   expect(kind, row, col, oshape[1]);
    for (size_t i = 0; i < (size_t)R * C; i++)
        bad += a[i] != value(rank, i);
    unmake(m, in, out);
    return bad;
}

/* Every collective with tensors made as m says; *mapped: the mapped
 * copies they took, this rank. */
static int every(maker_t *m, uint64_t *mapped)
{
    tcomm_comm_t *comm;
    int bad = 0;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    uint64_t before = tcomm_node_mapped_copies();
    for (int k = 0; k < KINDS; k++)
        bad += one(comm, m, k);
    *mapped = tcomm_node_mapped_copies() - before;
    tcomm_comm_destroy(comm);
    return bad;
}

static tcomm_graph_t *host_graph(void)
{
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    tcomm_graph_t *g;
    ck_assert_int_eq(tcomm_graph_create(host, &g), TCOMM_SUCCESS);
    return g;
}

/* Tensors of tcomm's: with more than one rank every collective copies
 * through the mapped arenas, where cross-memory attach works at all. */
START_TEST(test_arena_tensors_mapped)
{
    maker_t m = {host_graph(), 0, {NULL}, 0};
    uint64_t mapped;
    int cma = np > 1 && probe_cma();
    ck_assert_int_eq(agree_sum(every(&m, &mapped)), 0);
    ck_assert_int_eq(agree_sum(cma && mapped < KINDS), 0);
    ck_assert_int_eq(agree_sum(np == 1 && mapped != 0), 0);
    tcomm_graph_destroy(m.g);
}
END_TEST

/* Wrapped private buffers: the same results, no mapped copy. */
START_TEST(test_private_buffers_attach)
{
    maker_t m = {host_graph(), 1, {NULL}, 0};
    uint64_t mapped;
    ck_assert_int_eq(agree_sum(every(&m, &mapped)), 0);
    ck_assert_int_eq(agree_sum(mapped != 0), 0);
    tcomm_graph_destroy(m.g);
}
END_TEST

/* Rank 0's buffers private, the others' tcomm's: its peers read and
 * write its memory by cross-memory attach, it theirs through the map. */
START_TEST(test_mixed)
{
    maker_t m = {host_graph(), rank == 0, {NULL}, 0};
    uint64_t mapped;
    int cma = np > 1 && probe_cma();
    ck_assert_int_eq(agree_sum(every(&m, &mapped)), 0);
    ck_assert_int_eq(agree_sum(cma && rank == 0 && mapped == 0), 0);
    tcomm_graph_destroy(m.g);
}
END_TEST

/* A rank that cannot map its peers' arenas (pidfd_getfd refused) copies
 * by cross-memory attach: the same results. */
START_TEST(test_map_refused)
{
    maker_t m = {host_graph(), 0, {NULL}, 0};
    uint64_t mapped;
    tcomm_test_set_hook(TCOMM_HOOK_NO_MAP, rank % 2 == 0);
    ck_assert_int_eq(agree_sum(every(&m, &mapped)), 0);
    tcomm_test_set_hook(TCOMM_HOOK_NO_MAP, 0);
    ck_assert_int_eq(agree_sum(rank % 2 == 0 && mapped != 0), 0);
    tcomm_graph_destroy(m.g);
}
END_TEST

/* In place through the maps: each rank writes its folded chunk into its
 * peers' buffers, which are their inputs too. */
START_TEST(test_in_place)
{
    tcomm_graph_t *g = host_graph();
    tcomm_comm_t *comm;
    tcomm_tensor_t *t;
    size_t shape[1] = {(size_t)R * C};
    int bad = 0;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &t),
                     TCOMM_SUCCESS);
    float *a = tcomm_tensor_data(t);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < shape[0]; i++)
            a[i] = value(rank, i + (size_t)round);
        bad += tcomm_all_reduce_into(comm, t, TCOMM_SUM, t) != TCOMM_SUCCESS;
        for (size_t i = 0; i < shape[0]; i++) {
            float s = 0;
            for (int p = 0; p < np; p++)
                s += value(p, i + (size_t)round);
            bad += a[i] != s;
        }
    }
    ck_assert_int_eq(agree_sum(bad), 0);
    tcomm_tensor_release(t);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(g);
}
END_TEST

/* n all_reduces of 8 KiB (the mapped tier: below the 16 KiB gate of
 * cross-memory attach) on m's tensors; the wrong elements. */
static int small_calls(tcomm_comm_t *comm, maker_t *m, int n)
{
    size_t shape[1] = {2048};
    int bad = 0;
    for (int k = 0; k < n; k++) {
        tcomm_tensor_t *in = make(m, 1, shape), *out = make(m, 1, shape);
        float *a = tcomm_tensor_data(in), *o = tcomm_tensor_data(out);
        for (size_t i = 0; i < shape[0]; i++)
            a[i] = value(rank, i + (size_t)k);
        bad += tcomm_all_reduce_into(comm, in, TCOMM_SUM, out) !=
               TCOMM_SUCCESS;
        for (size_t i = 0; i < shape[0]; i++) {
            float s = 0;
            for (int p = 0; p < np; p++)
                s += value(p, i + (size_t)k);
            bad += o[i] != s;
        }
        unmake(m, in, out);
    }
    return bad;
}

/* The mapped tier: tcomm's tensors take the single copies below the
 * attach gate; private ones on any rank send every rank to MPI (the
 * same results), the tier tried less and less often, and tcomm's
 * tensors take it again once the skipped calls are over. */
START_TEST(test_mapped_tier)
{
    tcomm_graph_t *g = host_graph();
    maker_t arena = {g, 0, {NULL}, 0}, mixed = {g, rank == 0, {NULL}, 0};
    tcomm_comm_t *comm;
    int cma = np > 1 && probe_cma(), bad = 0;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm),
                     TCOMM_SUCCESS);
    uint64_t c0 = tcomm_node_mapped_copies();
    bad += small_calls(comm, &arena, 5);
    uint64_t c1 = tcomm_node_mapped_copies();
    bad += small_calls(comm, &mixed, 30);
    uint64_t c2 = tcomm_node_mapped_copies();
    bad += small_calls(comm, &arena, 40);
    uint64_t c3 = tcomm_node_mapped_copies();
    ck_assert_int_eq(agree_sum(bad), 0);
    ck_assert_int_eq(agree_sum(cma && c1 - c0 < 5), 0);
    ck_assert_int_eq(agree_sum(cma && c3 == c2), 0); /* taken again */
    ck_assert_int_eq(agree_sum(!cma && c3 != c0), 0);
    tcomm_comm_destroy(comm);
    tcomm_graph_destroy(g);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_node_map");
    TCase *tc = tcase_create("node_map");
    int any;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_arena_tensors_mapped);
    tcase_add_test(tc, test_private_buffers_attach);
    tcase_add_test(tc, test_mixed);
    tcase_add_test(tc, test_map_refused);
    tcase_add_test(tc, test_in_place);
    tcase_add_test(tc, test_mapped_tier);
    suite_add_tcase(s, tc);
    any = tcomm_test_run_suite(s, 1);
    MPI_Finalize();
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}
