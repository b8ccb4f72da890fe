/* SPDX-License-Identifier: BSD-3-Clause */
/* --backend: the tcomm communicators of a run and the ranks that use
 * them. mpi and gloo have one rank per MPI process, run on the calling
 * thread; gloo meets through a file store that rank 0 makes with mkdtemp
 * and removes at the end. local has --threads ranks as threads of the one
 * process mpirun (or nothing) started, each with its own bench_run_t. */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_backend.h"
#include "tcomm_gloo.h"

/* Every rank leaves with @p code; rank 0 has printed why. */
static void world_exit(bench_world_t *w, int code)
{
    bench_world_close(w);
    MPI_Finalize();
    exit(code);
}

/* One line for a failed creation call (the library's sentence names the
 * call) and the job's exit status: 2 when this build lacks the backend
 * (the same answer on every rank, so rank 0 speaks), 1 otherwise (every
 * failing rank speaks). */
static int creation_failed(bench_world_t *w, tcomm_status_t st)
{
    int code = st == TCOMM_SUCCESS ? 0
               : st == TCOMM_ERR_UNSUPPORTED ? BENCH_EXIT_USAGE : 1;
    if (code && (code == 1 || w->mpi_rank == 0))
        fprintf(stderr, "%s: --backend %s: %s\n", w->opt->prog,
                bench_backend_name(w->opt->backend), tcomm_last_error());
    MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return code;
}

static void open_mpi(bench_world_t *w)
{
    tcomm_status_t st = tcomm_comm_create_mpi(MPI_COMM_WORLD, &w->comms[0]);
    int code = creation_failed(w, st);
    if (code)
        world_exit(w, code);
}

/* A fresh store directory per run: Gloo's keys are files in it. */
static void open_gloo(bench_world_t *w)
{
    if (w->mpi_rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(w->store, sizeof(w->store), "%s/osu_tcomm-gloo-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(w->store)) {
            fprintf(stderr, "%s: --backend gloo: cannot make the store "
                    "directory %s: %s\n", w->opt->prog, w->store,
                    strerror(errno));
            w->store[0] = '\0';
        }
    }
    MPI_Bcast(w->store, sizeof(w->store), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!w->store[0])
        world_exit(w, 1);
    tcomm_gloo_options_t o = {.store_dir = w->store, .prefix = "osu_tcomm",
                              .rank = w->mpi_rank,
                              .world_size = w->mpi_size};
    tcomm_status_t st = tcomm_comm_create_gloo(&o, &w->comms[0]);
    int code = creation_failed(w, st);
    if (code)
        world_exit(w, code);
}

static void open_local(bench_world_t *w)
{
    if (w->mpi_size > 1) {
        if (w->mpi_rank == 0)
            fprintf(stderr, "%s: --backend local: the ranks are threads "
                    "of one process; start it with -np 1 or without "
                    "mpirun, not on %d ranks (see %s -h)\n", w->opt->prog,
                    w->mpi_size, w->opt->prog);
        world_exit(w, BENCH_EXIT_USAGE);
    }
    tcomm_status_t st = tcomm_comm_create_local(w->n, w->comms);
    int code = creation_failed(w, st);
    w->sync = code ? NULL : bench_sync_create(w->n);
    if (!code && !w->sync) {
        fprintf(stderr, "%s: --backend local: cannot set up %d threads\n",
                w->opt->prog, w->n);
        code = 1;
    }
    if (code)
        world_exit(w, code);
}

void bench_world_open(const bench_opts_t *opt, bench_world_t *w)
{
    memset(w, 0, sizeof(*w));
    w->opt = opt;
    MPI_Comm_rank(MPI_COMM_WORLD, &w->mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->mpi_size);
    w->n = opt->backend == BENCH_BACKEND_LOCAL ? opt->threads : 1;
    w->comms = calloc((size_t)w->n, sizeof(*w->comms));
    if (!w->comms) {
        fprintf(stderr, "%s: out of memory\n", opt->prog);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    switch (opt->backend) {
    case BENCH_BACKEND_MPI: open_mpi(w); break;
    case BENCH_BACKEND_GLOO: open_gloo(w); break;
    case BENCH_BACKEND_LOCAL: open_local(w); break;
    }
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
    return remove(path);
}

void bench_world_close(bench_world_t *w)
{
    for (int i = 0; w->comms && i < w->n; i++)
        if (w->comms[i])
            tcomm_comm_destroy(w->comms[i]);
    free(w->comms);
    w->comms = NULL;
    bench_sync_destroy(w->sync);
    w->sync = NULL;
    if (w->store[0]) {
        /* every rank has let go of its files before rank 0 removes them */
        MPI_Barrier(MPI_COMM_WORLD);
        if (w->mpi_rank == 0 &&
            nftw(w->store, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
            fprintf(stderr, "%s: cannot remove the Gloo store %s: %s\n",
                    w->opt->prog, w->store, strerror(errno));
        w->store[0] = '\0';
    }
}

typedef struct {
    bench_run_t run;
    int (*body)(bench_run_t *r, void *arg);
    void *arg;
    int code;
    pthread_t thread;
} rank_job_t;

static void *rank_main(void *p)
{
    rank_job_t *job = p;
    job->code = job->body(&job->run, job->arg);
    return NULL;
}

/* The rank's view of its communicator; a failure here is fatal. */
static void rank_setup(bench_world_t *w, const bench_run_t *proto,
                       int index, bench_run_t *r)
{
    tcomm_comm_info_t info;
    *r = *proto;
    r->comm = w->comms[index];
    r->sync = w->sync;
    r->mpi = MPI_COMM_NULL;
    if (tcomm_comm_info(r->comm, &info) != TCOMM_SUCCESS) {
        fprintf(stderr, "%s: tcomm_comm_info: %s\n", w->opt->prog,
                tcomm_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    r->rank = info.rank;
    r->np = info.world_size;
    r->cuda_aware = info.cuda_aware;
}

int bench_world_run(bench_world_t *w, const bench_run_t *proto,
                    int (*body)(bench_run_t *r, void *arg), void *arg)
{
    int code = 0;
    if (!w->sync) {
        /* one rank: this process, and the baseline's MPI communicator */
        bench_run_t r;
        rank_setup(w, proto, 0, &r);
        MPI_Comm_dup(MPI_COMM_WORLD, &r.mpi);
        code = body(&r, arg);
        MPI_Comm_free(&r.mpi);
        return code;
    }
    rank_job_t *jobs = calloc((size_t)w->n, sizeof(*jobs));
    if (!jobs) {
        fprintf(stderr, "%s: out of memory\n", w->opt->prog);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < w->n; i++) {
        rank_setup(w, proto, i, &jobs[i].run);
        jobs[i].body = body;
        jobs[i].arg = arg;
        int err = pthread_create(&jobs[i].thread, NULL, rank_main, &jobs[i]);
        if (err) {
            /* the threads already started wait in the first barrier */
            fprintf(stderr, "%s: --threads %d: cannot start thread %d: %s\n",
                    w->opt->prog, w->n, i, strerror(err));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (int i = 0; i < w->n; i++) {
        pthread_join(jobs[i].thread, NULL);
        code = jobs[i].code > code ? jobs[i].code : code;
    }
    free(jobs);
    return code;
}
