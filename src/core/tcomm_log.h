/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging under TCOMM_DEBUG: the level is checked before formatting. */
#ifndef TCOMM_LOG_H
#define TCOMM_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TCOMM_LOG_NONE = 0,
    TCOMM_LOG_WARN = 1,
    TCOMM_LOG_INFO = 2,
    TCOMM_LOG_TRACE = 3
} tcomm_log_level_t;

/* Current level, from TCOMM_DEBUG (read once). */
tcomm_log_level_t tcomm_log_level(void);
/* Print one line "tcomm[rank R] LEVEL: ..." to stderr. rank < 0: none. */
void tcomm_log_print(tcomm_log_level_t level, int rank, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define TCOMM_LOG(level, rank, ...)                                         \
    do {                                                                    \
        if (tcomm_log_level() >= (level))                                   \
            tcomm_log_print((level), (rank), __VA_ARGS__);                  \
    } while (0)
#define TCOMM_WARN(rank, ...) TCOMM_LOG(TCOMM_LOG_WARN, rank, __VA_ARGS__)
#define TCOMM_INFO(rank, ...) TCOMM_LOG(TCOMM_LOG_INFO, rank, __VA_ARGS__)
#define TCOMM_TRACE(rank, ...) TCOMM_LOG(TCOMM_LOG_TRACE, rank, __VA_ARGS__)

/* 1 when TCOMM_DEBUG=TRACE, set when the settings are read (before any
 * communicator exists): the per-call test costs one load, no call. Any
 * thread may read it while another (re)loads the settings: accessed
 * only through relaxed atomics (GCC builtins, as this header is also
 * C++'s), read with TCOMM_TRACING(). */
extern int tcomm_log_tracing;
#define TCOMM_TRACING() __atomic_load_n(&tcomm_log_tracing, __ATOMIC_RELAXED)

/* The path this thread's current collective takes, for its TRACE line
 * (src/frontend/trace.c): a backend names it once it has chosen, as one
 * word ("mpi_allreduce", "device_staged+pack"); a string literal. */
void tcomm_trace_path(const char *path);
/* The path named since the last take (NULL: none), cleared. */
const char *tcomm_trace_path_take(void);
#define TCOMM_TRACE_PATH(path)                                              \
    do {                                                                    \
        if (TCOMM_TRACING())                                                \
            tcomm_trace_path(path);                                         \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* TCOMM_LOG_H */
