/* SPDX-License-Identifier: BSD-3-Clause */
/* TCOMM_HD marks the inline functions that the host kernels and the CUDA
 * kernels share (tcomm_half.h, tcomm_reshape_index.h): __host__
 * __device__ under nvcc, nothing elsewhere. */
#ifndef TCOMM_HD_H
#define TCOMM_HD_H

#ifndef TCOMM_HD
#ifdef __CUDACC__
#define TCOMM_HD __host__ __device__
#else
#define TCOMM_HD
#endif
#endif

#endif /* TCOMM_HD_H */
