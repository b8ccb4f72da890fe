/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives as rows: the arguments each takes, its output shape,
 * what the ranks agree on (derived from both, see tcomm_frontend.h) and
 * the backend op it reaches. Validation, agreement, allocation and
 * dispatch read this table, not the kind. */
#include <stddef.h>

#include "tcomm_frontend.h"

/* The call into each collective's own slot, for a backend without the
 * `collective` slot, in the dispatch's one shape. */
#define DISPATCH(name)                                                      \
    static tcomm_status_t name(const tcomm_comm_t *comm,                    \
                               const tcomm_coll_args_t *a)

DISPATCH(do_all_reduce)
{
    return comm->ops->all_reduce(comm->state, a->in, a->op, a->out);
}

DISPATCH(do_all_gather)
{
    return comm->ops->all_gather(comm->state, a->in, a->dim, a->recv_sizes,
                                 a->out);
}

DISPATCH(do_reduce_scatter)
{
    return comm->ops->reduce_scatter(comm->state, a->in, a->op, a->dim,
                                     a->out);
}

DISPATCH(do_broadcast)
{
    return comm->ops->broadcast(comm->state, a->in, a->root, a->out);
}

DISPATCH(do_barrier)
{
    (void)a;
    return comm->ops->barrier(comm->state);
}

DISPATCH(do_all_to_all)
{
    return comm->ops->all_to_all(comm->state, a->in, a->dim, a->concat_dim,
                                 a->out);
}

DISPATCH(do_all_to_all_v)
{
    return comm->ops->all_to_all_v(comm->state, a->in, a->dim,
                                   a->send_sizes, a->concat_dim,
                                   a->recv_sizes, a->out);
}

DISPATCH(do_reduce_scatter_v)
{
    return comm->ops->reduce_scatter_v(comm->state, a->in, a->op, a->dim,
                                       a->send_sizes, a->out);
}

/* reduce, on a backend without the collective slot: all_reduce, into a
 * scratch output off the root (collectives.c allocates it). */
DISPATCH(do_reduce)
{
    return comm->ops->all_reduce(comm->state, a->in, a->op, a->out);
}

#define SLOT(op) offsetof(tcomm_backend_ops_t, op)

static const tcomm_coll_desc_t colls[] = {
    [TCOMM_COLL_ALL_REDUCE] = {"all_reduce", TCOMM_ARG_TENSOR | TCOMM_ARG_OP,
                               TCOMM_OUT_SAME, 1, SLOT(all_reduce),
                               do_all_reduce},
    [TCOMM_COLL_ALL_GATHER] = {"all_gather", TCOMM_ARG_TENSOR | TCOMM_ARG_DIM,
                               TCOMM_OUT_CONCAT, 0, SLOT(all_gather),
                               do_all_gather},
    [TCOMM_COLL_REDUCE_SCATTER] = {"reduce_scatter",
                                   TCOMM_ARG_TENSOR | TCOMM_ARG_OP |
                                       TCOMM_ARG_DIM,
                                   TCOMM_OUT_SPLIT, 1, SLOT(reduce_scatter),
                                   do_reduce_scatter},
    [TCOMM_COLL_BROADCAST] = {"broadcast", TCOMM_ARG_TENSOR | TCOMM_ARG_ROOT,
                              TCOMM_OUT_SAME, 0, SLOT(broadcast),
                              do_broadcast},
    [TCOMM_COLL_BARRIER] = {"barrier", 0, TCOMM_OUT_NONE, 0, SLOT(barrier),
                            do_barrier},
    [TCOMM_COLL_ALL_TO_ALL] = {"all_to_all",
                               TCOMM_ARG_TENSOR | TCOMM_ARG_DIM |
                                   TCOMM_ARG_CONCAT,
                               TCOMM_OUT_ALL_TO_ALL, 0, SLOT(all_to_all),
                               do_all_to_all},
    [TCOMM_COLL_ALL_TO_ALL_V] = {"all_to_all_v",
                                 TCOMM_ARG_TENSOR | TCOMM_ARG_DIM |
                                     TCOMM_ARG_CONCAT | TCOMM_ARG_SIZES,
                                 TCOMM_OUT_ALL_TO_ALL_V, 0,
                                 SLOT(all_to_all_v), do_all_to_all_v},
    [TCOMM_COLL_REDUCE_SCATTER_V] = {"reduce_scatter_v",
                                     TCOMM_ARG_TENSOR | TCOMM_ARG_OP |
                                         TCOMM_ARG_DIM | TCOMM_ARG_SIZES,
                                     TCOMM_OUT_SPLIT_V, 1,
                                     SLOT(reduce_scatter_v),
                                     do_reduce_scatter_v},
    [TCOMM_COLL_REDUCE] = {"reduce",
                           TCOMM_ARG_TENSOR | TCOMM_ARG_OP | TCOMM_ARG_ROOT,
                           TCOMM_OUT_ROOT, 1, SLOT(all_reduce), do_reduce},
};

const tcomm_coll_desc_t *tcomm_coll_desc(int kind)
{
    if (kind <= 0 || (size_t)kind >= sizeof colls / sizeof colls[0])
        return NULL;
    return &colls[kind];
}

const char *tcomm_coll_name(tcomm_coll_kind_t kind)
{
    const tcomm_coll_desc_t *d = tcomm_coll_desc(kind);
    return d ? d->name : "unknown collective";
}
