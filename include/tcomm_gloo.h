/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tcomm_gloo.h
 * @brief The Gloo backend: a communicator over Gloo's TCP transport, for
 * host tensors, in builds configured with Gloo (`--with-gloo`).
 *
 * The ranks meet through a file store: a directory that every rank can
 * reach (a shared file system across nodes, any directory on one node).
 * The same interface, validation, agreement and graph affinity as every
 * other backend; tensors on CUDA graphs give TCOMM_ERR_UNSUPPORTED.
 */
#ifndef TCOMM_GLOO_H
#define TCOMM_GLOO_H

#include "tcomm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Where and how the ranks of a Gloo communicator meet. */
typedef struct {
    /** A directory every rank can reach, empty of this prefix's keys
     *  (rendezvous keys are files; use a fresh directory per job). */
    const char *store_dir;
    /** Distinguishes communicators that share store_dir; NULL: "tcomm". */
    const char *prefix;
    /** The address this rank listens on; NULL: "127.0.0.1" (one node). */
    const char *hostname;
    int rank;       /**< this process's rank, 0 .. world_size - 1 */
    int world_size; /**< the number of ranks, every one calls this */
} tcomm_gloo_options_t;

/** @brief A communicator over Gloo. Blocks until every rank has called
 *  it (bounded by TCOMM_TIMEOUT, else Gloo's 30 s default). Returns
 *  TCOMM_ERR_UNSUPPORTED in a build without Gloo. */
TCOMM_EXPORT tcomm_status_t tcomm_comm_create_gloo(
    const tcomm_gloo_options_t *options, tcomm_comm_t **comm);

#ifdef __cplusplus
}
#endif
#endif /* TCOMM_GLOO_H */
