# SPDX-License-Identifier: BSD-3-Clause
# Host kernels and MPI algorithms (mpi_kernels/), and their tests.
libtcomm_internal_la_SOURCES += \
	mpi_kernels/tcomm_host_kernels.h \
	mpi_kernels/tcomm_mpi_kernels.h
