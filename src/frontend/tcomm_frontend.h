/* SPDX-License-Identifier: BSD-3-Clause */
/* The communicator front end: the collectives as one table of
 * descriptors (src/frontend/coll_table.c), and one description of a call
 * that validation, cross-rank agreement, allocation and dispatch share.
 * A new collective is a kind, a row, its public functions and one op per
 * backend. */
#ifndef TCOMM_FRONTEND_H
#define TCOMM_FRONTEND_H

#include "tcomm_internal.h"

/* tcomm_coll_kind_t: src/core/tcomm_paths.h, which the backends share. */

/* The arguments a collective takes besides the communicator. */
enum {
    TCOMM_ARG_TENSOR = 1 << 0, /* an input tensor and an output */
    TCOMM_ARG_OP = 1 << 1,     /* a reduction op (AVG: floating only) */
    TCOMM_ARG_DIM = 1 << 2,    /* a dim of the input */
    TCOMM_ARG_ROOT = 1 << 3,   /* a rank */
    TCOMM_ARG_CONCAT = 1 << 4, /* all_to_all: dim is split_dim, and a
                                  concat_dim */
    TCOMM_ARG_SIZES = 1 << 5   /* an array of world-size sizes along dim
                                  (send_sizes, sizes), adding up to it */
};

/* How the output's shape follows from the input's. */
typedef enum {
    TCOMM_OUT_NONE,   /* no output (barrier) */
    TCOMM_OUT_SAME,   /* the input's shape */
    TCOMM_OUT_SPLIT,  /* [dim] / world size, which must divide it */
    TCOMM_OUT_CONCAT, /* [dim]: the sum of the ranks' sizes, exchanged */
    TCOMM_OUT_ALL_TO_ALL,   /* [dim] / world size, [concat_dim] * it */
    TCOMM_OUT_ALL_TO_ALL_V, /* [dim]: send_sizes[rank] (dim != concat_dim),
                               [concat_dim]: the sum of what arrives,
                               exchanged */
    TCOMM_OUT_SPLIT_V,      /* [dim]: sizes[rank] */
    TCOMM_OUT_ROOT          /* the input's shape on root; none elsewhere
                               (reduce: out may be NULL there) */
} tcomm_out_rule_t;

/* Whether rank has no output in the call (reduce off its root). */
#define TCOMM_NO_OUTPUT_HERE(c, rank)                                       \
    ((c)->desc->out == TCOMM_OUT_ROOT && (rank) != (c)->root)

/* Rules whose output size along a dim is known only once the ranks have
 * exchanged their sizes (after the agreement). */
static inline int tcomm_out_exchanged(tcomm_out_rule_t rule)
{
    return rule == TCOMM_OUT_CONCAT || rule == TCOMM_OUT_ALL_TO_ALL_V;
}

typedef struct tcomm_call tcomm_call_t;

/* One collective. What the ranks agree on follows from it: the kind and
 * sequence number always; with a tensor, its dtype and shape (but for a
 * CONCAT dim); each argument it takes; deterministic mode where
 * `deterministic` (the algorithms differ). At world size 1 the front end
 * answers alone: the input itself, or a copy into an _into output (every
 * rule gives the input's shape there). */
typedef struct tcomm_coll_desc {
    const char *name;         /* "all_reduce", in messages */
    unsigned args;            /* TCOMM_ARG_* */
    tcomm_out_rule_t out;
    int deterministic;        /* TCOMM_DETERMINISTIC changes the result */
    size_t slot;              /* offsetof its op in tcomm_backend_ops_t */
    /* calls the backend's own op for it (present: checked before), where
     * the backend has no `collective` slot */
    tcomm_status_t (*dispatch)(const tcomm_comm_t *comm,
                               const tcomm_coll_args_t *args);
} tcomm_coll_desc_t;

/* The row of kind (NULL for a kind that is not one). */
const tcomm_coll_desc_t *tcomm_coll_desc(int kind);

struct tcomm_call {
    tcomm_coll_kind_t kind;
    const tcomm_coll_desc_t *desc; /* tcomm_coll_desc(kind) */
    const char *fn;           /* public function name, for messages */
    const tcomm_tensor_t *in; /* NULL for barrier */
    tcomm_tensor_t *into;     /* the _into forms' output, else NULL */
    tcomm_tensor_t **out;     /* the allocating forms' output, else NULL */
    int op;
    int dim;                 /* all_to_all: split_dim */
    int root;
    int concat_dim;          /* all_to_all */
    const size_t *vsizes;    /* all_to_all_v's send_sizes,
                                reduce_scatter_v's sizes */
};

/* Name of a collective kind ("all_reduce", ...). */
const char *tcomm_coll_name(tcomm_coll_kind_t kind);

/* Size along call->dim of call->in (1 for a 0-d tensor). */
size_t tcomm_call_dim_size(const tcomm_call_t *call);

/* Local argument rules of the call on rank `rank` of world_size ranks.
 * An _into output's size along the gather dim is checked later, against
 * the sizes of every rank. */
tcomm_status_t tcomm_validate(const tcomm_call_t *call, int rank,
                              int world_size);

