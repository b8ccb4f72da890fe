/* SPDX-License-Identifier: BSD-3-Clause */
/* Local argument rules of every collective, by the arguments and output
 * rule of its row (coll_table.c): each failure names the call, the
 * problem and the fix. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tcomm_frontend.h"

size_t tcomm_call_dim_size(const tcomm_call_t *call)
{
    return call->in->ndim == 0 ? 1 : call->in->shape[call->dim];
}

static tcomm_status_t check_op(const tcomm_call_t *c)
{
    if (!tcomm_op_valid(c->op))
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: op %d is not a tcomm_op_t (use TCOMM_SUM, "
                           "TCOMM_PROD, TCOMM_MIN, TCOMM_MAX or TCOMM_AVG)",
                           c->fn, c->op);
    if (c->op == TCOMM_AVG && !tcomm_dtype_is_float(c->in->dtype))
        return tcomm_error(TCOMM_ERR_DTYPE,
                           "%s: TCOMM_AVG needs a floating dtype but the "
                           "tensor is %s (use TCOMM_SUM and divide, or a "
                           "floating dtype)",
                           c->fn, tcomm_dtype_name(c->in->dtype));
    return TCOMM_SUCCESS;
}

static tcomm_status_t dim_in_range(const tcomm_call_t *c, const char *name,
                                   int dim)
{
    int nd = c->in->ndim;
    int hi = nd > 0 ? nd - 1 : 0; /* a 0-d tensor acts as shape [1] */
    if (dim < 0 || dim > hi)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: %s %d is out of range for a %d-dimensional "
                           "tensor (use 0..%d)",
                           c->fn, name, dim, nd, hi);
    return TCOMM_SUCCESS;
}

static tcomm_status_t check_dim(const tcomm_call_t *c, int world_size)
{
    int all_to_all = (c->desc->args & TCOMM_ARG_CONCAT) != 0;
    const char *name = all_to_all ? "split_dim" : "dim";
    TCOMM_TRY(dim_in_range(c, name, c->dim));
    if (all_to_all)
        TCOMM_TRY(dim_in_range(c, "concat_dim", c->concat_dim));
    if ((all_to_all || (c->desc->args & TCOMM_ARG_SIZES)) && c->in->ndim == 0)
        return tcomm_error(TCOMM_ERR_SHAPE,
                           "%s: the input is 0-dimensional but %s splits it "
                           "along a dim (make it a tensor of shape [1])",
                           c->fn, c->desc->name);
    size_t n = tcomm_call_dim_size(c);
    tcomm_out_rule_t rule = c->desc->out;
    if ((rule == TCOMM_OUT_SPLIT || rule == TCOMM_OUT_ALL_TO_ALL) &&
        n % (size_t)world_size)
        return tcomm_error(TCOMM_ERR_SHAPE,
                           "%s: size %zu along %s %d is not divisible by "
                           "the world size %d (pad it to a multiple of %d%s)",
                           c->fn, n, name, c->dim, world_size, world_size,
                           rule == TCOMM_OUT_SPLIT
                               ? ", or use tcomm_reduce_scatter_v"
                               : ", or use tcomm_all_to_all_v");
    return TCOMM_SUCCESS;
}

/* send_sizes / sizes: world_size entries adding up to the size along
 * dim (zeros allowed). */
static tcomm_status_t check_sizes(const tcomm_call_t *c, int world_size)
{
    const char *name = c->desc->args & TCOMM_ARG_CONCAT ? "send_sizes"
                                                         : "sizes";
    const char *dim = c->desc->args & TCOMM_ARG_CONCAT ? "split_dim" : "dim";
    if (!c->vsizes)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: %s is NULL (pass %d sizes along %s, one per "
                           "rank)",
                           c->fn, name, world_size, dim);
    size_t sum = 0, n = tcomm_call_dim_size(c);
    int over = 0; /* the sum overflows */
    for (int r = 0; r < world_size; r++) {
        over |= c->vsizes[r] > SIZE_MAX - sum;
        sum += c->vsizes[r];
    }
    if (over || sum != n) {
        char got[32];
        snprintf(got, sizeof got, over ? "more than SIZE_MAX" : "%zu", sum);
        return tcomm_error(TCOMM_ERR_SHAPE,
                           "%s: %s add up to %s but the size along %s %d "
                           "is %zu (make the %d entries add up to %zu)",
                           c->fn, name, got, dim, c->dim, n, world_size, n);
    }
    return TCOMM_SUCCESS;
}

