/* SPDX-License-Identifier: BSD-3-Clause */
/* The sim memory space: host memory that the runtime treats as device
 * memory, so that the device path (staging, direct MPI, reshaping and
 * reduction "kernels") runs and is tested on machines without a GPU.
 * Testing entry points; not part of the public API. The table and the
 * ops that run kernels: mpi_kernels/tcomm_sim_space.c; the memory and
 * the stream (state): src/core/sim_stream.c. */
#ifndef TCOMM_SIM_H
#define TCOMM_SIM_H

#include "tcomm_internal.h"
#include "tcomm_sim_stream.h"

/* Flags of tcomm_graph_create_sim_flags. */
enum {
    /* "Device" pointers are tagged so that any host access to them
     * faults: proves that the staged path touches device memory only
     * through the space's copies. MPI cannot take them either, so such
     * graphs always take the staged path. */
    TCOMM_SIM_TAGGED = 1
};

extern const tcomm_memspace_t tcomm_memspace_sim;
extern const tcomm_memspace_t tcomm_memspace_sim_tagged;

/* A graph on device @p index of the sim space (device kind
 * TCOMM_DEVICE_CUDA; untagged: MPI may read its memory directly). */
tcomm_status_t tcomm_graph_create_sim(int index, tcomm_graph_t **graph);
tcomm_status_t tcomm_graph_create_sim_flags(int index, int flags,
                                            tcomm_graph_t **graph);

/* tcomm_sim_pending and tcomm_sim_host_ptr: in tcomm_sim_stream.h, with
 * the sim graph's state (src/core/sim_stream.c). */

#endif /* TCOMM_SIM_H */
