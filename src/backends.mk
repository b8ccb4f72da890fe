# SPDX-License-Identifier: BSD-3-Clause
# Backends beside MPI (issue 9): local (N ranks as N threads, always
# built), Gloo (--with-gloo) and NCCL (--with-nccl), their tests, and the
# user-defined backend's test.

# local: the mock backend, an independent reference for the MPI suites.
libtcomm_internal_la_SOURCES += src/backend_local_world.h \
	src/backend_local.c src/backend_local_colls.c

BACKEND_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/test
BACKEND_TEST_LDADD = libtcomm_internal.la $(CHECK_LIBS)

check_PROGRAMS += test/check_local_backend test/check_local_backend_safety \
	test/check_custom_backend test/mpi_vs_local
test_check_local_backend_SOURCES = test/check_local_backend.c \
	test/backend_matrix.c test/backend_matrix.h \
	test/mpi_reference.c test/mpi_reference.h
test_check_local_backend_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_check_local_backend_LDADD = $(BACKEND_TEST_LDADD)
test_check_local_backend_safety_SOURCES = test/check_local_backend_safety.c
test_check_local_backend_safety_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_check_local_backend_safety_LDADD = $(BACKEND_TEST_LDADD)
test_check_custom_backend_SOURCES = test/check_custom_backend.c
test_check_custom_backend_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_custom_backend_LDADD = $(BACKEND_TEST_LDADD)
test_mpi_vs_local_SOURCES = test/mpi_vs_local.c test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_vs_local_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_mpi_vs_local_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/check_local_backend test/check_local_backend_safety \
	test/check_custom_backend \
	test/mpi_vs_local-np1.mpitest test/mpi_vs_local-np2.mpitest \
	test/mpi_vs_local-np3.mpitest test/mpi_vs_local-np4.mpitest

# Gloo: one C++ file in its own convenience library (C++ flags, Gloo's
# headers).
include_HEADERS += include/tcomm_gloo.h include/tcomm_nccl.h
if TCOMM_HAVE_GLOO
noinst_LTLIBRARIES += src/libtcomm_gloo.la
src_libtcomm_gloo_la_SOURCES = src/backend_gloo.cc
src_libtcomm_gloo_la_CPPFLAGS = $(AM_CPPFLAGS) $(GLOO_CPPFLAGS)
src_libtcomm_gloo_la_CXXFLAGS = -std=gnu++17 -Wall -Wextra \
	-Wno-unused-parameter -fvisibility=hidden
src_libtcomm_gloo_la_LIBADD = $(GLOO_LIBS)
# Linked as C: libtool's C++ tag would drop -lstdc++ from the library's
# dependencies, and every C program that links libtcomm needs it.
src_libtcomm_gloo_la_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC \
	$(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CCLD) $(AM_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
libtcomm_internal_la_LIBADD += src/libtcomm_gloo.la
# The C++ standard library's template instances have default visibility:
# keep the shared library's exports to the tcomm_ API.
libtcomm_la_LDFLAGS += -export-symbols-regex '^tcomm_'

# The correctness matrix over Gloo at 1-4 ranks (mpirun only launches
# the processes and shares the store directory).
check_PROGRAMS += test/mpi_gloo
test_mpi_gloo_SOURCES = test/mpi_gloo.c test/backend_matrix.c \
	test/backend_matrix.h test/mpi_reference.c test/mpi_reference.h
test_mpi_gloo_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_mpi_gloo_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/mpi_gloo-np1.mpitest test/mpi_gloo-np2.mpitest \
	test/mpi_gloo-np3.mpitest test/mpi_gloo-np4.mpitest
endif

# Without Gloo or NCCL, their create functions answer
# TCOMM_ERR_UNSUPPORTED.
libtcomm_internal_la_SOURCES += src/backend_absent.c

# NCCL: for CUDA graphs, in its own convenience library (only cuda/ sees
# the CUDA and NCCL headers). Its test skips (77) without a GPU.
if TCOMM_HAVE_NCCL
noinst_LTLIBRARIES += cuda/libtcomm_nccl.la
cuda_libtcomm_nccl_la_SOURCES = cuda/backend_nccl.c
cuda_libtcomm_nccl_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	$(NCCL_CPPFLAGS)
cuda_libtcomm_nccl_la_LIBADD = $(NCCL_LIBS)
libtcomm_internal_la_LIBADD += cuda/libtcomm_nccl.la

check_PROGRAMS += test/gpu/gpu_nccl
test_gpu_gpu_nccl_SOURCES = test/gpu/gpu_nccl.c test/backend_matrix.c \
	test/backend_matrix.h test/mpi_reference.c test/mpi_reference.h
test_gpu_gpu_nccl_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test
test_gpu_gpu_nccl_LDADD = libtcomm_internal.la
TESTS += test/gpu/gpu_nccl-np1.mpitest test/gpu/gpu_nccl-np2.mpitest
endif