/* The dim whose output size is known only after the exchange, or -1. */
static int exchanged_dim(const tcomm_call_t *c)
{
    if (c->desc->out == TCOMM_OUT_CONCAT)
        return c->dim;
    if (c->desc->out == TCOMM_OUT_ALL_TO_ALL_V)
        return c->concat_dim;
    return -1;
}

void tcomm_call_out_shape(const tcomm_call_t *c, int rank, int world_size,
                          const size_t *sizes, int *ndim, size_t *shape)
{
    const tcomm_tensor_t *in = c->in;
    size_t n = (size_t)world_size;
    *ndim = in->ndim;
    memcpy(shape, in->shape, sizeof in->shape);
    switch (c->desc->out) {
    case TCOMM_OUT_SPLIT:
        if (in->ndim > 0)
            shape[c->dim] /= n;
        break;
    case TCOMM_OUT_CONCAT:
        if (in->ndim == 0) {
            *ndim = 1;
            shape[0] = 0;
        }
        break;
    case TCOMM_OUT_ALL_TO_ALL:
        shape[c->dim] /= n;
        shape[c->concat_dim] *= n;
        break;
    case TCOMM_OUT_ALL_TO_ALL_V:
        if (c->dim != c->concat_dim)
            shape[c->dim] = c->vsizes[rank];
        break;
    case TCOMM_OUT_SPLIT_V:
        shape[c->dim] = c->vsizes[rank];
        break;
    default:
        break;
    }    int dim = exchanged_dim(c);
    if (sizes && dim >= 0) {
        size_t total = 0;
        for (int r = 0; r < world_size; r++)
            total += sizes[r];
        shape[dim] = total;
    }
}

/* all_gather_into's out is wrong in another dim than the gather dim: the
 * gather dim's size is a placeholder until the agreement has summed the
 * ranks' sizes; tcomm_validate_fill_total then writes the sum in. */
static const char RESULT_SHAPE[] = "but the result has shape [";
static const char PLACEHOLDER[] = " (*: the sum of the ranks' sizes along "
                                  "dim, unknown here)";

static tcomm_status_t gather_shape_error(const tcomm_call_t *c,
                                         const char *got, int nd,
                                         const size_t *want, int free_dim)
{
    char exp[256];
    size_t used = 0;
    for (int i = 0; i < nd && used < sizeof exp; i++)
        used += (size_t)(i == free_dim
                             ? snprintf(exp + used, sizeof exp - used,
                                        "%s*", i ? ", " : "")
                             : snprintf(exp + used, sizeof exp - used,
                                        "%s%zu", i ? ", " : "", want[i]));
    return tcomm_error(TCOMM_ERR_SHAPE,
                       "%s: out has shape %s %s%s]%s (create out with that "
                       "shape)",
                       c->fn, got, RESULT_SHAPE, exp, PLACEHOLDER);
}

void tcomm_validate_fill_total(char *text, size_t len, size_t total)
{
    char *shape = strstr(text, RESULT_SHAPE);
    char *note = shape ? strstr(shape, PLACEHOLDER) : NULL;
    char *star = shape ? strchr(shape, '*') : NULL;
    if (!note || !star || star > note)
        return;
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", note + sizeof PLACEHOLDER - 1);
    char mid[512];
    snprintf(mid, sizeof mid, "%.*s", (int)(note - star - 1), star + 1);
    size_t at = (size_t)(star - text);
    snprintf(star, len - at, "%zu%s%s", total, mid, rest);
}

