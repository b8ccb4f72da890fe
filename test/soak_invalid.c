/* SPDX-License-Identifier: BSD-3-Clause */
/* The soak's invalid calls, of SOAK_INVALID_KINDS kinds: bad dim, root
 * or op, AVG on integers, an indivisible reduce_scatter, ranks that
 * disagree on shape, dtype, collective or root, a NULL input or a wrong
 * output on one rank. */
#include <string.h>

#include "soak.h"

/* An invalid call: every rank must return the status it is owed (the
 * rank that erred its own error, the others TCOMM_ERR_MISMATCH, or the
 * same error everywhere), and *out must stay untouched. */
#define SENTINEL ((tcomm_tensor_t *)(uintptr_t)0x5a5a5a50)

void invalid_call(int what)
{
    int bad = (int)below((size_t)nranks); /* the rank that errs */
    int me_bad = rank == bad;
    tcomm_dtype_t d = (tcomm_dtype_t)below(9);
    size_t s[TCOMM_MAX_DIMS] = {2, 3, 4, 2}, os[TCOMM_MAX_DIMS];
    int nd = 1 + (int)below(3);
    s[0] = (size_t)nranks * (1 + below(3));
    tcomm_tensor_t *in = NULL, *into = NULL, *out = SENTINEL;
    tcomm_status_t st, want, want_bad;
    want = want_bad = TCOMM_ERR_MISMATCH;
    memcpy(os, s, sizeof os);
    switch (what) {
    case 0: { /* dim out of range, on every rank */
        int dim = below(2) ? nd + (int)below(3) : -1 - (int)below(3);
        in = make(d, -1, nd, s);
        st = below(2) ? tcomm_all_gather(comm, in, dim, &out)
                      : tcomm_reduce_scatter(comm, in, TCOMM_SUM, dim,
                                             &out);
        want = want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    }
    case 1: { /* root out of range, on every rank */
        int root = below(2) ? nranks + (int)below(3) : -1;
        in = make(d, -1, nd, s);
        st = tcomm_broadcast(comm, in, root, &out);
        want = want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    }
    case 2: /* op out of range */
        in = make(d, -1, nd, s);
        st = tcomm_all_reduce(comm, in,
                              (tcomm_op_t)(below(2) ? 5 + (int)below(99)
                                                    : -1),
                              &out);
        want = want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    case 3: /* AVG on an integer dtype */
        d = (tcomm_dtype_t)(below(2) ? TCOMM_I32 : TCOMM_U8);
        in = make(d, -1, nd, s);
        st = tcomm_all_reduce(comm, in, TCOMM_AVG, &out);
        want = want_bad = TCOMM_ERR_DTYPE;
        break;
    case 4: /* reduce_scatter of a size the world size does not divide */
        s[0] = (size_t)nranks * below(3) + 1;
        in = make(d, -1, nd, s);
        st = tcomm_reduce_scatter(comm, in, TCOMM_SUM, 0, &out);
        want = want_bad = nranks > 1 ? TCOMM_ERR_SHAPE : TCOMM_SUCCESS;
        break;
    case 5: /* one rank's shape differs */
        if (me_bad)
            s[nd - 1] += 1;
        in = make(d, TCOMM_SUM, nd, s);
        st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
        break;
    case 6: /* one rank's dtype differs */
        if (me_bad)
            d = (tcomm_dtype_t)((d + 1) % 9);
        in = make(d, TCOMM_SUM, nd, s);
        st = tcomm_all_reduce(comm, in, TCOMM_SUM, &out);
        break;
    case 7: /* a NULL input on one rank */
        in = make(d, TCOMM_SUM, nd, s);
        st = tcomm_all_reduce(comm, me_bad ? NULL : in, TCOMM_SUM, &out);
        want_bad = TCOMM_ERR_INVALID_ARG;
        break;
    case 8: /* a wrong _into output on one rank */
        in = make(d, TCOMM_SUM, nd, s);
        if (me_bad)
            os[0] += 1;
        into = make_empty(d, nd, os);
        st = tcomm_all_reduce_into(comm, in, TCOMM_SUM, into);
        want_bad = TCOMM_ERR_SHAPE;
        break;
    case 9: /* one rank calls another collective */
        in = make(d, -1, nd, s);
        st = me_bad ? tcomm_broadcast(comm, in, 0, &out)
                    : tcomm_all_reduce(comm, in, TCOMM_MAX, &out);
        break;
    case 10: { /* one rank names another root */
        int root = 0;
        if (me_bad && nranks > 1)
            root = 1;
        in = make(d, -1, nd, s);
        st = tcomm_broadcast(comm, in, root, &out);
        if (nranks == 1)
            want = want_bad = TCOMM_SUCCESS;
        break;
    }
    case 11: /* all_gather_into, one rank's out has the wrong size */
        in = make(d, -1, nd, s);
        os[0] = s[0] * (size_t)nranks + (me_bad ? 1 : 0);
        into = make_empty(d, nd, os);
        st = tcomm_all_gather_into(comm, in, 0, into);
        want_bad = TCOMM_ERR_SHAPE;
        if (nranks == 1)
            want = TCOMM_SUCCESS;
        break;
    default: { /* one rank's output on another graph */
        in = make(d, TCOMM_SUM, nd, s);
        tcomm_tensor_t *t = NULL;
        tcomm_tensor_empty(me_bad ? graph2 : graph, d, nd, s, &t);
        into = t;
        st = tcomm_all_reduce_into(comm, in, TCOMM_SUM, into);
        want_bad = TCOMM_ERR_GRAPH_MISMATCH;
        break;
    }
    }
    fatal_check(st);
    tcomm_status_t w = me_bad ? want_bad : want;
    if (nranks == 1 && w == TCOMM_ERR_MISMATCH)
        w = TCOMM_SUCCESS; /* nobody to disagree with */
    if (st != w) {
        FAIL("invalid call %d (bad rank %d): got %s, want %s: %s", what,
             bad, tcomm_status_string(st), tcomm_status_string(w),
             tcomm_last_error());
    } else if (st != TCOMM_SUCCESS) {
        n_expected_err++;
        if (out != SENTINEL)
            FAIL("invalid call %d: a failed call set *out", what);
        if (!*tcomm_last_error())
            FAIL("invalid call %d: no error text", what);
    } else {
        n_ok++;
    }
    if (out != SENTINEL)
        tcomm_tensor_release(out);
    tcomm_tensor_release(into);
    tcomm_tensor_release(in);
}
