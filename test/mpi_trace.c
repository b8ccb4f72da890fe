/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_DEBUG=TRACE at 1-4 ranks: every collective call logs exactly one
 * line "tcomm[rank R] TRACE: comm=C seq=S coll=K backend=B dtype=D
 * shape=[..] bytes=N path=P time_us=T status=ST", with the right values,
 * on the mpi backend (host and sim device tensors, deterministic and
 * not, a rejected call, a small call completed in the agreement),
 * identity, local (1 and 2 ranks as threads), a user backend and, where
 * built, Gloo. At INFO no call is traced. Each rank captures its own
 * standard error and checks its own lines. */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tcomm_config.h"
#include "tcomm_gloo.h"
#include "tcomm_mpi.h"
#include "tcomm_sim.h"
#include "tcomm_test_hooks.h"
#include "log_capture.h"

/* What one call must log; path NULL: any token. */
typedef struct {
    const char *coll, *dtype, *shape;
    long bytes;
    const char *path, *status;
} want_t;

static const char *const keys[] = {"comm", "seq", "coll", "backend",
                                   "dtype", "shape", "bytes", "path",
                                   "time_us", "status"};
#define NKEYS 10

/* Split a line into its values; 0 if it is not well formed. */
static int parse(const char *line, int want_rank, char val[NKEYS][128])
{
    char head[32];
    snprintf(head, sizeof head, "tcomm[rank %d] TRACE: ", want_rank);
    if (strncmp(line, head, strlen(head)))
        return 0;
    const char *p = line + strlen(head);
    for (int k = 0; k < NKEYS; k++) {
        size_t kl = strlen(keys[k]);
        if (strncmp(p, keys[k], kl) || p[kl] != '=')
            return 0;
        p += kl + 1;
        size_t vl = strcspn(p, " ");
        if (vl == 0 || vl >= 128)
            return 0;
        memcpy(val[k], p, vl);
        val[k][vl] = '\0';
        p += vl;
        if (*p == ' ')
            p++;
        else if (k != NKEYS - 1)
            return 0;
    }
    return *p == '\0';
}

/* Lines [first, first + n) are the n calls of want on one communicator
 * of backend be, logged by rank r, with consecutive seq numbers. */
static void expect(const char *what, int first, int r, const char *be,
                   const want_t *want, int n)
{
    char v[NKEYS][128], comm[128] = "";
    long seq0 = 0;
    for (int i = 0; i < n; i++) {
        const want_t *w = &want[i];
        const char *line = first + i < nlines ? lines[first + i] : "";
        if (!parse(line, r, v)) {
            fail("%s call %d: not a well-formed TRACE line: '%s'", what, i,
                 line);
            continue;
        }
        char *end;
        long seq = strtol(v[1], &end, 10);
        double us = strtod(v[8], &end);
        if (i == 0) {
            snprintf(comm, sizeof comm, "%s", v[0]);
            seq0 = seq;
        }
        if (strcmp(v[0], comm) || seq != seq0 + i)
            fail("%s call %d: comm=%s seq=%ld, wanted comm=%s seq=%ld",
                 what, i, v[0], seq, comm, seq0 + i);
        if (strcmp(v[2], w->coll) || strcmp(v[3], be) ||
            strcmp(v[4], w->dtype) || strcmp(v[5], w->shape) ||
            strtol(v[6], NULL, 10) != w->bytes ||
            (w->path && strcmp(v[7], w->path)) || strcmp(v[9], w->status))
            fail("%s call %d: '%s', wanted coll=%s backend=%s dtype=%s "
                 "shape=%s bytes=%ld path=%s status=%s",
                 what, i, line, w->coll, be, w->dtype, w->shape, w->bytes,
                 w->path ? w->path : "(any)", w->status);
        if (*end || us < 0 || us > 60e6)
            fail("%s call %d: time_us=%s", what, i, v[8]);
    }
}

static void expect_count(const char *what, int n)
{
    if (nlines != n) {
        fail("%s: %d TRACE lines, wanted %d (one per call)", what, nlines,
             n);
        for (int i = 0; i < nlines; i++)
            printf("  %s\n", lines[i]);
    }
}

