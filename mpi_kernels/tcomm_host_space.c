/* SPDX-License-Identifier: BSD-3-Clause */
/* The host memory space: plain host memory, with the host kernels as its
 * element ops. Core's graphs name this table (the seam the sim and cuda
 * spaces plug into too). Stateless: the memory and its cache are core's
 * (src/core/host_memory.c); the element ops live here, with their
 * kernels. */
#include "tcomm_host_kernels.h"
#include "tcomm_internal.h"

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

const tcomm_memspace_t tcomm_memspace_host = {
    .name = "host",
    .is_host = 1,
    .alloc = tcomm_host_mem_alloc,
    .free = tcomm_host_mem_free,
    .to_host = tcomm_host_mem_copy,
    .from_host = tcomm_host_mem_copy,
    .copy = tcomm_host_mem_copy,
    .memset0 = tcomm_host_mem_memset0,
    .register_buffer = NULL,
    /* the element ops of the fold and of AVG's finish, and the uneven
     * pack: on host memory they run at once, so the "async" copy is the
     * plain one */
    .copy_async = tcomm_host_mem_copy,
    .reduce = host_reduce,
    .divide = host_divide,
    .split_pack = host_split_pack,
};
