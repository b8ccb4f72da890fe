/* SPDX-License-Identifier: BSD-3-Clause */
/* PLACEHOLDER (scaffolding during issue 16; the device helper replaces it). */
#include "device_path.h"

tcomm_status_t tcomm_device_all_to_all(tcomm_mpi_state_t *st,
                                       const tcomm_tensor_t *in,
                                       int split_dim, int concat_dim,
                                       tcomm_tensor_t *out)
{
    return tcomm_error(TCOMM_ERR_UNSUPPORTED, "tcomm: all_to_all: TODO");
}

tcomm_status_t tcomm_device_all_to_all_v(tcomm_mpi_state_t *st,
                                         const tcomm_tensor_t *in,
                                         int split_dim,
                                         const size_t *send_sizes,
                                         int concat_dim,
                                         const size_t *recv_sizes,
                                         tcomm_tensor_t *out)
{
    return tcomm_error(TCOMM_ERR_UNSUPPORTED, "tcomm: all_to_all_v: TODO");
}

tcomm_status_t tcomm_device_reduce_scatter_v(tcomm_mpi_state_t *st,
                                             const tcomm_tensor_t *in,
                                             tcomm_op_t op, int dim,
                                             const size_t *sizes,
                                             tcomm_tensor_t *out)
{
    return tcomm_error(TCOMM_ERR_UNSUPPORTED, "tcomm: reduce_scatter_v: TODO");
}
