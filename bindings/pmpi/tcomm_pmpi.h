/* SPDX-License-Identifier: BSD-3-Clause */
/* libtcomm_pmpi: MPI's collectives through the profiling interface
 * (design.md, "Drop-in acceleration of unmodified MPI programs"). This
 * room sits above the front end: it calls tcomm's public API and PMPI_*.
 *
 * The decision to take a call is made from what MPI requires to match
 * on every rank (datatype, count, op, root, the communicator), never
 * from local facts, so that the ranks of one call never split between
 * tcomm and MPI. */
#ifndef TCOMM_PMPI_H
#define TCOMM_PMPI_H

#include <mpi.h>

#include "tcomm_mpi.h"

#define TCOMM_PMPI_EXPORT __attribute__((visibility("default")))

/* The interposed functions, in the report's order. */
typedef enum {
    PMPI_FN_ALLREDUCE, PMPI_FN_REDUCE_SCATTER_BLOCK, PMPI_FN_REDUCE_SCATTER,
    PMPI_FN_ALLGATHER, PMPI_FN_ALLGATHERV, PMPI_FN_BCAST, PMPI_FN_ALLTOALL,
    PMPI_FN_ALLTOALLV, PMPI_FN_BARRIER, PMPI_FN_IALLREDUCE,
    PMPI_FN_IALLGATHER, PMPI_FN_IREDUCE_SCATTER_BLOCK, PMPI_FN_IBCAST,
    PMPI_FN_IALLTOALL, PMPI_FN_ALLOC_MEM, PMPI_FN_COUNT
} tcomm_pmpi_fn_t;

/* Nonzero while this thread runs tcomm on the interposer's behalf: the
 * MPI calls tcomm makes itself then go straight to PMPI_. */
extern __thread int tcomm_pmpi_inside;

/* TCOMM_PMPI (1: take calls), TCOMM_PMPI_REPORT, read once at load. */
extern int tcomm_pmpi_on;
extern int tcomm_pmpi_report_on;

/* The least bytes (count * type size, of one rank's part) at which fn is
 * taken; TCOMM_PMPI_MIN_BYTES overrides the measured table. */
size_t tcomm_pmpi_min_bytes(tcomm_pmpi_fn_t fn);

/* The tcomm dtype that moves or reduces `type`; 0 if it is not a
 * predefined contiguous type tcomm has. For data movement every
 * predefined contiguous type moves as u8 (*dt = TCOMM_U8, *size its
 * size); for a reduction the type and op must both be tcomm's. */
int tcomm_pmpi_move_type(MPI_Datatype type, size_t *size);
int tcomm_pmpi_reduce_type(MPI_Datatype type, MPI_Op op, tcomm_dtype_t *dt,
                           tcomm_op_t *top, size_t *size);

/* The tcomm handle of an intracommunicator, made on first use (a
 * collective over comm: every rank reaches it in the same call); NULL if
 * comm is an intercommunicator, one of tcomm's own, or tcomm cannot
 * serve it (then every rank gets NULL). *size is comm's size, *rank
 * this rank's. */
tcomm_comm_t *tcomm_pmpi_comm(MPI_Comm comm, int *size, int *rank);

/* MPI_Alltoallv's agreement, per communicator: after an agreement that
 * passed the call, the next `skip` calls pass without one (the same on
 * every rank: each saw the same answer and counts the same calls). */
typedef struct {
    unsigned skip, window;
} tcomm_pmpi_backoff_t;

/* tcomm_pmpi_comm, and comm's MPI_Alltoallv state. */
tcomm_comm_t *tcomm_pmpi_comm_a2av(MPI_Comm comm, int *size, int *rank,
                                   tcomm_pmpi_backoff_t **backoff);

/* Is comm one of tcomm's own (its dup of a user's communicator, or made
 * from one)? Only the report asks (an attribute lookup). */
int tcomm_pmpi_internal(MPI_Comm comm);

