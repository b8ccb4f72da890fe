/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking collectives as MPI requests (the calls: pmpi_icolls.c).
 *
 * A taken call starts tcomm's request (moved by the communicator's
 * progress thread) and hands the program an MPI generalized request, so
 * that MPI_Wait/Test/Waitall/Testany/Waitsome take it beside any other
 * request. tcomm has no completion callback: one helper thread waits for
 * tcomm's requests in the order they started and completes each MPI
 * request with MPI_Grequest_complete. That needs MPI_THREAD_MULTIPLE on
 * every rank of the communicator (agreed when its handle was made); below
 * it every call passes to MPI. The helper never blocks on anything but
 * tcomm's own progress, so waiting in start order cannot deadlock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_pmpi.h"

typedef tcomm_pmpi_nb_t nb_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static nb_t *head, *tail;
static int running, stopping;
static pthread_t helper;

/* An MPI collective's status is empty (MPI 4.0, 3.7.3). */
static int query_fn(void *extra, MPI_Status *status)
{
    const nb_t *nb = extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return nb->st == TCOMM_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static int free_fn(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

/* A collective cannot be cancelled: MPI allows cancel to do nothing. */
static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* The end of one call, on the helper thread: everything but nb itself
 * (MPI's free_fn frees it) is released before MPI learns it is done. */
static void finish(nb_t *nb)
{
    nb->st = tcomm_wait(&nb->req);
    tcomm_tensor_release(nb->in);
    tcomm_tensor_release(nb->out);
    if (nb->st == TCOMM_SUCCESS && nb->copy_to)
        memcpy(nb->copy_to, nb->scratch, nb->copy_bytes);
    free(nb->scratch);
    tcomm_pmpi_handled(nb->fn, nb->bytes, nb->t0);
    if (nb->st != TCOMM_SUCCESS)
        fprintf(stderr, "tcomm_pmpi: a nonblocking call failed in tcomm: "
                "%s\n", tcomm_last_error());
    tcomm_pmpi_comm_release(nb->key);
    PMPI_Grequest_complete(nb->greq);
}

static void *helper_main(void *arg)
{
    (void)arg;
    tcomm_pmpi_inside = 1; /* tcomm's MPI calls from here go to PMPI_ */
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!head && !stopping)
            pthread_cond_wait(&cond, &lock);
        nb_t *nb = head;
        if (!nb)
            break; /* stopping, and nothing left in flight */
        head = nb->next;
        if (!head)
            tail = NULL;
        pthread_mutex_unlock(&lock);
        finish(nb);
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

void tcomm_pmpi_nb_stop(void)
{
    pthread_mutex_lock(&lock);
    int was = running;
    stopping = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    if (was)
        pthread_join(helper, NULL);
    running = 0;
}

int tcomm_pmpi_nb_hand_over(nb_t *nb, MPI_Request *req)
{
    int rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, nb, req);
    pthread_mutex_lock(&lock);
    if (rc == MPI_SUCCESS && !running && !stopping &&
        pthread_create(&helper, NULL, helper_main, NULL) == 0)
        running = 1;
    if (rc != MPI_SUCCESS || !running) {
        pthread_mutex_unlock(&lock);
        if (rc == MPI_SUCCESS) { /* no thread: complete it right here */
            nb->greq = *req;
            finish(nb);
            return MPI_SUCCESS;
        }
        tcomm_wait(&nb->req); /* the peers take part: let it end */
        tcomm_tensor_release(nb->in);
        tcomm_tensor_release(nb->out);
        tcomm_pmpi_comm_release(nb->key);
        free(nb->scratch);
        free(nb);
        return rc;
    }
    nb->greq = *req;
    if (tail)
        tail->next = nb;
    else
        head = nb;
    tail = nb;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

int tcomm_pmpi_nb_failed(nb_t *nb, MPI_Comm comm, tcomm_status_t st)
{
    int rc = tcomm_pmpi_done(nb->fn, comm, st, 0, nb->t0, nb->in, nb->out);
    tcomm_pmpi_comm_release(nb->key);
    free(nb->scratch);
    free(nb);
    return rc;
}

nb_t *tcomm_pmpi_nb_begin(tcomm_pmpi_fn_t fn, size_t bytes, MPI_Comm comm,
                          tcomm_comm_t **tc, int *n, int *me, int *rc)
{
    *rc = MPI_SUCCESS;
    if (!tcomm_pmpi_on || tcomm_pmpi_inside || bytes == 0 ||
        bytes < tcomm_pmpi_min_bytes(fn))
        return NULL;
    void *key;
    *tc = tcomm_pmpi_comm_acquire(comm, n, me, &key);
    if (!*tc)
        return NULL;
    nb_t *nb = calloc(1, sizeof *nb);
    if (!nb) {
        /* the other ranks take it: this one must fail, not pass */
        tcomm_pmpi_comm_release(key);
        *rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(comm, *rc);
        return NULL;
    }
    *nb = (nb_t){.fn = fn, .key = key, .t0 = tcomm_pmpi_now()};
    return nb;
}
