/* SPDX-License-Identifier: BSD-3-Clause */
/* The cuda memory space (cuda/cuda_space*.c): the space of a
 * TCOMM_DEVICE_CUDA graph. No CUDA header here, so that src/ can
 * include it. */
#ifndef TCOMM_CUDA_SPACE_H
#define TCOMM_CUDA_SPACE_H

#include "tcomm_internal.h"

extern const tcomm_memspace_t tcomm_memspace_cuda;

/* A context for device @p index: its stream, events, caching allocator
 * and pinned staging buffer. TCOMM_ERR_UNSUPPORTED without a device. */
tcomm_status_t tcomm_cuda_space_open(int index, void **ctx);

/* Number of CUDA devices, 0 if there is no device or no driver. */
int tcomm_cuda_device_count(void);

#endif /* TCOMM_CUDA_SPACE_H */
