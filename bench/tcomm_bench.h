/* SPDX-License-Identifier: BSD-3-Clause */
/* The OSU-style harness shared by the osu_tcomm_* programs: options, the
 * table of collectives, validation helpers, the backends it runs over.
 * It uses only the public API (tcomm.h, tcomm_mpi.h, tcomm_gloo.h) and no
 * CUDA header. */
#ifndef TCOMM_BENCH_H
#define TCOMM_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "tcomm.h"
#include "tcomm_mpi.h"

/* Exit status of a bad option or value (one line on stderr). */
#define BENCH_EXIT_USAGE 2
/* Messages above this size use the "large" iteration counts (OSU). */
#define BENCH_LARGE_MESSAGE 8192
/* Blocks per timed size (fewer when there are fewer iterations): tcomm
 * and MPI alternate block by block. */
#define BENCH_BLOCKS 50
/* The fewest timed calls per side that --max-time leaves. */
#define BENCH_MIN_ITERS 20
/* --threads: the local backend's own limit on its world size. */
#define BENCH_MAX_THREADS 1024

/* --backend: what the tcomm communicator runs over. mpi and gloo have
 * one rank per MPI process; local has one rank per thread of a single
 * process (MPI only starts it). */
typedef enum { BENCH_BACKEND_MPI, BENCH_BACKEND_GLOO, BENCH_BACKEND_LOCAL }
    bench_backend_t;

typedef enum {
    BENCH_ALLREDUCE,
    BENCH_ALLGATHER,
    BENCH_REDUCE_SCATTER,
    BENCH_BCAST,
    BENCH_BARRIER,
    BENCH_REDUCE,          /* the result on root 0 only */
    BENCH_ALLTOALL,        /* bench/bench_alltoall.c */
    BENCH_KIND_COUNT
} bench_kind_t;

typedef struct {
    const char *prog;      /* argv[0] without its directory */
    size_t min_bytes;      /* -m MIN: (0: the dtype's size) */
    size_t max_bytes;      /* -m MAX */
    int iters;             /* -i, messages up to BENCH_LARGE_MESSAGE */
    int iters_large;       /* -i, larger messages */
    int warmup;            /* -x */
    int warmup_large;
    int full;              /* -f: min, max, iterations columns */
    int validate;          /* -c */
    tcomm_dtype_t dtype;   /* -T */
    int cuda;              /* -d cuda */
    int dim;               /* --dim (allgather, reduce_scatter) */
    int split_dim;         /* --split-dim (alltoall) */
    int concat_dim;        /* --concat-dim (alltoall) */
    int uneven;            /* --uneven (alltoall: tcomm_all_to_all_v) */
    int baseline;          /* --baseline */
    int baseline_dtype_set; /* --baseline-dtype (reductions) */
    tcomm_dtype_t baseline_dtype;
    const char *json;      /* --json FILE */
    int alloc;             /* --alloc: the allocating forms */
    int private_buffers;   /* --private: wrap posix_memalign buffers */
    double max_time;       /* --max-time S: cap per size and side */
    bench_backend_t backend; /* --backend */
    int threads;           /* --threads (local: ranks as threads) */
    int nonblocking;       /* an osu_tcomm_i<collective> program */
    int compute_sleep;     /* --compute sleep (nonblocking; else busy) */
    int blocking_ref;      /* --blocking-ref (nonblocking) */
    int vary;              /* --vary: new input before every call */
} bench_opts_t;

struct bench_run;
struct bench_sync;

/* What a collective's setup made of a requested message size (the
 * skipped ones first, so that `code >= BENCH_SIZE_ROUNDED` runs). */
typedef enum {
    BENCH_SIZE_PARTIAL,  /* skipped: not a whole number of elements */
    BENCH_SIZE_FEW,      /* skipped: fewer elements than ranks */
    BENCH_SIZE_NO_ROWS,  /* skipped: no [rows<=64, n/rows] shape whose
                            dim splits into one chunk per rank */
    BENCH_SIZE_ROUNDED,  /* runs, rounded down to a multiple of the ranks'
                            element count (r->bytes is the size run) */
    BENCH_SIZE_OK        /* runs as asked */
} bench_size_t;

