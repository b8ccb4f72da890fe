# SPDX-License-Identifier: BSD-3-Clause
# Tests of device tensors: the memory spaces (mpi_kernels/, cuda/) and
# the MPI backend's device path (src/mpi/device/).
EXTRA_DIST += test/gpu/run.sh

if TCOMM_HAVE_CUDA
# GPU tests: exit 77 (skip) without a GPU; test/gpu/run.sh runs them on one.
check_PROGRAMS += test/gpu/gpu_kernels test/gpu/gpu_collectives
test_gpu_gpu_kernels_SOURCES = test/gpu/gpu_kernels.c test/gpu/gpu_util.h
test_gpu_gpu_kernels_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_gpu_gpu_kernels_LDADD = libtcomm_internal.la
test_gpu_gpu_collectives_SOURCES = test/gpu/gpu_collectives.c \
	test/gpu/gpu_util.h test/mpi_device_ref.c test/mpi_device_ref.h
test_gpu_gpu_collectives_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test
test_gpu_gpu_collectives_LDADD = libtcomm_internal.la
TESTS += test/gpu/gpu_kernels \
	test/gpu/gpu_collectives-np1.mpitest \
	test/gpu/gpu_collectives-np2.mpitest
endif

# Tests on CPUs: the kernels' helpers against the host kernels, the sim
# space and the CUDA-graph errors, the collectives on sim graphs (staged
# and direct path) at 1-4 ranks, and configure's --with-cuda errors.
check_PROGRAMS += test/check_device_kernels test/check_device_space \
	test/mpi_device
test_check_device_kernels_SOURCES = test/check_device_kernels.c
test_check_device_kernels_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_device_kernels_LDADD = libtcomm_internal.la $(CHECK_LIBS)
test_check_device_space_SOURCES = test/check_device_space.c
test_check_device_space_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_device_space_LDADD = libtcomm_internal.la $(CHECK_LIBS)
test_mpi_device_SOURCES = test/mpi_device.c test/mpi_device_ref.c \
	test/mpi_device_ref.h
test_mpi_device_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_device_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/check_device_kernels test/check_device_space \
	test/mpi_device-np1.mpitest test/mpi_device-np2.mpitest \
	test/mpi_device-np3.mpitest test/mpi_device-np4.mpitest \
	cuda/check-configure.sh
