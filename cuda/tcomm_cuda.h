/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA kernels' launchers (cuda/reduce_kernels.cu,
 * cuda/reshape_kernels.cu), callable from C. No CUDA header here: a
 * stream is a cudaStream_t passed as void *, and every launcher returns
 * the cudaError_t of the launch as an int (0 = cudaSuccess). Pointers
 * are device pointers (or managed or mapped pinned memory); counts are in
 * elements; nothing is synchronized. */
#ifndef TCOMM_CUDA_H
#define TCOMM_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* acc[i] = acc[i] op x[i] for i < n (dtype, op: tcomm_dtype_t and
 * tcomm_op_t values; AVG folds as SUM). */
int tcomm_cuda_reduce(int dtype, int op, void *acc, const void *x,
                      size_t n, void *stream);

/* buf[i] /= divisor for floating dtypes; integers are left alone. */
int tcomm_cuda_divide(int dtype, void *buf, size_t n, double divisor,
                      void *stream);

/* Reshaping along a dim, as tcomm_host_gather_unpack,
 * tcomm_host_scatter_pack and tcomm_host_split_pack
 * (mpi_kernels/tcomm_host_kernels.h). seg is a host array of nranks
 * entries. */
int tcomm_cuda_gather_unpack(const void *src, void *dst, size_t elsize,
                             size_t outer, int nranks, const size_t *seg,
                             void *stream);
int tcomm_cuda_scatter_pack(const void *src, void *dst, size_t elsize,
                            size_t outer, int nranks, size_t chunk,
                            void *stream);
int tcomm_cuda_split_pack(const void *src, void *dst, size_t elsize,
                          size_t outer, int nranks, const size_t *seg,
                          void *stream);

#ifdef __cplusplus
}
#endif
#endif /* TCOMM_CUDA_H */
