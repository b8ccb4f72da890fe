/* SPDX-License-Identifier: BSD-3-Clause */
/* The Gloo backend's state and the helpers its two files share
 * (backend_gloo.cc: the seed's collectives and creation;
 * backend_gloo_all_to_all.cc: the all_to_all pair and reduce_scatter_v). C++,
 * internal, hidden by -fvisibility=hidden. */
#ifndef TCOMM_BACKEND_GLOO_H
#define TCOMM_BACKEND_GLOO_H

#include <exception>
#include <memory>
#include <vector>

#include <gloo/context.h>

#include "tcomm_backend.h"

namespace tcomm_gloo {

struct gloo_state {
    std::shared_ptr<gloo::Context> ctx;
    int rank = 0, size = 1;
    tcomm_comm_t *owner = nullptr; /* for the deterministic attribute */
    std::vector<char> tmp;         /* reshaping and gathered inputs */
};

/* A Gloo exception as a status (TIMEOUT or COMM_FAILED) and a sentence. */
tcomm_status_t fail(const std::exception &e, const char *what);

#define GLOO_TRY(what, body)                                                \
    try {                                                                   \
        body;                                                               \
    } catch (const std::exception &e) {                                     \
        return fail(e, what);                                               \
    }

const char *bytes(const tcomm_tensor_t *t);
size_t nbytes(const tcomm_tensor_t *t);
/* UNSUPPORTED, naming fn, unless in is on a host graph. */
tcomm_status_t host_only(const tcomm_tensor_t *in, const char *fn);
/* The communicator's TCOMM_ATTR_DETERMINISTIC. */
int deterministic(const gloo_state *st);
/* all = every rank's @p len bytes of @p mine, in rank order. */
void gather_all(gloo_state *st, const void *mine, size_t len, char *all);
/* buf (n elements) = the reduction over ranks of buf, in place. */
void ring_allreduce(gloo_state *st, tcomm_dtype_t d, tcomm_op_t op,
                    char *buf, size_t n);
/* dst (n elements) = rank 0's op rank 1's op ..., from gathered inputs
 * of stride elements each, starting at element at. */
tcomm_status_t fold(const gloo_state *st, tcomm_dtype_t d, tcomm_op_t op,
                    const char *all, size_t stride, size_t at, char *dst,
                    size_t n);
/* AVG's finish on this rank's result. */
tcomm_status_t finish(const gloo_state *st, tcomm_dtype_t d, tcomm_op_t op,
                      char *dst, size_t n);

/* The vtable's contract 0.2 slots (backend_gloo_all_to_all.cc). */
tcomm_status_t all_to_all(void *s, const tcomm_tensor_t *in, int split_dim,
                          int concat_dim, tcomm_tensor_t *out);
tcomm_status_t all_to_all_v(void *s, const tcomm_tensor_t *in,
                            int split_dim, const size_t *send_sizes,
                            int concat_dim, const size_t *recv_sizes,
                            tcomm_tensor_t *out);
tcomm_status_t reduce_scatter_v(void *s, const tcomm_tensor_t *in,
                                tcomm_op_t op, int dim, const size_t *sizes,
                                tcomm_tensor_t *out);

} /* namespace tcomm_gloo */

#endif /* TCOMM_BACKEND_GLOO_H */
