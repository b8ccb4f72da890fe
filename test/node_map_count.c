/* SPDX-License-Identifier: BSD-3-Clause */
/* The count of single copies served through a peer's mapped arena, kept
 * in the test program, not in the library: linked with
 * -Wl,--wrap=tcomm_node_mapped, every call the library's node code makes
 * to tcomm_node_mapped (src/mpi/node/node_map.c) comes here first. No
 * log line can say it: whether a copy is memcpy through a mapping or
 * cross-memory attach is decided per copy and per peer, below the path
 * the call's TRACE line names. */
#include <stdatomic.h>

#include "node_map_count.h"

char *__real_tcomm_node_mapped(pid_t pid, uint64_t remote, size_t len);
char *__wrap_tcomm_node_mapped(pid_t pid, uint64_t remote, size_t len);

static _Atomic uint64_t copies;

char *__wrap_tcomm_node_mapped(pid_t pid, uint64_t remote, size_t len)
{
    char *here = __real_tcomm_node_mapped(pid, remote, len);
    if (here)
        atomic_fetch_add_explicit(&copies, 1, memory_order_relaxed);
    return here;
}

uint64_t tcomm_node_mapped_copies(void)
{
    return atomic_load_explicit(&copies, memory_order_relaxed);
}