static tcomm_tensor_t *tensor(tcomm_graph_t *g, tcomm_dtype_t dt, int nd,
                              size_t d0, size_t d1)
{
    size_t shape[2] = {d0, d1};
    tcomm_tensor_t *t = NULL;
    OK(tcomm_tensor_empty(g, dt, nd, shape, &t));
    return t;
}

/* The host calls on the MPI backend; returns the number logged. */
static int mpi_calls(tcomm_comm_t *comm, tcomm_graph_t *g, want_t *w)
{
    int n = nranks, many = n > 1;
    static char s_rs[32];
    tcomm_tensor_t *a = tensor(g, TCOMM_F32, 2, 4, 3), *out = NULL;
    tcomm_tensor_t *b = tensor(g, TCOMM_I32, 2, 2, 3);
    tcomm_tensor_t *wide = tensor(g, TCOMM_I32, 2, 2, 3 * (size_t)n);
    tcomm_tensor_t *c = tensor(g, TCOMM_F64, 1, 2 * (size_t)n, 0);
    tcomm_tensor_t *u = tensor(g, TCOMM_U8, 1, 5, 0);
    snprintf(s_rs, sizeof s_rs, "[%d]", 2 * n);
    const char *zero = "single_rank_zero_copy";
    OK(tcomm_all_reduce(comm, a, TCOMM_SUM, &out));
    tcomm_tensor_release(out), out = NULL;
    w[0] = (want_t){"all_reduce", "f32", "[4,3]", 48,
                    many ? "mpi_allreduce" : zero, "TCOMM_SUCCESS"};
    OK(tcomm_all_gather(comm, b, 0, &out));
    tcomm_tensor_release(out), out = NULL;
    w[1] = (want_t){"all_gather", "i32", "[2,3]", 24,
                    many ? "mpi_allgatherv" : zero, "TCOMM_SUCCESS"};
    OK(tcomm_all_gather_into(comm, b, 1, wide));
    w[2] = (want_t){"all_gather", "i32", "[2,3]", 24,
                    many ? "mpi_allgather_reshape" : "single_rank_copy",
                    "TCOMM_SUCCESS"};
    OK(tcomm_reduce_scatter(comm, c, TCOMM_SUM, 0, &out));
    tcomm_tensor_release(out), out = NULL;
    w[3] = (want_t){"reduce_scatter", "f64", s_rs, 16L * n,
                    many ? "mpi_reduce_scatter_block" : zero,
                    "TCOMM_SUCCESS"};
    OK(tcomm_broadcast(comm, u, n - 1, &out));
    tcomm_tensor_release(out), out = NULL;
    w[4] = (want_t){"broadcast", "u8", "[5]", 5, many ? "mpi_bcast" : zero,
                    "TCOMM_SUCCESS"};
    if (tcomm_all_reduce(comm, a, (tcomm_op_t)99, &out) !=
        TCOMM_ERR_INVALID_ARG)
        fail("all_reduce with op 99 did not fail");
    w[5] = (want_t){"all_reduce", "f32", "[4,3]", 48, "none",
                    "TCOMM_ERR_INVALID_ARG"};
    OK(tcomm_barrier(comm));
    w[6] = (want_t){"barrier", "-", "-", 0,
                    many ? "agreement" : "single_rank", "TCOMM_SUCCESS"};
    OK(tcomm_all_reduce_into(comm, a, TCOMM_MAX, a));
    w[7] = (want_t){"all_reduce", "f32", "[4,3]", 48,
                    many ? "mpi_allreduce" : "single_rank_in_place",
                    "TCOMM_SUCCESS"};
    OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 1));
    OK(tcomm_all_reduce_into(comm, a, TCOMM_SUM, a));
    w[8] = (want_t){"all_reduce", "f32", "[4,3]", 48,
                    many ? "mpi_ordered_fold" : "single_rank_in_place",
                    "TCOMM_SUCCESS"};
    OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_DETERMINISTIC, 0));
    OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 0));
    OK(tcomm_barrier(comm));
    w[9] = (want_t){"barrier", "-", "-", 0,
                    many ? "mpi_barrier" : "single_rank",
                    "TCOMM_SUCCESS"};
    OK(tcomm_comm_set_attr(comm, TCOMM_ATTR_CHECK, 1));
    tcomm_tensor_release(a), tcomm_tensor_release(b);
    tcomm_tensor_release(wide), tcomm_tensor_release(c);
    tcomm_tensor_release(u);
    return 10;
}

