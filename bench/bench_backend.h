/* SPDX-License-Identifier: BSD-3-Clause */
/* The communicators of a run and the ranks that use them (--backend,
 * bench_backend.c). */
#ifndef TCOMM_BENCH_BACKEND_H
#define TCOMM_BENCH_BACKEND_H

#include "tcomm_bench.h"

typedef struct {
    const bench_opts_t *opt;
    int mpi_rank, mpi_size;  /* of MPI_COMM_WORLD */
    int n;                   /* ranks in this process: --threads or 1 */
    tcomm_comm_t **comms;    /* n of them */
    struct bench_sync *sync; /* local: the threads' barrier and slots */
    char store[256];         /* gloo: the store directory ("" if none) */
} bench_world_t;

/* After MPI_Init, on every MPI rank: create the communicators. A backend
 * this build or launch cannot run (Gloo absent, local on several MPI
 * ranks) prints one line on rank 0 and exits 2 on every rank; another
 * creation failure exits 1. */
void bench_world_open(const bench_opts_t *opt, bench_world_t *w);
/* Run @p body once per rank of this process, each with a copy of @p proto
 * completed with its communicator, rank, world size and synchronization:
 * on this thread (mpi, gloo; r->mpi is a dup of MPI_COMM_WORLD for the
 * baseline) or on one thread per rank (local). Returns the largest value
 * a body returned. */
int bench_world_run(bench_world_t *w, const bench_run_t *proto,
                    int (*body)(bench_run_t *r, void *arg), void *arg);
/* Destroy the communicators and remove the Gloo store (collective). */
void bench_world_close(bench_world_t *w);

#endif /* TCOMM_BENCH_BACKEND_H */
