/* SPDX-License-Identifier: BSD-3-Clause */
/* The test hooks of tcomm_test_hooks.h. Relaxed atomics: a hook is set
 * by a test between calls, and a reader on another thread only needs a
 * value that was stored, not an ordering with other memory. */
#include <stdatomic.h>

#include "tcomm_test_hooks.h"

static _Atomic long hooks[TCOMM_HOOK_COUNT];

void tcomm_test_set_hook(tcomm_test_hook_t hook, long value)
{
    if ((unsigned)hook < TCOMM_HOOK_COUNT)
        atomic_store_explicit(&hooks[hook], value, memory_order_relaxed);
}

long tcomm_test_hook(tcomm_test_hook_t hook)
{
    return (unsigned)hook < TCOMM_HOOK_COUNT
               ? atomic_load_explicit(&hooks[hook], memory_order_relaxed)
               : 0;
}
