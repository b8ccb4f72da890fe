/* SPDX-License-Identifier: BSD-3-Clause */
/* The launch shape every kernel of cuda/ uses (reduce_kernels.cu,
 * reshape_kernels.cu): 256 threads a block and a grid-stride loop, so
 * the grid never needs more than 65535 blocks. CUDA C++ only. */
#ifndef TCOMM_CUDA_LAUNCH_H
#define TCOMM_CUDA_LAUNCH_H

#include <stddef.h>

namespace tcomm_launch {

constexpr unsigned kThreads = 256;
constexpr size_t kMaxBlocks = 65535;

/* Blocks for n elements, one a thread, capped (the kernels stride). */
inline unsigned blocks_for(size_t n)
{
    size_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < kMaxBlocks ? b : kMaxBlocks);
}

} // namespace tcomm_launch

#endif