static void test_mpi(void)
{
    tcomm_comm_t *comm = NULL;
    tcomm_graph_t *g = NULL, *sim = NULL;
    want_t w[16];
    OK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    OK(tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &g));
    OK(tcomm_graph_create_sim(0, &sim));
    capture();
    /* the backend's own paths: no input handed over in the agreement */
    tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 1);
    int n = mpi_calls(comm, g, w);
    tcomm_test_set_hook(TCOMM_HOOK_NO_EAGER, 0);
    tcomm_tensor_t *e = tensor(g, TCOMM_I32, 2, 2, 3), *out = NULL;
    OK(tcomm_all_gather(comm, e, 1, &out));
    w[n++] = (want_t){"all_gather", "i32", "[2,3]", 24,
                      nranks > 1 ? "eager" : "single_rank_zero_copy",
                      "TCOMM_SUCCESS"};
    tcomm_tensor_release(out), tcomm_tensor_release(e);
    tcomm_tensor_t *d = tensor(sim, TCOMM_F32, 1, 6, 0);
    OK(tcomm_all_reduce(comm, d, TCOMM_SUM, &out));
    w[n++] = (want_t){"all_reduce", "f32", "[6]", 24,
                      nranks > 1 ? "device_staged" : "single_rank_zero_copy",
                      "TCOMM_SUCCESS"};
    tcomm_tensor_release(out), tcomm_tensor_release(d);
    release_lines("TRACE", NULL);
    expect_count("mpi", n);
    expect("mpi", 0, rank, "mpi", w, n);
    OK(tcomm_comm_destroy(comm));
    OK(tcomm_graph_destroy(sim));
    OK(tcomm_graph_destroy(g));
}

static void one_call(tcomm_comm_t *comm, tcomm_graph_t *g)
{
    tcomm_tensor_t *a = tensor(g, TCOMM_F32, 2, 4, 3), *out = NULL;
    OK(tcomm_all_reduce(comm, a, TCOMM_AVG, &out));
    tcomm_tensor_release(out), tcomm_tensor_release(a);
}

static const want_t avg_zero = {"all_reduce", "f32", "[4,3]", 48,
                                "single_rank_zero_copy", "TCOMM_SUCCESS"};

static tcomm_comm_t *local2[2];
static tcomm_graph_t *host;
static void *local_rank(void *arg)
{
    one_call(local2[(long)arg], host);
    OK(tcomm_barrier(local2[(long)arg]));
    return NULL;
}

/* A user backend of world size 1: the front end answers every call. */
static tcomm_status_t user_query(void *s, int *r, int *n, int *ca)
{
    (void)s;
    *r = 0, *n = 1, *ca = 0;
    return TCOMM_SUCCESS;
}
static tcomm_status_t user_ar(void *s, const tcomm_tensor_t *in,
                              tcomm_op_t op, tcomm_tensor_t *out)
{
    (void)s, (void)in, (void)op, (void)out;
    return tcomm_backend_error(TCOMM_ERR_INTERNAL, "not called");
}
static tcomm_status_t user_ag(void *s, const tcomm_tensor_t *in, int dim,
                              const size_t *sizes, tcomm_tensor_t *out)
{
    (void)s, (void)in, (void)dim, (void)sizes, (void)out;
    return tcomm_backend_error(TCOMM_ERR_INTERNAL, "not called");
}
static tcomm_status_t user_rs(void *s, const tcomm_tensor_t *in,
                              tcomm_op_t op, int dim, tcomm_tensor_t *out)
{
    (void)s, (void)in, (void)op, (void)dim, (void)out;
    return tcomm_backend_error(TCOMM_ERR_INTERNAL, "not called");
}
static tcomm_status_t user_bc(void *s, const tcomm_tensor_t *in, int root,
                              tcomm_tensor_t *out)
{
    (void)s, (void)in, (void)root, (void)out;
    return tcomm_backend_error(TCOMM_ERR_INTERNAL, "not called");
}
static tcomm_status_t user_barrier(void *s)
{
    (void)s;
    return tcomm_backend_error(TCOMM_ERR_INTERNAL, "not called");
}
static const tcomm_backend_ops_t user_ops = {
    .name = "user", .query = user_query, .all_reduce = user_ar,
    .all_gather = user_ag, .reduce_scatter = user_rs, .broadcast = user_bc,
    .barrier = user_barrier};

