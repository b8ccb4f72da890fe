/* SPDX-License-Identifier: BSD-3-Clause */
/* The front end's per-call TRACE line (src/frontend/trace.c). */
#ifndef TCOMM_TRACE_H
#define TCOMM_TRACE_H

#include "tcomm_frontend.h"

/* Clear the path and read the clock: call only at TRACE. */
double tcomm_trace_begin(void);
/* Log the call that began at t0 (tcomm_trace_begin) and ended with st. */
void tcomm_trace_end(tcomm_comm_t *comm, const tcomm_call_t *c,
                     tcomm_status_t st, double t0);

#endif /* TCOMM_TRACE_H */
