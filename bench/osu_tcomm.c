/* SPDX-License-Identifier: BSD-3-Clause */
/* osu_tcomm_<collective>: one source for the six programs; the build
 * names the collective with -DTCOMM_BENCH_COLL=<name> (bench/local.mk).
 * With -DTCOMM_BENCH_NONBLOCKING it is osu_tcomm_i<collective> instead:
 * the nonblocking starts timed in OSU's nonblocking layout
 * (bench_nonblocking.c), under MPI_THREAD_MULTIPLE so that tcomm's
 * progress thread may run them.
 * Buffers are allocated once at the largest size; each size wraps them in
 * tensors (host) or copies them into device tensors (-d cuda), outside the
 * timed loop, and calls the _into collectives into a preallocated output
 * (--alloc: the allocating forms). Every rank of the backend (a process,
 * or a thread with --backend local) runs run_rank on its own buffers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_backend.h"
#include "bench_nonblocking.h"
#include "bench_timing.h"

#ifdef TCOMM_BENCH_NONBLOCKING
#define NONBLOCKING 1
#else
#define NONBLOCKING 0
#endif

#ifndef TCOMM_BENCH_COLL
#error "build with -DTCOMM_BENCH_COLL=allreduce (or another collective)"
#endif
#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)

static void check_setup(bench_run_t *r, tcomm_status_t st, const char *what)
{
    if (st == TCOMM_SUCCESS)
        return;
    fprintf(stderr, "%s: rank %d: %s: %s: %s\n", r->opt->prog, r->rank, what,
            tcomm_status_string(st), tcomm_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* 0, or the exit status every rank agrees on (rank 0 printed why). */
static int open_graph(bench_run_t *r)
{
    tcomm_device_t dev = {r->opt->cuda ? TCOMM_DEVICE_CUDA : TCOMM_DEVICE_HOST,
                          0};
    tcomm_status_t st = tcomm_graph_create(dev, &r->graph);
    int ok = st == TCOMM_SUCCESS;
    if (!ok && r->opt->cuda && r->rank == 0)
        fprintf(stderr, "%s: -d cuda: this tcomm cannot use a CUDA "
                "device: %s\n", r->opt->prog, tcomm_last_error());
    if (!ok && !r->opt->cuda)
        check_setup(r, st, "tcomm_graph_create");
    bench_sync_int(r, &ok, BENCH_MIN);
    if (!ok)
        return BENCH_EXIT_USAGE;
    if (r->opt->cuda && r->opt->baseline && !r->cuda_aware) {
        if (r->rank == 0)
            fprintf(stderr, "%s: --baseline with -d cuda needs a "
                    "CUDA-aware MPI (tcomm_comm_info reports none)\n",
                    r->opt->prog);
        return BENCH_EXIT_USAGE;
    }
    return 0;
}

/* The largest input and output of the sizes that run (64 bytes for the
 * barrier): all_to_all's depend on the ranks and on --uneven. */
static void buffer_sizes(bench_run_t *r)
{
    r->in_cap = r->out_cap = 64;
    for (size_t b = r->opt->min_bytes; r->coll->sized &&
                                       b <= r->opt->max_bytes; b *= 2) {
        if (r->coll->setup(r, b) < BENCH_SIZE_ROUNDED)
            continue;
        if (r->in_count * r->esize > r->in_cap)
            r->in_cap = r->in_count * r->esize;
        if (r->out_count * r->esize > r->out_cap)
            r->out_cap = r->out_count * r->esize;
    }
}

/* The Bound column: with --baseline, blocking, on host buffers. */
static int has_bound(const bench_run_t *r)
{
    return r->opt->baseline && !r->opt->cuda && !r->opt->nonblocking &&
           r->coll->sized;
}

/* The host tensors' memory: tcomm's own (a u8 tensor's, in the shared
 * arena that the node's peers map: what tensors a user creates get),
 * or with --private (and for the device tensors' host copies) memory of
 * the harness's, page-aligned as OSU's and MPI libraries' own buffers
 * are. The tensors of each size are views over it, the baseline's
 * buffers the same memory. */
static int host_buffer(bench_run_t *r, size_t cap, void **buf,
                       tcomm_tensor_t **store)
{
    *store = NULL;
    if (r->opt->cuda || r->opt->private_buffers)
        return posix_memalign(buf, 4096, cap) == 0;
    if (tcomm_tensor_empty(r->graph, TCOMM_U8, 1, &cap, store) !=
        TCOMM_SUCCESS)
        return 0;
    *buf = tcomm_tensor_data(*store);
    return 1;
}

