/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_DEBUG=TRACE: one line per collective call, written by the front
 * end once the call returns, on every backend:
 *   comm=C seq=S coll=K backend=B dtype=D shape=[..] bytes=N path=P
 *   time_us=T status=ST
 * The backend names the path it took (tcomm_trace_path, src/core/log.c) where it knows
 * it; otherwise the path is the backend's name, or "none" when the call
 * ended before any data moved. Nothing here runs below TRACE. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tcomm_frontend.h"
#include "tcomm_log.h"
#include "tcomm_trace.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

double tcomm_trace_begin(void)
{
    (void)tcomm_trace_path_take();
    return now_us();
}

/* "[4,3]": no spaces, so that every field is one word. */
static void shape_word(const tcomm_tensor_t *t, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < t->ndim && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%zu", i ? "," : "",
                               t->shape[i]);
    if (at < len)
        snprintf(buf + at, len - at, "]");
}

void tcomm_trace_end(tcomm_comm_t *comm, const tcomm_call_t *c,
                     tcomm_status_t st, double t0)
{
    static atomic_uint_fast64_t last_id;
    double us = now_us() - t0;
    if (!comm->trace_id) /* numbered in the order of first use */
        comm->trace_id = atomic_fetch_add(&last_id, 1) + 1;
    const tcomm_tensor_t *in = c->in;
    char shape[16 * TCOMM_MAX_DIMS + 4] = "-";
    if (in)
        shape_word(in, shape, sizeof shape);
    const char *path = tcomm_trace_path_take();
    if (!path)
        path = "none";
    tcomm_log_print(TCOMM_LOG_TRACE, comm->rank,
                    "comm=%llu seq=%llu coll=%s backend=%s dtype=%s "
                    "shape=%s bytes=%zu path=%s time_us=%.1f status=%s",
                    (unsigned long long)comm->trace_id,
                    (unsigned long long)comm->seq, tcomm_coll_name(c->kind),
                    comm->ops->name, in ? tcomm_dtype_name(in->dtype) : "-",
                    shape, in ? in->nbytes : 0, path, us, tcomm_status_name(st));
}
