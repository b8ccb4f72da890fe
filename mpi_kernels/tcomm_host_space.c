/* SPDX-License-Identifier: BSD-3-Clause */
/* The host memory space: plain host memory, with the host kernels as its
 * element ops. Core's graphs name this table (the seam the sim and cuda
 * spaces plug into too); the functions live here, with their kernels. */
#include <stdlib.h>
#include <string.h>

#include "tcomm_host_kernels.h"
#include "tcomm_internal.h"

/* Host memory: cache-line aligned (64 bytes) so that vector loops and
 * MPI run at full speed. */
static tcomm_status_t host_alloc(void *ctx, size_t bytes, void **ptr)
{
    (void)ctx;
    if (bytes == 0) {
        *ptr = NULL;
        return TCOMM_SUCCESS;
    }
    size_t rounded = (bytes + TCOMM_CACHE_LINE - 1) &
                     ~(size_t)(TCOMM_CACHE_LINE - 1);
    if (rounded < bytes ||
        !(*ptr = aligned_alloc(TCOMM_CACHE_LINE, rounded)))
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm: cannot allocate %zu bytes of host memory "
                           "(free memory or use smaller tensors)",
                           bytes);
    return TCOMM_SUCCESS;
}

static void host_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static tcomm_status_t host_copy(void *ctx, void *dst, const void *src,
                                size_t bytes)
{
    (void)ctx;
    if (bytes && dst != src)
        memcpy(dst, src, bytes);
    return TCOMM_SUCCESS;
}

static tcomm_status_t host_reduce(void *ctx, tcomm_dtype_t dtype,
                                  tcomm_op_t op, void *acc, const void *x,
                                  size_t n)
{
    (void)ctx;
    tcomm_host_reduce(dtype, op, acc, x, n);
    return TCOMM_SUCCESS;
}

static tcomm_status_t host_divide(void *ctx, tcomm_dtype_t dtype, void *buf,
                                  size_t n, double divisor)
{
    (void)ctx;
    tcomm_host_divide(dtype, buf, n, divisor);
    return TCOMM_SUCCESS;
}

static tcomm_status_t host_split_pack(void *ctx, const void *src, void *dst,
                                      size_t elsize, size_t outer,
                                      int nranks, const size_t *seg)
{
    (void)ctx;
    tcomm_host_split_pack(src, dst, elsize, outer, nranks, seg);
    return TCOMM_SUCCESS;
}

static tcomm_status_t host_memset0(void *ctx, void *dst, size_t bytes)
{
    (void)ctx;
    if (bytes)
        memset(dst, 0, bytes);
    return TCOMM_SUCCESS;
}

const tcomm_memspace_t tcomm_memspace_host = {
    .name = "host",
    .is_host = 1,
    .alloc = host_alloc,
    .free = host_free,
    .to_host = host_copy,
    .from_host = host_copy,
    .copy = host_copy,
    .memset0 = host_memset0,
    .register_buffer = NULL,
    /* the element ops of the fold and of AVG's finish, and the uneven
     * pack: on host memory they run at once, so the "async" copy is the
     * plain one */
    .copy_async = host_copy,
    .reduce = host_reduce,
    .divide = host_divide,
    .split_pack = host_split_pack,
};
