# SPDX-License-Identifier: BSD-3-Clause
# mpi_kernels/: host kernels that MPI and every backend use, with no
# state and no algorithm: MPI datatypes, the user functions of MPI ops
# (their MPI_Op handles: src/mpi/user_ops.c) and error mapping,
# large-count splitting, reductions, pack/unpack along a dim, and the
# host and sim spaces' tables and element ops over them (their memory
# and streams: src/core/). Their tests: test/kernels.mk.
libtcomm_internal_la_SOURCES += \
	mpi_kernels/tcomm_host_kernels.h \
	mpi_kernels/tcomm_half.h \
	mpi_kernels/tcomm_hd.h \
	mpi_kernels/tcomm_reshape_index.h \
	mpi_kernels/tcomm_mpi_kernels.h \
	mpi_kernels/tcomm_sim.h \
	mpi_kernels/tcomm_mpi_ops.c \
	mpi_kernels/tcomm_mpi_large.c \
	mpi_kernels/tcomm_mpi_status.c \
	mpi_kernels/tcomm_mpi_channel.c \
	mpi_kernels/tcomm_host_space.c \
	mpi_kernels/tcomm_fold.c \
	mpi_kernels/tcomm_sim_space.c

# The element-wise loops are built with the vectorizer's dynamic cost
# model: -O2's default ("very cheap") refuses every loop that needs an
# epilogue or an alias check. Explicit -f options win over the -O level
# whatever the order, so the user's CFLAGS (-O2 -g) do not undo them.
noinst_LTLIBRARIES += libtcomm_hostkern.la
libtcomm_hostkern_la_SOURCES = \
	mpi_kernels/tcomm_host_reduce.c \
	mpi_kernels/tcomm_host_half_x86.c \
	mpi_kernels/tcomm_host_reshape.c
VECTORIZE_CFLAGS = -ftree-vectorize -fvect-cost-model=dynamic
libtcomm_hostkern_la_CFLAGS = $(AM_CFLAGS) $(VECTORIZE_CFLAGS)
libtcomm_internal_la_LIBADD += libtcomm_hostkern.la