/* For a nonblocking call: comm's handle as tcomm_pmpi_comm, but NULL
 * unless every rank of comm has MPI_THREAD_MULTIPLE (a helper thread
 * completes the MPI request; agreed when the handle was made). The
 * handle then outlives MPI_Comm_free until tcomm_pmpi_comm_release(*key)
 * (once per acquire, when the call has completed). */
tcomm_comm_t *tcomm_pmpi_comm_acquire(MPI_Comm comm, int *size, int *rank,
                                      void **key);
void tcomm_pmpi_comm_release(void *key);

/* The send side of a gather or an exchange matches the receive side's
 * rbytes (or is MPI_IN_PLACE). */
int tcomm_pmpi_send_matches(const void *sbuf, int scount,
                            MPI_Datatype stype, size_t rbytes);

/* The process's host graph of wrapped buffers (made with the first
 * handle). */
tcomm_graph_t *tcomm_pmpi_graph(void);

/* A 1-D tensor over count elements of dt at buf; NULL on failure. */
tcomm_tensor_t *tcomm_pmpi_wrap(tcomm_dtype_t dt, void *buf, size_t count);

/* The end of a taken call: counts it, releases the tensors (NULL is
 * fine), and turns a tcomm failure into MPI's error through comm's
 * error handler. */
int tcomm_pmpi_done(tcomm_pmpi_fn_t fn, MPI_Comm comm, tcomm_status_t st,
                    size_t bytes, double t0, tcomm_tensor_t *a,
                    tcomm_tensor_t *b);

/* Counting for the report. */
double tcomm_pmpi_now(void);
/* An application's call passed to MPI: counted unless it is tcomm's own
 * (this thread is inside a taken call, or comm is one tcomm made: its
 * progress thread calls MPI on those). */
void tcomm_pmpi_passed(tcomm_pmpi_fn_t fn, MPI_Comm comm);
void tcomm_pmpi_handled(tcomm_pmpi_fn_t fn, size_t bytes, double t0);

/* A taken nonblocking call (pmpi_nonblocking.c). */
typedef struct tcomm_pmpi_nb {
    tcomm_pmpi_fn_t fn;
    tcomm_request_t *req;
    MPI_Request greq;
    tcomm_tensor_t *in, *out; /* released when it completes */
    void *scratch;  /* an in-place call's own copy, freed at the end */
    void *copy_to;  /* in-place reduce_scatter: scratch goes here at end */
    size_t copy_bytes, bytes;
    double t0;
    void *key;      /* the communicator's handle, held till the end */
    tcomm_status_t st;
    struct tcomm_pmpi_nb *next;
} tcomm_pmpi_nb_t;

/* A new call when it is taken (bytes: one rank's part, the thresholds'
 * measure; the rules of the blocking calls); NULL and *rc MPI_SUCCESS:
 * MPI does it; NULL and an error in *rc: the call fails (reported). */
tcomm_pmpi_nb_t *tcomm_pmpi_nb_begin(tcomm_pmpi_fn_t fn, size_t bytes,
                                     MPI_Comm comm, tcomm_comm_t **tc,
                                     int *n, int *me, int *rc);
/* After tcomm's start succeeded: *req is the generalized request that
 * completes with it. */
int tcomm_pmpi_nb_hand_over(tcomm_pmpi_nb_t *nb, MPI_Request *req);
/* tcomm's start failed: reported as a blocking call's failure. */
int tcomm_pmpi_nb_failed(tcomm_pmpi_nb_t *nb, MPI_Comm comm,
                         tcomm_status_t st);

/* Wait for the nonblocking calls in flight and end their helper thread;
 * then destroy every cached handle and the graph (MPI_Finalize). */
void tcomm_pmpi_nb_stop(void);
void tcomm_pmpi_free_all(void);

/* Are blocks of MPI_Alloc_mem (tensors of the graph) still allocated? */
int tcomm_pmpi_blocks_live(void);

#endif /* TCOMM_PMPI_H */