/* One row of the table of collectives. */
typedef struct {
    bench_kind_t kind;
    const char *name;       /* "allreduce": osu_tcomm_<name> */
    const char *title;      /* "Allreduce" in the header line */
    int sized;              /* 0: barrier (no message) */
    int has_dim;            /* --dim applies */
    /* Shapes for a message of @p bytes per rank, and what became of it. */
    bench_size_t (*setup)(struct bench_run *r, size_t bytes);
    /* Bytes moved for algbw (nccl-tests' size) and the busbw factor. */
    double (*algbw_bytes)(const struct bench_run *r);
    double (*bus_factor)(int np);
    tcomm_status_t (*run)(struct bench_run *r);  /* one tcomm call */
    int (*baseline)(struct bench_run *r);        /* one raw MPI call */
    /* The expected value of output element @p i on this rank. */
    double (*expect)(const struct bench_run *r, size_t i);
    /* The input value of (rank, index) for -c; NULL: bench_value. */
    double (*value)(int rank, size_t i);
    /* Frees r->coll_state at the end of a rank's run; may be NULL. */
    void (*release)(struct bench_run *r);
} bench_coll_t;

/* State of one program run; the per-size fields change with each size. */
typedef struct bench_run {
    const bench_opts_t *opt;
    const bench_coll_t *coll;
    tcomm_comm_t *comm;
    tcomm_graph_t *graph;
    MPI_Comm mpi;            /* a dup of MPI_COMM_WORLD for the baseline */
    struct bench_sync *sync; /* local: the threads' barrier and slots */
    int rank, np, cuda_aware;
    size_t esize;            /* bytes per element */
    void *in_buf, *out_buf;  /* host buffers, allocated once */
    tcomm_tensor_t *in_store, *out_store; /* their tensors, or NULL */
    void *check_buf;         /* host copy of the output (-c) */
    size_t in_cap, out_cap;  /* their sizes in bytes */
    /* current size */
    size_t bytes;            /* message size per rank (input bytes) */
    int ndim;
    size_t in_shape[2], out_shape[2];
    size_t in_count, out_count;
    tcomm_tensor_t *in, *out; /* out == in for broadcast (in place) */
    tcomm_tensor_t *result;   /* --alloc: the last returned tensor */
    /* the raw MPI call on the same bytes */
    void *mpi_in, *mpi_out;   /* its buffers (device ones with -d cuda) */
    MPI_Datatype mpi_type;
    size_t mpi_count;         /* elements of mpi_type; 0: no baseline */
    int mpi_form;             /* which MPI formulation the baseline calls
                                 (bench_mpi_forms) */
    int *mpi_counts;          /* MPI_Reduce_scatter's recvcounts */
    /* the bound (bench_bound.c): its scratch while it measures, and what
     * it found per size */
    void *bw_buf[3];
    struct bench_bound *bound;
    struct bench_traffic *traffic; /* bench_traffic.c: the Bound column */
    void *coll_state;         /* the collective's own (alltoall: sizes) */
    /* --vary (bench_vary.c): the input pattern of the size, the shift
     * of the current call's input in elements, calls since the size
     * began, and whether a check of this size found a wrong output */
    void *vary_src;
    size_t vary_shift;
    unsigned long vary_gen;
    int vary_failed;
} bench_run_t;

/* bench_colls.c */
const bench_coll_t *bench_coll_find(const char *name);
const bench_coll_t *bench_coll_at(int index);
/* The largest rows <= 64 dividing count whose extent along dim (rows for
 * 0, count/rows for 1) divides by @p div; 0 when there is none. */
size_t bench_pick_rows(size_t count, int dim, size_t div);

/* The MPI formulations of the collective's result on the same bytes
 * that the baseline times (reduce_scatter: MPI_Reduce_scatter_block and
 * MPI_Reduce_scatter with equal counts; one for the others), and the
 * name of formulation @p form ("MPI_Allreduce"). */
