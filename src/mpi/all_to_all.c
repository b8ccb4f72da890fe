/* SPDX-License-Identifier: BSD-3-Clause */
/* PLACEHOLDER (scaffolding during issue 16; the MPI helper replaces it). */
#include "tcomm_backend_mpi.h"

tcomm_status_t tcomm_mpi_all_to_all(void *state, const tcomm_tensor_t *in,
                                    int split_dim, int concat_dim,
                                    tcomm_tensor_t *out)
{
    return tcomm_error(TCOMM_ERR_UNSUPPORTED, "tcomm: all_to_all: TODO");
}

tcomm_status_t tcomm_mpi_all_to_all_v(void *state, const tcomm_tensor_t *in,
                                      int split_dim,
                                      const size_t *send_sizes,
                                      int concat_dim,
                                      const size_t *recv_sizes,
                                      tcomm_tensor_t *out)
{
    return tcomm_error(TCOMM_ERR_UNSUPPORTED, "tcomm: all_to_all_v: TODO");
}
