# SPDX-License-Identifier: BSD-3-Clause
# src/mpi/: the MPI backend (vtable, host collectives, the algorithms
# along a dim, the rank-order fold, timeouts, the CUDA-aware probe, the
# MPI_Op handles of the user ops), then its two lower rooms: device
# tensors and one node's shared memory.
libtcomm_internal_la_SOURCES += \
	src/mpi/tcomm_backend_mpi.h src/mpi/tcomm_timeout.h \
	src/mpi/tcomm_mpi_reshape.h src/mpi/tcomm_mpi_all_to_all.h \
	src/mpi/backend_mpi.c src/mpi/ordered.c \
	src/mpi/all_gather_dim.c src/mpi/reduce_scatter_dim.c \
	src/mpi/all_to_all_exchange.c src/mpi/all_to_all_strided.c \
	src/mpi/timeout.c src/mpi/timeout_hosts.c src/mpi/cuda_aware_probe.c \
	src/mpi/finalize_hook.c src/mpi/launcher.c \
	src/mpi/tcomm_carry_round.h src/mpi/carry_round.c \
	src/mpi/tcomm_user_ops.h src/mpi/user_ops.c

# Two-level collectives across nodes (issue 31).
libtcomm_internal_la_SOURCES += src/mpi/tcomm_hier.h src/mpi/hier.c \
	src/mpi/hier_colls.c src/mpi/hier_cross.c src/mpi/hier_reduce.c

# The named algorithms of every collective, a table per collective, and
# the one choice among them (TCOMM_TUNE).
libtcomm_internal_la_SOURCES += src/mpi/tcomm_mpi_algo.h \
	src/mpi/algo_select.c src/mpi/all_reduce.c src/mpi/all_gather.c \
	src/mpi/reduce_scatter.c src/mpi/broadcast.c src/mpi/reduce.c \
	src/mpi/all_to_all.c src/mpi/all_to_all_v.c \
	src/mpi/reduce_scatter_v.c src/mpi/barrier.c

# reduce_scatter_v's pipeline along any dim (issue 16).
libtcomm_internal_la_SOURCES += src/mpi/reduce_scatter_v_pipe.c

include src/mpi/device/local.mk
include src/mpi/node/local.mk
