/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory space of a TCOMM_DEVICE_CUDA graph: the cuda space
 * (cuda/cuda_space.c) in a build with CUDA, else TCOMM_ERR_UNSUPPORTED. */
#include "config.h"

#include "tcomm_internal.h"

#ifdef TCOMM_HAVE_CUDA
#include "cuda_space.h"
#endif

tcomm_status_t tcomm_device_space_open(tcomm_device_t device,
                                       const tcomm_memspace_t **space,
                                       void **ctx)
{
    if (device.kind != TCOMM_DEVICE_CUDA)
        return tcomm_error(TCOMM_ERR_INVALID_ARG,
                           "tcomm_graph_create: device kind %d is not a "
                           "device kind with its own memory (use "
                           "TCOMM_DEVICE_CUDA)", (int)device.kind);
#ifdef TCOMM_HAVE_CUDA
    /* through the table: cuda/ plugs into this seam, core calls nothing
     * of it by name */
    TCOMM_TRY(tcomm_memspace_cuda.open(device.index, ctx));
    *space = &tcomm_memspace_cuda;
    return TCOMM_SUCCESS;
#else
    (void)space;
    (void)ctx;
    return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                       "tcomm_graph_create: this tcomm was built without "
                       "CUDA, so CUDA device %d cannot hold tensors "
                       "(reconfigure with --with-cuda, or use "
                       "TCOMM_DEVICE_HOST)", device.index);
#endif
}

void tcomm_device_space_close(const tcomm_memspace_t *space, void *ctx)
{
    if (space && space->close)
        space->close(ctx);
}
