/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal error recording: the first function that detects an error
 * records status and sentence; callers propagate the status. */
#ifndef TCOMM_ERROR_H
#define TCOMM_ERROR_H

#include "tcomm.h"

/* The longest sentence kept (longer ones are cut). */
#define TCOMM_ERROR_LEN 1024

/* Record (status, sentence) as this thread's last error; returns status. */
tcomm_status_t tcomm_error(tcomm_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear this thread's last error (start of every public call). */
void tcomm_error_clear(void);

/* This thread's last error, kept across cleanup that may record errors
 * of its own (destroying half-made objects). */
typedef struct {
    tcomm_status_t status;
    char text[TCOMM_ERROR_LEN];
} tcomm_error_kept_t;
void tcomm_error_keep(tcomm_error_kept_t *kept);
/* Record the kept error again; returns its status. */
tcomm_status_t tcomm_error_restore(const tcomm_error_kept_t *kept);

/* The two error idioms. Without cleanup: return a failed status. */
#define TCOMM_TRY(expr)                                                     \
    do {                                                                    \
        tcomm_status_t tcomm_try_st_ = (expr);                              \
        if (tcomm_try_st_ != TCOMM_SUCCESS)                                 \
            return tcomm_try_st_;                                           \
    } while (0)

/* With cleanup: the status into st and a jump to label, both named at
 * the call site (NCCL's NCCLCHECKGOTO shape); the label's code unwinds in
 * reverse and returns st. */
#define TCOMM_CHECK_GOTO(expr, st, label)                                   \
    do {                                                                    \
        if (((st) = (expr)) != TCOMM_SUCCESS)                               \
            goto label;                                                     \
    } while (0)

#endif /* TCOMM_ERROR_H */