/* The call's output shape on rank `rank`; the exchanged dim (all_gather's
 * dim, all_to_all_v's concat_dim) is the sum of sizes[0..world_size), or
 * left as the input's (all_gather of a 0-d input: 0) when sizes is NULL. */
void tcomm_call_out_shape(const tcomm_call_t *c, int rank, int world_size,
                          const size_t *sizes, int *ndim, size_t *shape);

/* Check that out's size along dim is total (all_gather_into). */
tcomm_status_t tcomm_validate_gather_out(const tcomm_call_t *call,
                                         size_t out_size, size_t total);

/* all_gather_into whose out is wrong in another dim: its sentence (this
 * rank's or a peer's, in @p text) names the result's size along dim as a
 * placeholder; write in @p total, the ranks' sizes summed. */
void tcomm_validate_fill_total(char *text, size_t len, size_t total);

/* all_gather: the input's size along dim, or -1 (another collective, no
 * input, dim out of range). */
int64_t tcomm_call_gather_size(const tcomm_call_t *call);

/* Whether calls on comm start with the agreement round. Checked mode
 * agrees on every argument; with TCOMM_CHECK=0 and a timeout the round
 * still agrees on which call every rank is in (kind, sequence number),
 * on a local error, and on all_gather's sizes, so that a rank that
 * rejected a call or moved on to another one cannot complete its peers'
 * bounded exchange and leave them waiting in the data phase. */
static inline int tcomm_agrees(const tcomm_comm_t *comm)
{
    return (comm->check || comm->timed) &&
           TCOMM_HAS_OP(comm, allgather_bytes);
}

/* A call completed in the agreement's exchange (src/frontend/eager.c),
 * where the backend carried every rank's input: blocks[r] holds rank r's
 * lens[r] bytes until the next backend op. */
#define TCOMM_EAGER_BYTES 4096 /* what a rank offers, at most */
typedef struct {
    const void *blocks[TCOMM_STACK_RANKS];
    size_t lens[TCOMM_STACK_RANKS];
    int carried; /* 1: complete the call with tcomm_eager_run */
    /* all_to_all_v's offer: its sizes (tcomm_eager_v_header), then its
     * input */
    int64_t offer[TCOMM_EAGER_BYTES / sizeof(int64_t)];
} tcomm_eager_t;

/* Whether this rank offers its input to the round (*data, *bytes: what):
 * checked mode, a call without local error, an input in host memory of
 * less than TCOMM_EAGER_BYTES (all_to_all, reduce_scatter: at most;
 * all_to_all_v: with its sizes, and its sizes alone where the input is
 * not offered, so that the round still carries the table). */
int tcomm_eager_offer(const tcomm_comm_t *comm, const tcomm_call_t *c,
                      tcomm_status_t local, tcomm_eager_t *e,
                      const void **data, size_t *bytes);
/* all_to_all_v's sizes, as every rank sends them: its size along
 * concat_dim, then send_sizes (world size + 1 values). */
void tcomm_eager_v_header(const tcomm_comm_t *comm, const tcomm_call_t *c,
                          int64_t *row);
/* all_to_all_v: the table of every rank's header from the blocks
 * carried; 0 (every rank alike) where a block does not hold what its
 * header says, and then the table must be exchanged. */
int tcomm_eager_v_table(const tcomm_comm_t *comm, const tcomm_call_t *c,
                        const tcomm_eager_t *e, int64_t *all);
/* all_to_all_v: the table of every rank's header alone (some input was
 * not carried: dispatch the call); 0 (every rank alike) where a block is
 * too short for a header, and then the table must be exchanged. */
int tcomm_eager_v_sizes(const tcomm_comm_t *comm, const tcomm_call_t *c,
                        const tcomm_eager_t *e, int64_t *all);
/* The agreed call's output from the inputs carried (sizes: all_gather's,
 * or all_to_all_v's recv sizes, as tcomm_agree gave them). */
tcomm_status_t tcomm_eager_run(tcomm_comm_t *comm,
                               const tcomm_call_t *c,
                               const tcomm_eager_t *e, const size_t *sizes,
                               tcomm_tensor_t *out);

/* all_to_all_v's table of every rank's sizes, from the agreement's
 * exchange (tcomm_coll_args_t::size_table, ::extent_max); the caller of
 * tcomm_agree frees table (NULL for other collectives). */
typedef struct {
    int64_t *table;
    size_t extent_max;
} tcomm_v_table_t;

/* Cross-rank agreement and, for the exchanged rules, the exchange of the
 * sizes (all_gather: sizes[r] is rank r's size along dim; all_to_all_v:
 * the size along concat_dim of what rank r sends here). @p local is this rank's validation
 * status (its sentence in tcomm_last_error()). Returns TCOMM_SUCCESS when
 * every rank may move data; otherwise every rank returns an error: its
 * own local error, or TCOMM_ERR_MISMATCH naming the field and the ranks.
 * @p eager (NULL: none) receives the inputs where the backend carried
 * them in the round; eager->carried is 0 on every rank otherwise.
 * @p v receives all_to_all_v's table. */
tcomm_status_t tcomm_agree(tcomm_comm_t *comm, const tcomm_call_t *call,
                           tcomm_status_t local, size_t *sizes,
                           tcomm_eager_t *eager, tcomm_v_table_t *v);

#endif /* TCOMM_FRONTEND_H */
