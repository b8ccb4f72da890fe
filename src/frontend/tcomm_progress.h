/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking collectives: a request is one call of the front end, run
 * on its communicator's progress thread (src/frontend/progress.c) in the
 * order the calls started, through the same path as a blocking call. */
#ifndef TCOMM_PROGRESS_H
#define TCOMM_PROGRESS_H

#include "tcomm_frontend.h"

typedef struct tcomm_progress tcomm_progress_t;

struct tcomm_request {
    tcomm_comm_t *comm;
    tcomm_call_t call;
    tcomm_tensor_t *hold[2];   /* references kept until it completes */
    tcomm_error_kept_t result; /* status and sentence, once done */
    int done;                  /* atomic; set last, under the lock */
    int orphan;   /* the start returned a local error: nobody waits, the
                     thread frees it once the peers have been told */
    tcomm_request_t *next;
};

/* r's outcome: its status and this thread's sentence, and its tensors
 * released (the caller then marks it done). */
static inline void tcomm_request_finish(tcomm_request_t *r,
                                        tcomm_status_t st)
{
    tcomm_error_keep(&r->result);
    r->result.status = st;
    for (int i = 0; i < 2; i++)
        tcomm_tensor_release(r->hold[i]);
}

/* The blocking path (collectives.c): trace, validate, agree, dispatch. */
tcomm_status_t tcomm_frontend_run(tcomm_comm_t *comm, const tcomm_call_t *c);

/* Queue r on its communicator's progress thread, starting the thread on
 * first use. Fails (r not queued) only if the thread cannot start. */
tcomm_status_t tcomm_progress_submit(tcomm_request_t *r);

/* Whether r has completed (never blocks). */
static inline int tcomm_progress_done(const tcomm_request_t *r)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/* Block until r has completed; its status, with its sentence as this
 * thread's last error. */
tcomm_status_t tcomm_progress_wait(tcomm_request_t *r);

/* A blocking call on a communicator with requests in flight: queued
 * behind them (the ranks meet in the order the calls were made) and
 * waited for. Returns 0 in *queued when nothing is in flight: the caller
 * runs the call itself. */
tcomm_status_t tcomm_progress_run_blocking(tcomm_comm_t *comm,
                                           const tcomm_call_t *c,
                                           int *queued);

#endif /* TCOMM_PROGRESS_H */