static void free_buffer(void *buf, tcomm_tensor_t *store)
{
    if (store)
        tcomm_tensor_release(store);
    else
        free(buf);
}

static int alloc_buffers(bench_run_t *r)
{
    buffer_sizes(r);
    int ok = host_buffer(r, r->in_cap, &r->in_buf, &r->in_store) &&
             host_buffer(r, r->out_cap, &r->out_buf, &r->out_store) &&
             (r->check_buf = malloc(r->out_cap)) != NULL &&
             bench_vary_alloc(r);
    if (!ok)
        fprintf(stderr, "%s: rank %d: cannot allocate %zu + %zu bytes of "
                "buffers (lower -m)\n", r->opt->prog, r->rank, r->in_cap,
                r->out_cap);
    bench_sync_int(r, &ok, BENCH_MIN);
    if (ok && has_bound(r) &&
        (bench_bound_prepare(r) != 0 || bench_traffic_prepare(r) != 0)) {
        ok = 0;
        if (r->rank == 0)
            fprintf(stderr, "%s: cannot allocate the bound's scratch (lower "
                    "-m)\n", r->opt->prog);
    }
    if (!ok)
        return 1;
    bench_poison(r->in_buf, r->in_cap);
    bench_poison(r->out_buf, r->out_cap);
    return 0;
}

/* Tensors of the current size over the buffers (host), or device copies
 * of them (cuda); the baseline uses the same memory. */
static void make_tensors(bench_run_t *r)
{
    tcomm_dtype_t dt = r->opt->dtype;
    tcomm_status_t st;
    if (!r->coll->sized)
        return;
    if (!r->opt->cuda) {
        st = tcomm_tensor_wrap(r->graph, dt, r->in_buf, r->ndim, r->in_shape,
                               &r->in);
        check_setup(r, st, "tcomm_tensor_wrap");
        if (r->coll->kind != BENCH_BCAST) {
            st = tcomm_tensor_wrap(r->graph, dt, r->out_buf, r->ndim,
                                   r->out_shape, &r->out);
            check_setup(r, st, "tcomm_tensor_wrap");
        }
    } else {
        st = tcomm_tensor_from_host(r->graph, dt, r->in_buf, r->ndim,
                                    r->in_shape, &r->in);
        check_setup(r, st, "tcomm_tensor_from_host");
        if (r->coll->kind != BENCH_BCAST) {
            /* the poisoned out_buf, so that -c sees unwritten elements */
            st = tcomm_tensor_from_host(r->graph, dt, r->out_buf, r->ndim,
                                        r->out_shape, &r->out);
            check_setup(r, st, "tcomm_tensor_from_host");
        }
    }
    r->mpi_in = tcomm_tensor_data(r->in);
    r->mpi_out = r->out ? tcomm_tensor_data(r->out) : r->mpi_in;
}

static void drop_tensors(bench_run_t *r)
{
    tcomm_tensor_release(r->result);
    tcomm_tensor_release(r->out);
    tcomm_tensor_release(r->in);
    r->result = r->out = r->in = NULL;
}

/* Inputs of (rank, index) values, outputs poisoned; one call; every
 * element compared with the reference on every rank. */
static int validate(bench_run_t *r)
{
    size_t out_bytes = r->out_count * r->esize;
    int bad = 0;
    if (r->coll->sized) {
        drop_tensors(r);
        if (r->coll->kind == BENCH_BCAST && r->rank != 0)
            bench_poison(r->in_buf, r->in_count * r->esize);
        else
            bench_fill_input(r);
        bench_poison(r->out_buf, out_bytes);
        make_tensors(r);
    }
    if (r->opt->nonblocking)
        bench_nb_call(r);
    else
        bench_call(r);
    if (r->coll->sized) {
        tcomm_tensor_t *t = r->result ? r->result : r->out ? r->out : r->in;
        const void *data = tcomm_tensor_data(t);
        if (r->opt->cuda) {
            check_setup(r, tcomm_tensor_to_host(t, r->check_buf, out_bytes),
                        "tcomm_tensor_to_host");
            data = r->check_buf;
        }
        size_t nbad = tcomm_tensor_numel(t) == r->out_count
                          ? bench_compare(r, data) : r->out_count;
        if (nbad)
            fprintf(stderr, "%s: rank %d: %zu of %zu elements wrong at %zu "
                    "bytes\n", r->opt->prog, r->rank, nbad, r->out_count,
                    r->bytes);
        bad = nbad != 0;
    }
    bench_sync_int(r, &bad, BENCH_MAX);
    return !bad;
}