int bench_mpi_forms(const bench_run_t *r);
const char *bench_mpi_call(const bench_run_t *r, int form);
/* The dtype of the baseline's elements: the run's, except for the
 * reductions: --baseline-dtype, or f32 for f16/bf16 (MPI cannot sum
 * them), on the same bytes. */
tcomm_dtype_t bench_baseline_dtype(const bench_run_t *r);

/* bench_traffic.c: the Bound column, the larger of two lower bounds:
 * the least time any algorithm needs to read and write the bytes the
 * collective must move at the least, at the rate this node streams with
 * every rank at once, and (bench_cross_core.c) to load the bytes that
 * must cross between cores, at the rate they do; both measured per size
 * before the timed sizes and again after each (doc/performance.md, "The
 * bound"); prepare: 0, or 1 if some rank could not allocate its
 * scratch. Collective over the world. */
struct bench_traffic;
int bench_traffic_prepare(bench_run_t *r);
/* Each size's bound lowered to the rate of the size twice as large
 * (us and gbs per size, by bytes ascending; 0: none), then any bound
 * below bench_tick dropped to 0: both noise (bench_traffic.c). */
void bench_traffic_envelope(const size_t *bytes, double *us, double *gbs,
                            int n);
/* The current size's rate measured again (after its timed calls): the
 * faster of the two counts, so that a load burst in one measurement
 * does not leave a bound the collective can beat. */
void bench_traffic_again(bench_run_t *r);
/* The current size's two terms (0: none) and the rates they rest on;
 * returns the larger term, the bound. */
typedef struct {
    double stream_us, stream_gbs;
    double cross_core_us, cross_core_gbs;
} bench_terms_t;
double bench_traffic_at(const bench_run_t *r, bench_terms_t *terms);
/* bench_cross_core.c: the bound's second term, the least time to load
 * the bytes another core wrote that a rank must load at the least, at
 * the rate this node moves them between cores (0: no such term: not a
 * reduction, no --vary, ranks on several nodes, or too few bytes for
 * the clock). 0, or 1 where some rank had no memory for it. */
int bench_cross_core_measure(bench_run_t *r, double *us, double *gbs);

/* bench_bound.c: the older single-copy model (the JSON's single_copy_us):
 * the least time a single-copy algorithm needs on this
 * node (doc/performance.md, "The bound"). bench_bound_prepare times this
 * node's copy and add bandwidth at every size of the run, every rank at
 * once, before the timed sizes (0, or 1 if the scratch could not be
 * allocated on some rank); bench_bound_at returns the bound of the
 * current size in microseconds (0: none, e.g. one rank or a barrier,
 * or below bench_tick: a few bytes copy faster than the clock can tell)
 * and the rates it rests on in *copy_gbs and *add_gbs (0 where the bound
 * has no copy or no add). Collective over the world. */
struct bench_bound;
int bench_bound_prepare(bench_run_t *r);
void bench_bound_free(bench_run_t *r);
double bench_bound_at(const bench_run_t *r, double *copy_gbs,
                      double *add_gbs);

/* bench_alltoall.c: osu_tcomm_alltoall's row of the table, and the
 * settings its header and JSON add. */
extern const bench_coll_t bench_alltoall_coll;
void bench_alltoall_header(const bench_run_t *r);
void bench_alltoall_json(FILE *f, const bench_run_t *r);

/* bench_sizes.c: the requested sizes (MIN doubling to MAX) as the
 * collective runs them. 0 when at least one is left, else
 * BENCH_EXIT_USAGE after one line on stderr (rank 0) saying why. */
int bench_sizes_check(bench_run_t *r);
/* Rank 0: a comment line per kind of size skipped or rounded. */
void bench_sizes_print(bench_run_t *r);
/* The sizes that run, in order: for (b = bench_size_next(r, 0); b;
 * b = bench_size_next(r, b)); each set up (r->bytes as setup left it).
 * 0: none left (and for the barrier, which has no sizes). */
size_t bench_size_next(bench_run_t *r, size_t b);

