# SPDX-License-Identifier: BSD-3-Clause
# Device tensors: the memory spaces (sim always, cuda when configured), the
# device path of the MPI backend, the CUDA-aware probe, and their tests.

libtcomm_internal_la_SOURCES += \
	src/tcomm_sim.h \
	src/device_space.c \
	src/memspace_sim.c \
	src/cuda_aware_probe.c \
	src/device_path.h \
	src/device_path.c \
	src/device_path_direct.c \
	src/device_path_fold.c \
	src/device_path_staged.c \
	src/device_path_staged_ops.c

EXTRA_DIST += cuda/nvcc-libtool.sh cuda/check-configure.sh \
	test/gpu/run.sh
EXTRA_DIST += cuda/reduce_kernels.cu cuda/reshape_kernels.cu

if TCOMM_HAVE_CUDA
# The CUDA code lives in its own convenience library so that only cuda/
# sees the CUDA headers.
noinst_LTLIBRARIES += cuda/libtcomm_cuda.la
cuda_libtcomm_cuda_la_SOURCES = \
	cuda/tcomm_cuda.h \
	cuda/tcomm_cuda_check.h \
	cuda/tcomm_reduce_elem.h \
	cuda/tcomm_kernel_index.h \
	cuda/cuda_space.h \
	cuda/cuda_alloc.c \
	cuda/cuda_space.c \
	cuda/cuda_space_ops.c
cuda_libtcomm_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
cuda_libtcomm_cuda_la_LIBADD = cuda/reduce_kernels.lo \
	cuda/reshape_kernels.lo $(CUDA_LIBS)
EXTRA_DIST += cuda/reduce_kernels.cu cuda/reshape_kernels.cu
libtcomm_internal_la_LIBADD += cuda/libtcomm_cuda.la

# nvcc through libtool (cuda/nvcc-libtool.sh turns -fPIC into
# -Xcompiler=-fPIC). NVCC_GENCODE: sm_80, sm_90 and compute_90 PTX.
tcomm_cu_deps = $(top_srcdir)/cuda/tcomm_cuda.h \
	$(top_srcdir)/cuda/tcomm_reduce_elem.h \
	$(top_srcdir)/cuda/tcomm_kernel_index.h \
	$(top_srcdir)/mpi_kernels/tcomm_half.h \
	$(top_srcdir)/mpi_kernels/tcomm_reshape_index.h
AM_V_NVCC = $(am__v_NVCC_@AM_V@)
am__v_NVCC_ = $(am__v_NVCC_@AM_DEFAULT_V@)
am__v_NVCC_0 = @echo "  NVCC    " $@;
am__v_NVCC_1 =
cuda/%.lo: cuda/%.cu $(tcomm_cu_deps)
	$(AM_V_NVCC)$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=compile \
	$(SHELL) $(top_srcdir)/cuda/nvcc-libtool.sh $(NVCC) $(NVCC_GENCODE) \
	-O3 -std=c++17 -Xcompiler=-fvisibility=hidden $(DEFS) \
	$(DEFAULT_INCLUDES) $(AM_CPPFLAGS) \
	$(NVCCFLAGS) -c -o $@ $<
CLEANFILES += cuda/*.lo cuda/*.o

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
