/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Finalize with nonblocking collectives in flight: MPI deletes
 * MPI_COMM_SELF's attributes first thing in MPI_Finalize (MPI 4.0,
 * 11.2.4), so a delete callback there completes the requests that the
 * live communicators' progress threads are still running, before MPI
 * goes away under them. Their handles stay valid for tcomm_wait, and the
 * communicators for tcomm_comm_destroy. */
#include <pthread.h>

#include "tcomm_backend_mpi.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tcomm_mpi_state_t *live; /* through next_live */
static int keyval = MPI_KEYVAL_INVALID;

static int on_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    pthread_mutex_lock(&lock);
    for (tcomm_mpi_state_t *st = live; st; st = st->next_live)
        if (st->owner && st->owner->stop_progress)
            st->owner->stop_progress(st->owner);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

void tcomm_mpi_finalize_hook_add(tcomm_mpi_state_t *st)
{
    pthread_mutex_lock(&lock);
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &keyval,
                               NULL) == MPI_SUCCESS &&
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL) != MPI_SUCCESS)
        MPI_Comm_free_keyval(&keyval);
    st->next_live = live;
    live = st;
    pthread_mutex_unlock(&lock);
}

void tcomm_mpi_finalize_hook_remove(tcomm_mpi_state_t *st)
{
    pthread_mutex_lock(&lock);
    for (tcomm_mpi_state_t **p = &live; *p; p = &(*p)->next_live)
        if (*p == st) {
            *p = st->next_live;
            break;
        }
    pthread_mutex_unlock(&lock);
}
