# SPDX-License-Identifier: BSD-3-Clause
# src/mpi/device/: device tensors over MPI, direct and staged.
libtcomm_internal_la_SOURCES += \
	src/mpi/device/device_path.h src/mpi/device/device_path.c \
	src/mpi/device/device_path_direct.c src/mpi/device/device_path_fold.c \
	src/mpi/device/device_path_staged.c \
	src/mpi/device/device_path_staged_ops.c \
	src/mpi/device/device_path_exchange.c \
	src/mpi/device/device_all_to_all.c
