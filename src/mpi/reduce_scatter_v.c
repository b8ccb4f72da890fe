/* SPDX-License-Identifier: BSD-3-Clause */
/* PLACEHOLDER (scaffolding during issue 16; the device helper replaces it). */
#include "tcomm_backend_mpi.h"

tcomm_status_t tcomm_mpi_reduce_scatter_v(void *state,
                                          const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          const size_t *sizes,
                                          tcomm_tensor_t *out)
{
    return tcomm_error(TCOMM_ERR_UNSUPPORTED, "tcomm: reduce_scatter_v: TODO");
}
