/* SPDX-License-Identifier: BSD-3-Clause */
/* The paths' words and their once-per-communicator INFO lines. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tcomm_internal.h"
#include "tcomm_log.h"
#include "tcomm_paths.h"

/* tcomm_path_packed and tcomm_path_device count on this order. */
#define SAME(a, b) ((int)TCOMM_PATH_##a == (int)TCOMM_PATH_##b)
_Static_assert(SAME(PACK_MPI_ALLTOALL_UNPACK, MPI_ALLTOALL + 3) &&
                   SAME(PACK_MPI_ALLTOALLV_UNPACK, MPI_ALLTOALLV + 3) &&
                   SAME(MPI_ALLTOALLV, MPI_ALLTOALL + 4) &&
                   SAME(MPI_ALLTOALL_PIECES, MPI_ALLTOALLV + 4) &&
                   SAME(PACK_MPI_ALLTOALL_PIECES_UNPACK,
                        MPI_ALLTOALL_PIECES + 3),
               "the all-to-all exchanges: base, pack+, +unpack, both");
_Static_assert(SAME(DEVICE_STAGED_FOLD, DEVICE_STAGED + 1) &&
                   SAME(DEVICE_STAGED_UNPACK, DEVICE_STAGED + 2) &&
                   SAME(DEVICE_STAGED_PACK, DEVICE_STAGED + 4) &&
                   SAME(DEVICE_DIRECT, DEVICE_STAGED + 8) &&
                   SAME(DEVICE_DIRECT_PACK_UNPACK_FOLD, DEVICE_STAGED + 15) &&
                   TCOMM_PATH_DEVICE_DIRECT_PACK_UNPACK_FOLD + 1 ==
                       TCOMM_PATH_COUNT,
               "the device paths: staged + 8 direct + 4 pack + 2 unpack "
               "+ fold, last in the list");
_Static_assert(sizeof(tcomm_paths_logged_t) * 8 >=
                   (size_t)TCOMM_COLL_KINDS * TCOMM_PATH_COUNT,
               "a bit for every (collective, path)");

const char *tcomm_path_word(tcomm_path_t path)
{
    static const char *const words[] = {
#define TCOMM_PATH_WORD(id, word) word,
        TCOMM_PATHS(TCOMM_PATH_WORD)
#undef TCOMM_PATH_WORD
    };
    return (unsigned)path < TCOMM_PATH_COUNT ? words[path] : "unknown";
}

/* The words earlier releases printed for paths since renamed to spell
 * the collective as the contract does; TCOMM_TUNE still takes them. */
tcomm_path_t tcomm_path_renamed(const char *word, size_t len)
{
    static const struct {
        const char *word;
        tcomm_path_t path;
    } renamed[] = {
        {"node_allreduce", TCOMM_PATH_NODE_ALL_REDUCE},
        {"node_allgather", TCOMM_PATH_NODE_ALL_GATHER},
        {"shm_bcast", TCOMM_PATH_NODE_BROADCAST},
        {"mpi_alltoall_pull", TCOMM_PATH_NODE_ALL_TO_ALL},
        {"mpi_alltoall_v_pull", TCOMM_PATH_NODE_ALL_TO_ALL_V},
        {"mpi_alltoall_rows", TCOMM_PATH_ALL_TO_ALL_ROWS},
        {"hier_allreduce", TCOMM_PATH_HIER_ALL_REDUCE},
        {"hier_allreduce_leaders", TCOMM_PATH_HIER_ALL_REDUCE_LEADERS},
        {"hier_allgather", TCOMM_PATH_HIER_ALL_GATHER},
        {"hier_bcast", TCOMM_PATH_HIER_BROADCAST},
    };
    for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
        if (strlen(renamed[i].word) == len &&
            !strncmp(renamed[i].word, word, len))
            return renamed[i].path;
    return TCOMM_PATH_COUNT;
}

/* The INFO line of (coll, path), the first time comm logs it. */
static void note_once(tcomm_comm_t *comm, tcomm_coll_kind_t coll,
                      tcomm_path_t path, const char *fmt, va_list ap)
{
    if (!comm || tcomm_log_level() < TCOMM_LOG_INFO ||
        (unsigned)coll >= TCOMM_COLL_KINDS)
        return;
    size_t bit = (size_t)coll * TCOMM_PATH_COUNT + (size_t)path;
    uint64_t *w = &comm->paths_logged.bits[bit / 64];
    uint64_t mask = (uint64_t)1 << (bit % 64);
    /* the caller and its communicator's progress thread may both log */
    if (__atomic_fetch_or(w, mask, __ATOMIC_RELAXED) & mask)
        return;
    char what[768];
    vsnprintf(what, sizeof what, fmt, ap);
    tcomm_log_print(TCOMM_LOG_INFO, comm->rank, "%s [path=%s]", what,
                    tcomm_path_word(path));
}

void tcomm_note_path(tcomm_comm_t *comm, tcomm_coll_kind_t coll,
                     tcomm_path_t path, const char *fmt, ...)
{
    TCOMM_TRACE_PATH(tcomm_path_word(path));
    va_list ap;
    va_start(ap, fmt);
    note_once(comm, coll, path, fmt, ap);
    va_end(ap);
}

void tcomm_note_step(tcomm_comm_t *comm, tcomm_coll_kind_t coll,
                     tcomm_path_t path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_once(comm, coll, path, fmt, ap);
    va_end(ap);
}
