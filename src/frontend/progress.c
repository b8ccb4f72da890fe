/* SPDX-License-Identifier: BSD-3-Clause */
/* A communicator's progress thread: it runs the nonblocking collectives
 * in the order they were started, each as the blocking call would run
 * (validation, agreement, dispatch), so that they move while the caller
 * computes, without calls into tcomm. One thread per communicator keeps
 * the ranks' order per communicator, which is all that MPI matching and
 * the agreement need; it sleeps on a condition variable when idle. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "tcomm_progress.h"

struct tcomm_progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t work; /* the thread waits for requests */
    pthread_cond_t done; /* waiters wait for completions */
    tcomm_request_t *head, *tail;
    int pending; /* queued or running */
    int running; /* a request is being run (by the thread or a waiter) */
    int sleeping; /* the thread waits on `work` */
    int stop;
};

/* The next request, taken off the queue by the one who will run it
 * (under the lock): never two at once, so that they run in order. */
static tcomm_request_t *take(tcomm_progress_t *p)
{
    tcomm_request_t *r = p->head;
    if (!r || p->running)
        return NULL;
    p->head = r->next;
    if (!p->head)
        p->tail = NULL;
    p->running = 1;
    return r;
}

static void complete(tcomm_progress_t *p, tcomm_request_t *r,
                     tcomm_status_t st)
{
    tcomm_request_finish(r, st);
    pthread_mutex_lock(&p->lock);
    p->pending--;
    p->running = 0;
    if ((p->head || p->stop) && p->sleeping) /* waiting for its turn */
        pthread_cond_signal(&p->work);
    if (r->orphan)
        free(r);
    else
        __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE); /* r is theirs */
    pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->lock);
}

/* The thread yields GRACE_SPINS times before it takes a fresh request,
 * and IDLE_SPINS times before it sleeps: a start followed at once by its
 * wait then neither wakes it (a system call) nor loses the request to it
 * (a wake-up of the waiter). A few microseconds each. */
#define GRACE_SPINS 8
#define IDLE_SPINS 64

static void *progress_main(void *arg)
{
    tcomm_comm_t *comm = arg;
    tcomm_progress_t *p = comm->progress;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        tcomm_request_t *r = NULL;
        for (int spins = 0;; spins++) {
            if (p->stop && !p->head && !p->running)
                break;
            /* a fresh request: give a waiter the chance to run it first
             * (start; wait), a queue that stays: take it */
            if (p->head && !p->running && spins >= GRACE_SPINS &&
                (r = take(p)))
                break;
            if (spins < IDLE_SPINS) { /* a start may follow soon */
                pthread_mutex_unlock(&p->lock);
                sched_yield();
                pthread_mutex_lock(&p->lock);
                continue;
            }
            p->sleeping = 1;
            pthread_cond_wait(&p->work, &p->lock);
            p->sleeping = 0;
            spins = 0;
        }
        if (!r)
            break; /* stopping, and nothing left */
        pthread_mutex_unlock(&p->lock);
        __atomic_store_n(&comm->async_running, 1, __ATOMIC_RELEASE);
        tcomm_status_t st = tcomm_frontend_run(comm, &r->call);
        __atomic_store_n(&comm->async_running, 0, __ATOMIC_RELEASE);
        complete(p, r, st);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* tcomm_comm_destroy: the requests still queued complete first (their
 * handles stay valid for tcomm_wait), then the thread ends. Destroying
 * counts as waiting, so TCOMM_TIMEOUT bounds it. */
static void stop_progress(tcomm_comm_t *comm)
{
    tcomm_progress_t *p = comm->progress;
    __atomic_add_fetch(&comm->async_waiters, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    __atomic_sub_fetch(&comm->async_waiters, 1, __ATOMIC_ACQ_REL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p);
    comm->progress = NULL;
    comm->stop_progress = NULL;
}

static tcomm_status_t start_thread(tcomm_comm_t *comm, const char *fn)
{
    tcomm_progress_t *p = calloc(1, sizeof *p);
    if (!p)
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                           fn);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    comm->progress = p;
    if (pthread_create(&p->thread, NULL, progress_main, comm) != 0) {
        pthread_cond_destroy(&p->done);
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->lock);
        free(p);
        comm->progress = NULL;
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "%s: cannot start the communicator's progress "
                           "thread (raise the process's thread limit, or "
                           "set TCOMM_PROGRESS=caller)",
                           fn);
    }
    comm->stop_progress = stop_progress;
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_progress_submit(tcomm_request_t *r)
{
    tcomm_comm_t *comm = r->comm;
    if (!comm->progress)
        TCOMM_TRY(start_thread(comm, r->call.fn));
    tcomm_progress_t *p = comm->progress;
    r->next = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->tail)
        p->tail->next = r;
    else
        p->head = r;
    p->tail = r;
    p->pending++;
    if (p->sleeping)
        pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    return TCOMM_SUCCESS;
}

/* A waiter whose request the thread has not taken yet runs the queue up
 * to it itself, in order, instead of waking the thread and sleeping: a
 * start followed at once by its wait costs what the blocking call does
 * (the thread gets the CPU only when there is time to overlap). While the
 * thread runs it, the waiter yields a while before it sleeps: a wake-up
 * costs more than a short collective. */
#define WAIT_SPINS 200
tcomm_status_t tcomm_progress_wait(tcomm_request_t *r)
{
    if (!tcomm_progress_done(r)) {
        tcomm_comm_t *comm = r->comm; /* alive: destroy completes first */
        tcomm_progress_t *p = comm->progress;
        __atomic_add_fetch(&comm->async_waiters, 1, __ATOMIC_ACQ_REL);
        pthread_mutex_lock(&p->lock);
        for (int spins = 0; !tcomm_progress_done(r);) {
            tcomm_request_t *next = take(p);
            if (!next && spins < WAIT_SPINS) { /* the thread is on it */
                pthread_mutex_unlock(&p->lock);
                sched_yield();
                spins++;
                pthread_mutex_lock(&p->lock);
                continue;
            }
            if (!next) {
                pthread_cond_wait(&p->done, &p->lock);
                continue;
            }
            pthread_mutex_unlock(&p->lock);
            complete(p, next, tcomm_frontend_run(comm, &next->call));
            pthread_mutex_lock(&p->lock);
        }
        pthread_mutex_unlock(&p->lock);
        __atomic_sub_fetch(&comm->async_waiters, 1, __ATOMIC_ACQ_REL);
    }
    return tcomm_error_restore(&r->result);
}

tcomm_status_t tcomm_progress_run_blocking(tcomm_comm_t *comm,
                                           const tcomm_call_t *c,
                                           int *queued)
{
    tcomm_progress_t *p = comm->progress;
    *queued = 0;
    if (!p)
        return TCOMM_SUCCESS;
    pthread_mutex_lock(&p->lock);
    int busy = p->pending > 0;
    pthread_mutex_unlock(&p->lock);
    if (!busy) /* the thread is idle: the caller runs it, as ever */
        return TCOMM_SUCCESS;
    tcomm_request_t r = {.comm = comm, .call = *c};
    *queued = 1;
    TCOMM_TRY(tcomm_progress_submit(&r));
    return tcomm_progress_wait(&r);
}