int64_t tcomm_call_gather_size(const tcomm_call_t *c)
{
    if (c->desc->out != TCOMM_OUT_CONCAT || !c->in || c->dim < 0 ||
        c->dim > (c->in->ndim > 0 ? c->in->ndim - 1 : 0))
        return -1;
    return (int64_t)tcomm_call_dim_size(c);
}

static tcomm_status_t check_into(const tcomm_call_t *c, int rank,
                                 int world_size)
{
    const tcomm_tensor_t *in = c->in, *out = c->into;
    if (out->graph != in->graph)
        return tcomm_error(TCOMM_ERR_GRAPH_MISMATCH,
                           "%s: out is on graph %llu but the input on graph "
                           "%llu (create out on the input's graph)",
                           c->fn, (unsigned long long)out->graph->id,
                           (unsigned long long)in->graph->id);
    if (out->dtype != in->dtype)
        return tcomm_error(TCOMM_ERR_DTYPE,
                           "%s: out is %s but the input is %s (use one "
                           "dtype)",
                           c->fn, tcomm_dtype_name(out->dtype),
                           tcomm_dtype_name(in->dtype));
    int nd;
    size_t want[TCOMM_MAX_DIMS];
    tcomm_call_out_shape(c, rank, world_size, NULL, &nd, want);
    int gather_dim = exchanged_dim(c);
    int ok = out->ndim == nd;
    for (int i = 0; ok && i < nd; i++)
        ok = i == gather_dim || out->shape[i] == want[i];
    if (!ok) {
        char got[256], exp[256];
        tcomm_shape_text(out->ndim, out->shape, got, sizeof got);
        if (gather_dim >= 0 && world_size == 1) /* the total is known */
            want[gather_dim] = tcomm_call_dim_size(c);
        else if (gather_dim >= 0) /* known after the agreement */
            return gather_shape_error(c, got, nd, want, gather_dim);
        tcomm_shape_text(nd, want, exp, sizeof exp);
        return tcomm_error(TCOMM_ERR_SHAPE,
                           "%s: out has shape %s but the result has shape "
                           "%s (create out with that shape)",
                           c->fn, got, exp);
    }
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_validate_gather_out(const tcomm_call_t *call,
                                         size_t out_size, size_t total)
{
    if (out_size == total)
        return TCOMM_SUCCESS;
    return tcomm_error(TCOMM_ERR_SHAPE,
                       "%s: out has size %zu along dim %d but the ranks' "
                       "sizes add up to %zu (create out with %zu there)",
                       call->fn, out_size, call->dim, total, total);
}

tcomm_status_t tcomm_validate(const tcomm_call_t *c, int rank, int world_size)
{
    unsigned args = c->desc->args;
    if (!(args & TCOMM_ARG_TENSOR))
        return TCOMM_SUCCESS;
    if (!c->in)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: the input tensor is NULL (pass a tensor)",
                           c->fn);
    int no_output = TCOMM_NO_OUTPUT_HERE(c, rank);
    if (!c->into && !c->out && c->desc->out == TCOMM_OUT_ROOT && !no_output)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: out is NULL on the root, rank %d (pass a "
                           "tensor of the input's shape there; other ranks "
                           "may pass NULL)",
                           c->fn, rank);
    if (!c->into && !c->out && !no_output)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: the output is NULL (pass %s)", c->fn,
                           strstr(c->fn, "_into")
                               ? "a tensor of the result's shape"
                               : "the address of a tcomm_tensor_t pointer");
    if (args & TCOMM_ARG_OP)
        TCOMM_TRY(check_op(c));
    if (args & TCOMM_ARG_DIM)
        TCOMM_TRY(check_dim(c, world_size));
    if (args & TCOMM_ARG_SIZES)
        TCOMM_TRY(check_sizes(c, world_size));
    if ((args & TCOMM_ARG_ROOT) && (c->root < 0 || c->root >= world_size))
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "%s: root %d is out of range for world size %d "
                           "(use 0..%d)",
                           c->fn, c->root, world_size, world_size - 1);
    if (c->into && !no_output) /* reduce's out elsewhere: not read */
        TCOMM_TRY(check_into(c, rank, world_size));
    return TCOMM_SUCCESS;
}
