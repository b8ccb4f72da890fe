# SPDX-License-Identifier: BSD-3-Clause
# src/core/: status and error text, logging, the settings table, graphs,
# tensors, communicator objects, the memory-space seam that the host,
# sim (their tables: mpi_kernels/) and cuda (cuda/) spaces plug into, and
# the state of the host and sim spaces: the shared tensor arena, the
# host memory cache, the sim streams.
libtcomm_internal_la_SOURCES += \
	src/core/tcomm_internal.h src/core/tcomm_error.h \
	src/core/tcomm_log.h src/core/tcomm_config.h \
	src/core/tcomm_paths.h src/core/paths.c \
	src/core/tcomm_test_hooks.h src/core/test_hooks.c \
	src/core/status.c src/core/log.c src/core/config.c \
	src/core/graph.c src/core/tensor.c src/core/tensor_access.c \
	src/core/comm.c src/core/device_space.c \
	src/core/tcomm_host_arena.h src/core/host_arena.c src/core/host_memory.c \
	src/core/tcomm_sim_stream.h src/core/sim_stream.c