/* bench_options.c: parse or exit (status 2 on a bad option, 0 on -h).
 * Messages are printed by the rank that would be rank 0. */
void bench_parse(int argc, char **argv, const bench_coll_t *coll,
                 bench_opts_t *opt);
/* The same for the nonblocking programs (--compute, --blocking-ref). */
void bench_parse_nonblocking(int argc, char **argv, const bench_coll_t *coll,
                             bench_opts_t *opt);
void bench_die_usage(const bench_opts_t *opt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
int bench_launcher_rank(void);
const char *bench_backend_name(bench_backend_t backend);

/* bench_sync.c: the harness's own synchronization and reductions among
 * the ranks of a run (not timed): over MPI_COMM_WORLD for mpi and gloo,
 * among the threads for local (r->sync). */
typedef enum { BENCH_SUM, BENCH_MIN, BENCH_MAX } bench_reduce_t;
#define BENCH_SYNC_MAX 8
struct bench_sync *bench_sync_create(int nthreads);
void bench_sync_destroy(struct bench_sync *s);
void bench_sync_barrier(const bench_run_t *r);
/* Rank 0's *v on every rank. */
void bench_sync_bcast_long(const bench_run_t *r, long *v);
void bench_sync_int(const bench_run_t *r, int *v, bench_reduce_t op);
/* @p n <= BENCH_SYNC_MAX values; @p in may be @p out. */
void bench_sync_doubles(const bench_run_t *r, const double *in, double *out,
                        int n, bench_reduce_t op);
/* @p bytes of zeroes on every rank, or NULL on every rank if some rank
 * could not allocate them. */
void *bench_sync_calloc(const bench_run_t *r, size_t bytes);
/* Seconds on a monotonic clock (MPI_Wtime is not for the threads). */
double bench_now(void);
/* bench_now's resolution in seconds: a time below it is noise. */
double bench_tick(void);

/* bench_data.c: dtypes, fill, compare */
const char *bench_dtype_name(tcomm_dtype_t dtype);
int bench_dtype_parse(const char *text, tcomm_dtype_t *dtype);
size_t bench_dtype_size(tcomm_dtype_t dtype);
MPI_Datatype bench_mpi_type(tcomm_dtype_t dtype);
/* The value rank @p rank puts at input index @p i: a small integer,
 * exact in every dtype, whose sums over ranks stay exact. */
double bench_value(int rank, size_t i);
void bench_fill(tcomm_dtype_t dtype, void *buf, size_t count, int rank);
/* Element @p i of @p buf set to @p v in @p dtype. */
void bench_store(tcomm_dtype_t dtype, void *buf, size_t i, double v);
/* The input of this rank for the current size (coll->value's values). */
void bench_fill_input(const bench_run_t *r);
void bench_poison(void *buf, size_t bytes);
double bench_load(tcomm_dtype_t dtype, const void *buf, size_t i);
/* Number of output elements that differ from coll->expect. */
size_t bench_compare(const bench_run_t *r, const void *out);

/* bench_vary.c: --vary. bench_input_value is the input of (rank, i) of
 * the current call (coll->value's, or bench_value's, shifted by the
 * call's r->vary_shift); the expected outputs are made of it. Alloc and
 * free the pattern (1: ok; nothing without --vary); bench_vary_size
 * fills it for the current size; bench_vary_next writes the next call's
 * input (outside the timed region), bench_vary_last that of the call
 * whose output is checked (TCOMM_BENCH_FAULT=stale-input: not its data,
 * for the tests); bench_vary_check compares @p out with the expected
 * output of the last call and returns the wrong elements (a line on
 * stderr naming @p side when any). */
double bench_input_value(const bench_run_t *r, int rank, size_t i);
int bench_vary_alloc(bench_run_t *r);
void bench_vary_free(bench_run_t *r);
void bench_vary_size(bench_run_t *r);
void bench_vary_next(bench_run_t *r);
void bench_vary_last(bench_run_t *r);
size_t bench_vary_check(const bench_run_t *r, const void *out,
                        const char *side);

#endif /* TCOMM_BENCH_H */
