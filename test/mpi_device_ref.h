/* SPDX-License-Identifier: BSD-3-Clause */
/* Inputs, references and checks of test/mpi_device.c: each rank's input
 * is a function of (rank, case, element), so every rank regenerates all
 * ranks' inputs and computes the expected result with the host kernels'
 * left fold in rank order. Values are small integers (sums and products
 * are exact in every dtype, so MPI's order does not matter) and NaNs
 * where MIN/MAX must propagate them. */
#ifndef MPI_DEVICE_REF_H
#define MPI_DEVICE_REF_H

#include "tcomm.h"

void ref_reset(const char *config, int rank, int size);
long ref_failures(void);
int ref_is_float(int dtype);

void check_all_reduce(tcomm_comm_t *comm, tcomm_graph_t *graph, int dtype,
                      int op);
void check_reduce_scatter(tcomm_comm_t *comm, tcomm_graph_t *graph,
                          int dtype, int op);
void check_all_gather(tcomm_comm_t *comm, tcomm_graph_t *graph, int dtype);
void check_broadcast(tcomm_comm_t *comm, tcomm_graph_t *graph, int dtype);

#endif /* MPI_DEVICE_REF_H */