static void test_single_backends(void)
{
    tcomm_comm_t *id = NULL, *loc = NULL, *user = NULL;
    OK(tcomm_graph_create((tcomm_device_t){TCOMM_DEVICE_HOST, 0}, &host));
    OK(tcomm_comm_create_identity(&id));
    OK(tcomm_comm_create_local(1, &loc));
    OK(tcomm_comm_create_custom(&user_ops, NULL, &user));
    OK(tcomm_comm_create_local(2, local2));
    capture();
    one_call(id, host);
    one_call(loc, host);
    one_call(user, host);
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, local_rank, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    release_lines("TRACE", NULL);
    expect_count("identity, local, user", 7);
    expect("identity", 0, 0, "identity", &avg_zero, 1);
    expect("local(1)", 1, 0, "local", &avg_zero, 1);
    expect("user", 2, 0, "user", &avg_zero, 1);
    /* The two threads' lines interleave: sort them by rank. */
    char mine[2][2][512] = {{""}};
    int k[2] = {0, 0};
    for (int i = 3; i < nlines && i < 7; i++) {
        int r = strncmp(lines[i], "tcomm[rank 1]", 13) == 0;
        if (k[r] < 2)
            snprintf(mine[r][k[r]++], 512, "%s", lines[i]);
    }
    const want_t two[2] = {{"all_reduce", "f32", "[4,3]", 48, "local_shared",
                            "TCOMM_SUCCESS"},
                           {"barrier", "-", "-", 0, "agreement",
                            "TCOMM_SUCCESS"}};
    for (int r = 0; r < 2; r++) {
        nlines = 2;
        memcpy(lines, mine[r], sizeof mine[r]);
        expect(r ? "local(2) rank 1" : "local(2) rank 0", 0, r, "local", two,
               2);
    }
    OK(tcomm_comm_destroy(id));
    OK(tcomm_comm_destroy(loc));
    OK(tcomm_comm_destroy(user));
    OK(tcomm_comm_destroy(local2[0]));
    OK(tcomm_comm_destroy(local2[1]));
}

#ifdef TCOMM_HAVE_GLOO
static void test_gloo(void)
{
    char store[256] = "";
    if (rank == 0) {
        snprintf(store, sizeof store, "%s/tcomm-trace-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(store))
            store[0] = '\0';
    }
    MPI_Bcast(store, sizeof store, MPI_CHAR, 0, MPI_COMM_WORLD);
    tcomm_gloo_options_t o = {.store_dir = store, .rank = rank,
                              .world_size = nranks};
    tcomm_comm_t *comm = NULL;
    OK(tcomm_comm_create_gloo(&o, &comm));
    if (!comm)
        return;
    capture();
    one_call(comm, host);
    release_lines("TRACE", NULL);
    want_t w = avg_zero;
    if (nranks > 1)
        w.path = "gloo_ring_allreduce";
    expect_count("gloo", 1);
    expect("gloo", 0, rank, "gloo", &w, 1);
    OK(tcomm_comm_destroy(comm));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
        if (system(cmd) != 0)
            fail("could not remove %s", store);
    }
}
#endif

/* INFO: the calls are not traced. */
static void test_info_level(void)
{
    setenv("TCOMM_DEBUG", "INFO", 1);
    tcomm_config_reload();
    tcomm_comm_t *comm = NULL;
    OK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    capture();
    one_call(comm, host);
    OK(tcomm_barrier(comm));
    release_lines("TRACE", NULL);
    expect_count("TCOMM_DEBUG=INFO", 0);
    OK(tcomm_comm_destroy(comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    setenv("TCOMM_DEBUG", "TRACE", 1);
    tcomm_config_reload();
    test_mpi();
    test_single_backends();
#ifdef TCOMM_HAVE_GLOO
    test_gloo();
#endif
    test_info_level();
    OK(tcomm_graph_destroy(host));
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_trace at %d ranks: %s (%d failures)\n", nranks,
               all ? "FAIL" : "pass", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
