/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend: N ranks as N threads of one process, with real
 * collectives through shared memory. This file holds the world (its
 * barrier and slots), the handles' lifecycle and the agreement channel;
 * the collectives are in src/backends/backend_local_colls.c and
 * backend_local_all_to_all.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_local_world.h"
#include "tcomm_config.h"

static void deadline_after(double seconds, struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    double whole = (double)(time_t)seconds;
    ts->tv_sec += (time_t)seconds;
    ts->tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Called with the lock held: "rank 2" or "ranks 2, 3", the ranks that
 * have not arrived. */
static void late_ranks(const tcomm_local_world_t *w, char *buf, size_t len)
{
    int missing = w->size - w->arrived, shown = 0;
    size_t used = (size_t)snprintf(buf, len, "rank%s ",
                                   missing > 1 ? "s" : "");
    for (int r = 0; r < w->size && used + 16 < len; r++) {
        if (w->present[r])
            continue;
        if (shown == 8) {
            snprintf(buf + used, len - used, ", ...");
            break;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%d",
                                 shown ? ", " : "", r);
        shown++;
    }
}

static tcomm_status_t broken_error(const tcomm_local_world_t *w)
{
    return tcomm_error(TCOMM_ERR_COMM_FAILED,
                       "tcomm: the local world failed earlier (%s); its "
                       "state is unknown (destroy every rank's handle)",
                       tcomm_status_string(w->broken));
}

tcomm_status_t tcomm_local_sync(tcomm_local_rank_t *me)
{
    tcomm_local_world_t *w = me->world;
    tcomm_status_t st = TCOMM_SUCCESS;
    pthread_mutex_lock(&w->lock);
    if (w->broken) {
        st = broken_error(w);
        goto out;
    }
    unsigned long gen = w->generation;
    w->present[me->rank] = 1;
    if (++w->arrived == w->size) { /* the last to arrive opens the gate */
        w->arrived = 0;
        w->generation++;
        memset(w->present, 0, (size_t)w->size);
        pthread_cond_broadcast(&w->cond);
        goto out;
    }
    struct timespec until;
    if (w->timeout_s > 0)
        deadline_after(w->timeout_s, &until);
    while (gen == w->generation && !w->broken) {
        int rc = w->timeout_s > 0
                     ? pthread_cond_timedwait(&w->cond, &w->lock, &until)
                     : pthread_cond_wait(&w->cond, &w->lock);
        if (rc == ETIMEDOUT && gen == w->generation && !w->broken) {
            late_ranks(w, w->late, sizeof w->late);
            w->broken = TCOMM_ERR_TIMEOUT;
            pthread_cond_broadcast(&w->cond);
        }
    }
    if (gen != w->generation)
        goto out;
    /* Everyone waiting when the world broke reports the late ranks. */
    st = tcomm_error(TCOMM_ERR_TIMEOUT,
                     "tcomm: rank %d waited %g s (TCOMM_TIMEOUT) for %s of "
                     "the local world, which did not arrive (call "
                     "the collective on every rank's thread; the world is "
                     "unusable now)",
                     me->rank, w->timeout_s, w->late);
out:
    pthread_mutex_unlock(&w->lock);
    return st;
}

tcomm_status_t tcomm_local_share(tcomm_local_rank_t *me, const void *ptr,
                                 tcomm_status_t mine)
{
    tcomm_local_world_t *w = me->world;
    w->slot[me->rank] = ptr;
    w->status[me->rank] = mine;
    tcomm_error_kept_t own; /* the rank's own sentence stands */
    tcomm_error_keep(&own);
    TCOMM_TRY(tcomm_local_sync(me));
    if (mine != TCOMM_SUCCESS) {
        own.status = mine;
        return tcomm_error_restore(&own);
    }
    for (int r = 0; r < w->size; r++)
        if (w->status[r] != TCOMM_SUCCESS)
            return tcomm_error(TCOMM_ERR_COMM_FAILED,
                               "tcomm: rank %d of the local world could "
                               "not take part (%s); no data moved",
                               r, tcomm_status_string(w->status[r]));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_local_scratch(tcomm_local_rank_t *me, size_t bytes,
                                   void **buf)
{
    TCOMM_TRY(
        tcomm_host_grow(&me->scratch, &me->scratch_bytes, bytes, "scratch"));
    *buf = me->scratch;
    return TCOMM_SUCCESS;
}

static tcomm_status_t local_query(void *state, int *rank, int *size,
                                  int *cuda_aware)
{
    tcomm_local_rank_t *me = state;
    *rank = me->rank;
    *size = me->world->size;
    *cuda_aware = 0;
    return TCOMM_SUCCESS;
}

static tcomm_status_t local_allgather_bytes(void *state, const void *mine,
                                            void *all, size_t bytes)
{
    tcomm_local_rank_t *me = state;
    tcomm_local_world_t *w = me->world;
    TCOMM_TRY(tcomm_local_share(me, mine, TCOMM_SUCCESS));
    for (int r = 0; r < w->size; r++)
        memcpy((char *)all + (size_t)r * bytes, w->slot[r], bytes);
    return tcomm_local_sync(me); /* nobody reuses mine before we read */
}

static tcomm_status_t local_barrier(void *state)
{
    return tcomm_local_sync(state);
}

static void world_release(tcomm_local_world_t *w)
{
    if (atomic_fetch_sub(&w->refs, 1) != 1)
        return;
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    free(w->present);
    free(w->slot);
    free(w->status);
    free(w);
}

static void local_destroy(void *state)
{
    tcomm_local_rank_t *me = state;
    world_release(me->world);
    free(me->scratch);
    free(me);
}

const tcomm_backend_ops_t tcomm_backend_local = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "local",
    .query = local_query,
    .allgather_bytes = local_allgather_bytes,
    .allreduce_min_i64 = NULL, /* the front end gathers the headers */
    .all_reduce = tcomm_local_all_reduce,
    .all_gather = tcomm_local_all_gather,
    .reduce_scatter = tcomm_local_reduce_scatter,
    .broadcast = tcomm_local_broadcast,
    .barrier = local_barrier,
    .destroy = local_destroy,
    .all_to_all = tcomm_local_all_to_all,
    .all_to_all_v = tcomm_local_all_to_all_v,
    .reduce_scatter_v = tcomm_local_reduce_scatter_v,
};

static tcomm_local_world_t *world_new(int n)
{
    tcomm_local_world_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->present = calloc((size_t)n, 1);
    w->slot = calloc((size_t)n, sizeof *w->slot);
    w->status = calloc((size_t)n, sizeof *w->status);
    pthread_condattr_t attr;
    int ok = w->present && w->slot && w->status &&
             !pthread_condattr_init(&attr);
    if (ok) {
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        ok = !pthread_cond_init(&w->cond, &attr);
        pthread_condattr_destroy(&attr);
    }
    if (ok && pthread_mutex_init(&w->lock, NULL)) {
        pthread_cond_destroy(&w->cond);
        ok = 0;
    }
    if (!ok) {
        free(w->present);
        free(w->slot);
        free(w->status);
        free(w);
        return NULL;
    }
    w->size = n;
    w->timeout_s = tcomm_config()->timeout_s;
    atomic_init(&w->refs, n);
    return w;
}

tcomm_status_t tcomm_comm_create_local(int world_size, tcomm_comm_t **comms)
{
    static const char fn[] = "tcomm_comm_create_local";
    tcomm_error_clear();
    if (!comms)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: comms is NULL (pass an array of world_size "
                           "tcomm_comm_t pointers)",
                           fn);
    if (world_size < 1 || world_size > TCOMM_LOCAL_MAX_RANKS)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: world_size %d is out of range (use 1..%d: "
                           "one thread per rank)",
                           fn, world_size, TCOMM_LOCAL_MAX_RANKS);
    tcomm_comm_t **made = calloc((size_t)world_size, sizeof *made);
    tcomm_local_world_t *w = made ? world_new(world_size) : NULL;
    if (!w) {
        free(made);
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                           fn);
    }
    tcomm_status_t st = TCOMM_SUCCESS;
    for (int r = 0; r < world_size && st == TCOMM_SUCCESS; r++) {
        tcomm_local_rank_t *me = calloc(1, sizeof *me);
        if (!me) {
            st = tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory",
                             fn);
            break;
        }
        me->world = w;
        me->rank = r;
        st = tcomm_comm_wrap_backend(&tcomm_backend_local, me, &made[r]);
        if (st != TCOMM_SUCCESS)
            free(me);
    }
    if (st != TCOMM_SUCCESS) { /* each rank gives back its reference */
        tcomm_error_kept_t why;
        tcomm_error_keep(&why);
        for (int q = 0; q < world_size; q++) {
            if (made[q])
                tcomm_comm_destroy(made[q]);
            else
                world_release(w);
        }
        free(made);
        why.status = st;
        return tcomm_error_restore(&why);
    }
    memcpy(comms, made, (size_t)world_size * sizeof *made);
    free(made);
    return st;
}
