/* SPDX-License-Identifier: BSD-3-Clause */
/* What the MPI suites of the single-copy collectives on one node share
 * (test/node_suite.c): the agreed verdict, the probe of cross-memory
 * attach, a backend state of their own, and the two ways to spoil the
 * copies. */
#ifndef TCOMM_TEST_NODE_SUITE_H
#define TCOMM_TEST_NODE_SUITE_H

#include "tcomm_backend_mpi.h"

/* The sum of mine over MPI_COMM_WORLD, so that no rank asserts alone. */
int agree_sum(int mine);
/* Can every rank write to the next rank's memory and read it back, as
 * the single copies do? Agreed. */
int probe_cma(void);
/* A backend state around a fresh duplicate of MPI_COMM_WORLD, as
 * tcomm_comm_create_mpi makes it (shared memory: NULL on one rank). */
tcomm_mpi_state_t make_state(void);
void free_state(tcomm_mpi_state_t *st);
/* As if the kernel refused cross-memory attach. */
void refuse_copies(int on);
/* As in a container of its own that shares /dev/shm: its pid names
 * another process here, so nobody may copy by it. */
void own_pid_namespace(int on);

#endif
