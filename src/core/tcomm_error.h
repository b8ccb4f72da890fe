/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal error recording: the first function that detects an error
 * records status and sentence; callers propagate the status. */
#ifndef TCOMM_ERROR_H
#define TCOMM_ERROR_H

#include "tcomm.h"

/* Record (status, sentence) as this thread's last error; returns status. */
tcomm_status_t tcomm_error(tcomm_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear this thread's last error (start of every public call). */
void tcomm_error_clear(void);
/* Status of this thread's last recorded error (TCOMM_SUCCESS if none). */
tcomm_status_t tcomm_error_status(void);

/* Propagate a failed status. */
#define TCOMM_TRY(expr)                                                     \
    do {                                                                    \
        tcomm_status_t tcomm_try_st_ = (expr);                              \
        if (tcomm_try_st_ != TCOMM_SUCCESS)                                 \
            return tcomm_try_st_;                                           \
    } while (0)

#endif /* TCOMM_ERROR_H */
