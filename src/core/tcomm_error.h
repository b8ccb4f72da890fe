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

/* The name of a status as include/tcomm.h spells it ("TCOMM_ERR_SHAPE"),
 * "TCOMM_ERR_UNKNOWN" for a value it does not define. */
const char *tcomm_status_name(tcomm_status_t status);

/* One hop of a failed status on its way up: at TCOMM_DEBUG=INFO or finer
 * prints "tcomm INFO: hop FILE:LINE FUNC -> STATUS_NAME" on standard
 * error (NCCL's NCCLCHECK shape), silent below; returns status. Called by
 * the idioms below on failure only, so success costs the one branch it
 * always did. */
tcomm_status_t tcomm_error_hop(tcomm_status_t status, const char *file,
                               int line, const char *func)
    __attribute__((cold));

/* The two error idioms; both record the hop. Without cleanup: return a
 * failed status. */
#define TCOMM_TRY(expr)                                                     \
    do {                                                                    \
        tcomm_status_t tcomm_try_st_ = (expr);                              \
        if (tcomm_try_st_ != TCOMM_SUCCESS)                                 \
            return tcomm_error_hop(tcomm_try_st_, __FILE__, __LINE__,       \
                                   __func__);                               \
    } while (0)

/* With cleanup: the status into st and a jump to label, both named at
 * the call site (NCCL's NCCLCHECKGOTO shape); the label's code unwinds in
 * reverse and returns st. */
#define TCOMM_CHECK_GOTO(expr, st, label)                                   \
    do {                                                                    \
        if (((st) = (expr)) != TCOMM_SUCCESS) {                             \
            tcomm_error_hop((st), __FILE__, __LINE__, __func__);            \
            goto label;                                                     \
        }                                                                   \
    } while (0)

#endif /* TCOMM_ERROR_H */
