# SPDX-License-Identifier: BSD-3-Clause
# cuda/: the CUDA memory space and kernels (when configured). Their tests
# are in test/device.mk.

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
	cuda/tcomm_cuda_launch.h \
	cuda/cuda_space.h \
	cuda/cuda_alloc.c \
	cuda/cuda_space.c \
	cuda/cuda_space_ops.c
cuda_libtcomm_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
cuda_libtcomm_cuda_la_LIBADD = cuda/reduce_kernels.lo \
	cuda/reshape_kernels.lo $(CUDA_LIBS)
libtcomm_internal_la_LIBADD += cuda/libtcomm_cuda.la

# nvcc through libtool (cuda/nvcc-libtool.sh turns -fPIC into
# -Xcompiler=-fPIC). NVCC_GENCODE: sm_80, sm_90 and compute_90 PTX.
tcomm_cu_deps = $(top_srcdir)/cuda/tcomm_cuda.h \
	$(top_srcdir)/cuda/tcomm_reduce_elem.h \
	$(top_srcdir)/cuda/tcomm_kernel_index.h \
	$(top_srcdir)/cuda/tcomm_cuda_launch.h \
	$(top_srcdir)/mpi_kernels/tcomm_hd.h \
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
endif
