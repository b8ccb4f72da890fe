/* SPDX-License-Identifier: BSD-3-Clause */
/* The rank-order fold and AVG's finish, once for every backend and path,
 * over any memory space's element ops (copy_async, reduce, divide). The
 * order is fixed, left to right in rank order, which is what makes
 * deterministic mode bitwise reproducible wherever the fold runs. */
#include "tcomm_host_kernels.h"
#include "tcomm_internal.h"

/* Source j of a fold: from a list, or stride bytes apart from a base. */
typedef struct {
    const void *const *list;
    const char *base;
    size_t stride;
} sources_t;

static const void *source(const sources_t *s, int j)
{
    return s->list ? s->list[j] : s->base + (size_t)j * s->stride;
}

static tcomm_status_t fold(const tcomm_memspace_t *sp, void *ctx,
                           tcomm_dtype_t dtype, tcomm_op_t op, void *dst,
                           const sources_t *s, int nsrc, size_t n)
{
    if (n == 0 || nsrc < 1)
        return TCOMM_SUCCESS;
    if (dst != source(s, 0))
        TCOMM_TRY(sp->copy_async(ctx, dst, source(s, 0),
                                 n * tcomm_dtype_size(dtype)));
    for (int j = 1; j < nsrc; j++)
        TCOMM_TRY(sp->reduce(ctx, dtype, op, dst, source(s, j), n));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_space_fold(const tcomm_memspace_t *sp, void *ctx,
                                tcomm_dtype_t dtype, tcomm_op_t op,
                                void *dst, const void *const *src, int nsrc,
                                size_t n)
{
    sources_t s = {.list = src};
    return fold(sp, ctx, dtype, op, dst, &s, nsrc, n);
}

tcomm_status_t tcomm_space_fold_strided(const tcomm_memspace_t *sp,
                                        void *ctx, tcomm_dtype_t dtype,
                                        tcomm_op_t op, void *dst,
                                        const void *base, size_t stride,
                                        int nsrc, size_t n)
{
    sources_t s = {.base = base, .stride = stride};
    return fold(sp, ctx, dtype, op, dst, &s, nsrc, n);
}

tcomm_status_t tcomm_space_finish(const tcomm_memspace_t *sp, void *ctx,
                                  tcomm_dtype_t dtype, tcomm_op_t op,
                                  void *buf, size_t n, int nranks)
{
    if (op != TCOMM_AVG || n == 0)
        return TCOMM_SUCCESS;
    return sp->divide(ctx, dtype, buf, n, (double)nranks);
}

tcomm_status_t tcomm_host_fold_strided(tcomm_dtype_t dtype, tcomm_op_t op,
                                       void *dst, const void *base,
                                       size_t stride, int nsrc, size_t n)
{
    return tcomm_space_fold_strided(&tcomm_memspace_host, NULL, dtype, op,
                                    dst, base, stride, nsrc, n);
}

tcomm_status_t tcomm_host_finish(tcomm_dtype_t dtype, tcomm_op_t op,
                                 void *buf, size_t n, int nranks)
{
    return tcomm_space_finish(&tcomm_memspace_host, NULL, dtype, op, buf, n,
                              nranks);
}
