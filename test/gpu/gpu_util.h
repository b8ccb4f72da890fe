/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU tests: skip (exit 77) where no CUDA device is usable. */
#ifndef TCOMM_GPU_UTIL_H
#define TCOMM_GPU_UTIL_H

#include <cuda_runtime_api.h>
#include <stdio.h>

#define GPU_SKIP 77

static inline int gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

#endif /* TCOMM_GPU_UTIL_H */
