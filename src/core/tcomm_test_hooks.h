/* SPDX-License-Identifier: BSD-3-Clause */
/* Test hooks: knobs that only the tests turn, to reach paths that real
 * inputs reach only at sizes a test cannot afford (the large-count
 * splitting) or on machines it does not have (no AVX2, a foreign PID
 * namespace, a failing single-copy read, a peer's arena that cannot be
 * mapped, a rank that cannot hand its input over in the agreement).
 * They live in atomics, set through tcomm_test_set_hook (tests link
 * libtcomm_internal.la; the entry point is not exported), and every
 * reader loads a hook once per call, never per element. Every hook is 0
 * by default: 0 means "off". */
#ifndef TCOMM_TEST_HOOKS_H
#define TCOMM_TEST_HOOKS_H

typedef enum {
    /* Largest count per MPI call (0: INT_MAX); read through
     * tcomm_mpi_count_limit(), which clamps it to 1..INT_MAX. */
    TCOMM_HOOK_COUNT_LIMIT,
    /* != 0: the host kernels take their scalar loops, not AVX2/F16C. */
    TCOMM_HOOK_NO_SIMD,
    /* != 0: this rank reports its single-copy reads as failing. */
    TCOMM_HOOK_PULL_FAIL,
    /* != 0: this rank claims this PID namespace id instead of its own. */
    TCOMM_HOOK_PID_NAMESPACE,
    /* != 0: this rank uses no peer's mapped tensor arena: its single
     * copies are cross-memory attach, as where pidfd_getfd is refused. */
    TCOMM_HOOK_NO_MAP,
    /* != 0: this rank offers no input to the agreement's round, as one
     * whose input is on a device (src/frontend/eager.c). */
    TCOMM_HOOK_NO_EAGER,
    /* != 0: unchecked mode's round with a timeout agrees on the call's
     * identity alone, as before issue 27, so that mismatched arguments
     * still reach MPI under the timeout layer (its failure paths). */
    TCOMM_HOOK_IDENTITY_ONLY,
    /* != 0 when a communicator is made: it gets no node-wide segment, as
     * one whose ranks span nodes, so its agreement's round is the
     * carrying MPI round (src/mpi/carry_round.c). */
    TCOMM_HOOK_NO_NODE_ROUND,
    /* != 0: that round keeps the most room for data after every call,
     * instead of the room the call before needed, so that a test of
     * calls of changing sizes sees every small one carried. */
    TCOMM_HOOK_CARRY_MOST,
    TCOMM_HOOK_COUNT
} tcomm_test_hook_t;

/* Sets hook to value (relaxed atomic store; out-of-range hooks ignored).
 * Tests only: the library never calls it. */
void tcomm_test_set_hook(tcomm_test_hook_t hook, long value);

/* The hook's value (relaxed atomic load); 0 for an unknown hook. */
long tcomm_test_hook(tcomm_test_hook_t hook);

#endif /* TCOMM_TEST_HOOKS_H */
