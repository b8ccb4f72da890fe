/* SPDX-License-Identifier: BSD-3-Clause */
/* Host kernels: element-wise reductions and reshaping along a dim.
 * No MPI here; the MPI user ops and the backends call these. */
#ifndef TCOMM_HOST_KERNELS_H
#define TCOMM_HOST_KERNELS_H

#include <stddef.h>

#include "tcomm.h"

/* acc[i] = acc[i] op x[i] for i < n: the left fold step. AVG folds as SUM
 * (the caller divides once at the end). MIN/MAX propagate NaN. f16 and
 * bf16 combine in f32 and round to nearest even. */
void tcomm_host_reduce(tcomm_dtype_t dtype, tcomm_op_t op, void *acc,
                       const void *x, size_t n);

/* buf[i] /= divisor for floating dtypes (AVG's final step). */
void tcomm_host_divide(tcomm_dtype_t dtype, void *buf, size_t n,
                       double divisor);

/* Element-wise a + b into out (tcomm_tensor_add). */
void tcomm_host_add(tcomm_dtype_t dtype, const void *a, const void *b,
                    void *out, size_t n);

/* Reshaping along a dim. A tensor is viewed as [outer][len][...] rows.
 *
 * gather_unpack: src holds nranks blocks back to back, block r being
 * [outer][seg[r]] elements; dst is [outer][sum(seg)] with block r's rows
 * at column offset sum(seg[0..r)).
 *
 * scatter_pack: src is [outer][nranks * chunk]; dst holds nranks blocks
 * back to back, block r being [outer][chunk] taken from columns
 * [r * chunk, (r + 1) * chunk). Lengths are in elements of elsize bytes. */
void tcomm_host_gather_unpack(const void *src, void *dst, size_t elsize,
                              size_t outer, int nranks, const size_t *seg);
void tcomm_host_scatter_pack(const void *src, void *dst, size_t elsize,
                             size_t outer, int nranks, size_t chunk);

/* Internal: the f16/bf16 SIMD fast path (AVX2 + F16C, chosen at run
 * time). out[i] = a[i] op b[i] for the leading elements it handles (a
 * multiple of 8, or 0 where the CPU lacks the instructions); returns
 * how many. out may equal a or b. The test hook TCOMM_HOOK_NO_SIMD turns
 * it off so that the portable code runs everywhere. */
size_t tcomm_host_half_fast(tcomm_dtype_t dtype, tcomm_op_t op,
                            const void *a, const void *b, void *out,
                            size_t n);


#endif /* TCOMM_HOST_KERNELS_H */
