/* SPDX-License-Identifier: BSD-3-Clause */
/* The agreement's round over MPI that carries small inputs, where the
 * ranks share no node-wide segment (src/mpi/carry_round.c). */
#ifndef TCOMM_CARRY_ROUND_H
#define TCOMM_CARRY_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "tcomm_backend_mpi.h"

typedef struct tcomm_carry_round tcomm_carry_round_t;

/* The most ranks a carrying round serves: beyond them the summary's
 * MPI_Allreduce (log n slots a rank) beats an allgather of n. */
#define TCOMM_CARRY_RANKS 64

/* tcomm_backend_ops_t::allreduce_min_i64_carry over st->comm: values
 * become their minimum over the ranks; *carried is 1 on every rank when
 * every rank's bytes came (blocks[r], lens[r], valid until the next
 * round on st), else 0 on every rank. count is the same on every rank. */
tcomm_status_t tcomm_carry_round(tcomm_mpi_state_t *st, int64_t *values,
                                 int count, const void *mine, size_t bytes,
                                 const void **blocks, size_t *lens,
                                 int *carried);

void tcomm_carry_round_destroy(tcomm_carry_round_t *r);

#endif /* TCOMM_CARRY_ROUND_H */
