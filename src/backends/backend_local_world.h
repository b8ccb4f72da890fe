/* SPDX-License-Identifier: BSD-3-Clause */
/* The local backend: N ranks as N threads of one process. A world is the
 * state the N handles share: a barrier (mutex and condition variable,
 * bounded by TCOMM_TIMEOUT) and one slot per rank through which each
 * rank shows the others the buffer of the current collective. */
#ifndef TCOMM_BACKEND_LOCAL_WORLD_H
#define TCOMM_BACKEND_LOCAL_WORLD_H

#include <pthread.h>

#include "tcomm_internal.h"

#define TCOMM_LOCAL_MAX_RANKS 1024

typedef struct tcomm_local_world {
    int size;
    atomic_int refs;      /* handles alive; the last destroy frees */
    double timeout_s;     /* TCOMM_TIMEOUT at creation; 0: wait forever */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int arrived;          /* ranks in the current barrier */
    unsigned long generation; /* barriers completed */
    tcomm_status_t broken; /* non-zero once a rank gave up waiting */
    unsigned char *present; /* per rank: arrived in this generation */
    char late[128];       /* the ranks that did not arrive, once broken */
    const void **slot;    /* per rank: the buffer it shares */
    tcomm_status_t *status; /* per rank: its status entering the op */
} tcomm_local_world_t;

typedef struct {
    tcomm_local_world_t *world;
    int rank;
    void *scratch; /* private buffer for in-place results, grown on need */
    size_t scratch_bytes;
} tcomm_local_rank_t;

extern const tcomm_backend_ops_t tcomm_backend_local;

/* Wait until every rank of the world arrives. TCOMM_ERR_TIMEOUT names the
 * late ranks after TCOMM_TIMEOUT seconds and breaks the world; later
 * calls fail with TCOMM_ERR_COMM_FAILED. Errors start with "tcomm: " so
 * that the front end names the public call. */
tcomm_status_t tcomm_local_sync(tcomm_local_rank_t *me);

/* Publish @p ptr in this rank's slot with this rank's status @p mine,
 * then wait for everyone. Every rank returns an error if any rank came
 * with one: its own, or TCOMM_ERR_COMM_FAILED naming the failed rank. */
tcomm_status_t tcomm_local_share(tcomm_local_rank_t *me, const void *ptr,
                                 tcomm_status_t mine);

/* This rank's scratch buffer of at least @p bytes. */
tcomm_status_t tcomm_local_scratch(tcomm_local_rank_t *me, size_t bytes,
                                   void **buf);

/* Host views of a collective's input and output. */
typedef struct {
    const void *in;
    void *out;
    void *hin, *hout; /* staging buffers of a device space, else NULL */
} local_bufs_t;

/* Host pointers for in (read only when @p read_in) and out: the tensors'
 * own on a host graph, staging copies on a device space (sim, cuda). */
tcomm_status_t tcomm_local_stage_in(const tcomm_tensor_t *in, int read_in,
                                    tcomm_tensor_t *out, local_bufs_t *b);
/* Copy a staged result to out (when @p st is success) and free. */
tcomm_status_t tcomm_local_stage_out(tcomm_status_t st, tcomm_tensor_t *out,
                                     local_bufs_t *b);

/* The collectives (src/backends/backend_local_colls.c, and
 * backend_local_all_to_all.c for the all_to_all pair). */
tcomm_status_t tcomm_local_all_reduce(void *state, const tcomm_tensor_t *in,
                                      tcomm_op_t op, tcomm_tensor_t *out);
tcomm_status_t tcomm_local_all_gather(void *state, const tcomm_tensor_t *in,
                                      int dim, const size_t *sizes,
                                      tcomm_tensor_t *out);
tcomm_status_t tcomm_local_reduce_scatter(void *state,
                                          const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          tcomm_tensor_t *out);
tcomm_status_t tcomm_local_broadcast(void *state, const tcomm_tensor_t *in,
                                     int root, tcomm_tensor_t *out);
tcomm_status_t tcomm_local_reduce_scatter_v(void *state,
                                            const tcomm_tensor_t *in,
                                            tcomm_op_t op, int dim,
                                            const size_t *sizes,
                                            tcomm_tensor_t *out);
tcomm_status_t tcomm_local_all_to_all(void *state, const tcomm_tensor_t *in,
                                      int split_dim, int concat_dim,
                                      tcomm_tensor_t *out);
tcomm_status_t tcomm_local_all_to_all_v(void *state,
                                        const tcomm_tensor_t *in,
                                        int split_dim,
                                        const size_t *send_sizes,
                                        int concat_dim,
                                        const size_t *recv_sizes,
                                        tcomm_tensor_t *out);

#endif /* TCOMM_BACKEND_LOCAL_WORLD_H */