static void run_sizes(bench_run_t *r, FILE *json, int *failed)
{
    const bench_opts_t *o = r->opt;
    size_t lo = r->coll->sized ? o->min_bytes : 0;
    size_t hi = r->coll->sized ? o->max_bytes : 0;
    int first = 1;
    for (size_t bytes = lo; bytes <= hi; bytes = bytes ? bytes * 2 : 1) {
        bench_result_t res = {0};
        bench_nb_result_t nb = {0};
        r->bytes = bytes;
        if (r->coll->setup(r, bytes) < BENCH_SIZE_ROUNDED)
            continue; /* skipped: bench_sizes_print said so */
        r->vary_shift = 0;
        r->vary_failed = 0;
        if (r->coll->sized)
            bench_fill_input(r);
        bench_vary_size(r);
        make_tensors(r);
        if (o->nonblocking)
            bench_nb_time_size(r, &nb);
        else
            bench_time_size(r, &res);
        if (has_bound(r)) {
            bench_traffic_again(r);
            res.bound_us = bench_traffic_at(r, &res.terms);
            res.single_copy_us =
                bench_bound_at(r, &res.copy_gbs, &res.add_gbs);
        }
        /* --vary: a wrong output of the timed calls on any rank */
        int vary_bad = r->vary_failed;
        bench_sync_int(r, &vary_bad, BENCH_MAX);
        r->vary_shift = 0; /* -c's input is the unshifted one */
        res.valid = nb.valid = (o->validate ? validate(r) : 1) && !vary_bad;
        *failed |= !res.valid;
        drop_tensors(r);
        if (r->rank == 0 && o->nonblocking) {
            bench_nb_print_row(r, &nb);
            if (json)
                bench_nb_json_row(json, r, &nb, first);
        } else if (r->rank == 0) {
            bench_print_row(r, &res);
            if (json)
                bench_json_row(json, r, &res, first);
        }
        first = 0;
    }
}

/* One rank's whole run (a thread of its own with --backend local); the
 * json file is open on rank 0 only. Returns the exit status. */
static int run_rank(bench_run_t *r, void *json)
{
    int failed = 0;
    int code = bench_sizes_check(r);
    if (!code)
        code = open_graph(r);
    if (!code)
        code = alloc_buffers(r);
    if (!code) {
        if (r->rank == 0 && r->opt->nonblocking)
            bench_nb_print_header(r);
        else if (r->rank == 0)
            bench_print_header(r);
        run_sizes(r, r->rank == 0 ? json : NULL, &failed);
    }
    if (r->coll->release)
        r->coll->release(r);
    bench_bound_free(r);
    bench_vary_free(r);
    free(r->check_buf);
    free_buffer(r->out_buf, r->out_store);
    free_buffer(r->in_buf, r->in_store);
    if (r->graph)
        tcomm_graph_destroy(r->graph);
    return code ? code : failed;
}

int main(int argc, char **argv)
{
    const bench_coll_t *coll = bench_coll_find(BENCH_STR(TCOMM_BENCH_COLL));
    bench_opts_t opt;
    bench_world_t world;
    bench_run_t proto;
    FILE *json = NULL;

    if (NONBLOCKING) {
        int provided; /* below MULTIPLE: each start completes the call */
        bench_parse_nonblocking(argc, argv, coll, &opt);
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        bench_parse(argc, argv, coll, &opt);
        MPI_Init(&argc, &argv);
    }
    bench_world_open(&opt, &world);
    memset(&proto, 0, sizeof(proto));
    proto.opt = &opt;
    proto.coll = coll;
    proto.esize = bench_dtype_size(opt.dtype);
    proto.np = opt.backend == BENCH_BACKEND_LOCAL ? world.n : world.mpi_size;

    proto.comm = world.comms[0]; /* the JSON's check mode (the ranks get
                                    their own in bench_world_run) */
    int code = 0;
    if (opt.json && world.mpi_rank == 0) {
        json = bench_json_open(&proto);
        if (!json) {
            fprintf(stderr, "%s: --json: cannot write '%s': %s\n",
                    opt.prog, opt.json, strerror(errno));
            code = BENCH_EXIT_USAGE;
        }
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!code)
        code = bench_world_run(&world, &proto, run_rank, json);
    if (json && bench_json_close(json) != 0) {
        fprintf(stderr, "%s: --json: error writing '%s': %s\n",
                opt.prog, opt.json, strerror(errno));
        code = code ? code : 1;
    }
    bench_world_close(&world);
    MPI_Finalize();
    return code;
}
