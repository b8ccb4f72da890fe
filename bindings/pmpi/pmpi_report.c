/* SPDX-License-Identifier: BSD-3-Clause */
/* What the library did, per function (TCOMM_PMPI_REPORT=1): calls
 * handled by tcomm and passed to MPI, bytes and time of the handled ones,
 * summed over the ranks and printed by rank 0 at MPI_Finalize. Also the
 * end of every taken call and MPI_Finalize itself. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "tcomm_pmpi.h"

static const char *const names[PMPI_FN_COUNT] = {
    "MPI_Allreduce", "MPI_Reduce_scatter_block", "MPI_Reduce_scatter",
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Bcast", "MPI_Alltoall",
    "MPI_Alltoallv", "MPI_Barrier", "MPI_Iallreduce", "MPI_Iallgather",
    "MPI_Ireduce_scatter_block", "MPI_Ibcast", "MPI_Ialltoall",
    "MPI_Alloc_mem",
};

/* handled, passed, bytes and nanoseconds of the handled ones */
enum { HANDLED, PASSED, BYTES, NS, NCOUNT };
static uint64_t counts[PMPI_FN_COUNT][NCOUNT];

double tcomm_pmpi_now(void)
{
    struct timespec ts;
    if (!tcomm_pmpi_report_on)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no system call */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tcomm_pmpi_passed(tcomm_pmpi_fn_t fn, MPI_Comm comm)
{
    if (tcomm_pmpi_report_on && !tcomm_pmpi_inside &&
        !tcomm_pmpi_internal(comm))
        __atomic_fetch_add(&counts[fn][PASSED], 1, __ATOMIC_RELAXED);
}

tcomm_tensor_t *tcomm_pmpi_wrap(tcomm_dtype_t dt, void *buf, size_t count)
{
    tcomm_tensor_t *t = NULL;
    if (tcomm_tensor_wrap(tcomm_pmpi_graph(), dt, buf, 1, &count, &t) !=
        TCOMM_SUCCESS)
        return NULL;
    return t;
}

void tcomm_pmpi_handled(tcomm_pmpi_fn_t fn, size_t bytes, double t0)
{
    if (!tcomm_pmpi_report_on)
        return;
    double dt = tcomm_pmpi_now() - t0;
    __atomic_fetch_add(&counts[fn][HANDLED], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counts[fn][BYTES], bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counts[fn][NS], (uint64_t)(dt * 1e9),
                       __ATOMIC_RELAXED);
}

int tcomm_pmpi_done(tcomm_pmpi_fn_t fn, MPI_Comm comm, tcomm_status_t st,
                    size_t bytes, double t0, tcomm_tensor_t *a,
                    tcomm_tensor_t *b)
{
    tcomm_tensor_release(a);
    tcomm_tensor_release(b);
    tcomm_pmpi_handled(fn, bytes, t0);
    if (st == TCOMM_SUCCESS)
        return MPI_SUCCESS;
    /* A correct call failed in tcomm (memory, a peer gone): MPI's way of
       saying so, through comm's error handler. */
    fprintf(stderr, "tcomm_pmpi: %s failed in tcomm: %s\n", names[fn],
            tcomm_last_error());
    PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
}

static void report(void)
{
    uint64_t sum[PMPI_FN_COUNT][NCOUNT];
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Reduce(counts, sum, PMPI_FN_COUNT * NCOUNT, MPI_UINT64_T, MPI_SUM, 0,
                MPI_COMM_WORLD);
    if (rank != 0)
        return;
    for (int f = 0; f < PMPI_FN_COUNT; f++)
        fprintf(stderr,
                "tcomm_pmpi: %s %llu handled, %llu passed to MPI; "
                "handled %.1f MiB in %.3f ms (sums over %d ranks)\n",
                names[f], (unsigned long long)sum[f][HANDLED],
                (unsigned long long)sum[f][PASSED],
                (double)sum[f][BYTES] / (1024.0 * 1024.0), (double)sum[f][NS] * 1e-6,
                size);
}

/* The calls in flight end (the program has waited for them all, as
 * MPI requires); the report while MPI still works; then tcomm's handles and graph go
 * before MPI does (the communicators' attributes are deleted here, not
 * left to MPI_Finalize, which need not delete those of COMM_WORLD). */
TCOMM_PMPI_EXPORT int MPI_Finalize(void)
{
    tcomm_pmpi_nb_stop();
    if (tcomm_pmpi_report_on)
        report();
    tcomm_pmpi_free_all();
    return PMPI_Finalize();
}
