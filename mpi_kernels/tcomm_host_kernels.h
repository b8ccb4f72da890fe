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

/* out[i] = a[i] op b[i]: the first fold step without a copy, bitwise
 * the same as acc = a then tcomm_host_reduce(acc, b). out overlaps
 * neither a nor b. */
void tcomm_host_reduce3(tcomm_dtype_t dtype, tcomm_op_t op, void *out,
                        const void *a, const void *b, size_t n);

/* buf[i] /= divisor for floating dtypes (AVG's final step). */
void tcomm_host_divide(tcomm_dtype_t dtype, void *buf, size_t n,
                       double divisor);

/* Element-wise a + b into out (tcomm_tensor_add). */
void tcomm_host_add(tcomm_dtype_t dtype, const void *a, const void *b,
                    void *out, size_t n);

/* Copy rows of row_bytes from src (stride sstride) to dst (stride
 * dstride), rows times: the row copy of the reshaping below. */
void tcomm_host_copy_rows(void *dst, size_t dstride, const void *src,
                          size_t sstride, size_t row_bytes, size_t rows);

/* Reshaping along a dim. A tensor is viewed as [outer][len][...] rows.
 *
 * gather_unpack: src holds nranks blocks back to back, block r being
 * [outer][seg[r]] elements; dst is [outer][sum(seg)] with block r's rows
 * at column offset sum(seg[0..r)).
 *
 * scatter_pack: src is [outer][nranks * chunk]; dst holds nranks blocks
 * back to back, block r being [outer][chunk] taken from columns
 * [r * chunk, (r + 1) * chunk). Lengths are in elements of elsize bytes.
 *
 * split_pack: gather_unpack's inverse, scatter_pack with uneven blocks:
 * src is [outer][sum(seg)]; dst holds nranks blocks back to back, block r
 * being [outer][seg[r]] taken from columns at offset sum(seg[0..r)). */
void tcomm_host_gather_unpack(const void *src, void *dst, size_t elsize,
                              size_t outer, int nranks, const size_t *seg);
void tcomm_host_scatter_pack(const void *src, void *dst, size_t elsize,
                             size_t outer, int nranks, size_t chunk);
void tcomm_host_split_pack(const void *src, void *dst, size_t elsize,
                           size_t outer, int nranks, const size_t *seg);

/* Internal: the f16/bf16 SIMD fast path (AVX2 + F16C, chosen at run
 * time). out[i] = a[i] op b[i] for the leading elements it handles (a
 * multiple of 8, or 0 where the CPU lacks the instructions); returns
 * how many. out may equal a or b. The test hook TCOMM_HOOK_NO_SIMD turns
 * it off so that the portable code runs everywhere. */
size_t tcomm_host_half_fast(tcomm_dtype_t dtype, tcomm_op_t op,
                            const void *a, const void *b, void *out,
                            size_t n);

struct tcomm_memspace;

/* The rank-order fold, one for every backend and path: dst = src[0] op
 * src[1] op ... op src[nsrc-1], left to right, n elements each, with the
 * space's own copy and reduce (queued on a device space's stream: the
 * caller synchronizes). dst may be src[0], never another source. AVG
 * folds as SUM; tcomm_space_finish divides. mpi_kernels/tcomm_fold.c. */
tcomm_status_t tcomm_space_fold(const struct tcomm_memspace *sp, void *ctx,
                                tcomm_dtype_t dtype, tcomm_op_t op,
                                void *dst, const void *const *src, int nsrc,
                                size_t n);
/* The same with the sources stride bytes apart from base (UCC's
 * reduce_strided). */
tcomm_status_t tcomm_space_fold_strided(const struct tcomm_memspace *sp,
                                        void *ctx, tcomm_dtype_t dtype,
                                        tcomm_op_t op, void *dst,
                                        const void *base, size_t stride,
                                        int nsrc, size_t n);
/* AVG's finish over nranks contributions (buf /= nranks); nothing for the
 * other ops. */
tcomm_status_t tcomm_space_finish(const struct tcomm_memspace *sp, void *ctx,
                                  tcomm_dtype_t dtype, tcomm_op_t op,
                                  void *buf, size_t n, int nranks);
/* The same two on host memory, for code that cannot see the spaces (the
 * C++ Gloo backend). */
tcomm_status_t tcomm_host_fold_strided(tcomm_dtype_t dtype, tcomm_op_t op,
                                       void *dst, const void *base,
                                       size_t stride, int nsrc, size_t n);
tcomm_status_t tcomm_host_finish(tcomm_dtype_t dtype, tcomm_op_t op,
                                 void *buf, size_t n, int nranks);


#endif /* TCOMM_HOST_KERNELS_H */
