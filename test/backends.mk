# SPDX-License-Identifier: BSD-3-Clause
# Tests of the backends beside MPI (src/backends/) and of user-defined
# backends.
BACKEND_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/test
BACKEND_TEST_LDADD = libtcomm_internal.la $(CHECK_LIBS)

# local: the mock backend, an independent reference for the MPI suites.
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
# The vtable's collective slot, and a table laid out as 1:0:0's header.
check_PROGRAMS += test/check_custom_args
test_check_custom_args_SOURCES = test/check_custom_args.c
test_check_custom_args_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_custom_args_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/check_local_backend test/check_local_backend_safety \
	test/check_custom_backend test/check_custom_args \
	test/mpi_vs_local-np1.mpitest test/mpi_vs_local-np2.mpitest \
	test/mpi_vs_local-np3.mpitest test/mpi_vs_local-np4.mpitest

# The correctness matrix over Gloo at 1-4 ranks (mpirun only launches
# the processes and shares the store directory).
if TCOMM_HAVE_GLOO
check_PROGRAMS += test/mpi_gloo
test_mpi_gloo_SOURCES = test/mpi_gloo.c test/backend_matrix.c \
	test/backend_matrix.h test/mpi_reference.c test/mpi_reference.h
test_mpi_gloo_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_mpi_gloo_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/mpi_gloo-np1.mpitest test/mpi_gloo-np2.mpitest \
	test/mpi_gloo-np3.mpitest test/mpi_gloo-np4.mpitest
endif

# NCCL's matrix skips (77) without a GPU.
if TCOMM_HAVE_NCCL
check_PROGRAMS += test/gpu/gpu_nccl
test_gpu_gpu_nccl_SOURCES = test/gpu/gpu_nccl.c test/backend_matrix.c \
	test/backend_matrix.h test/mpi_reference.c test/mpi_reference.h
test_gpu_gpu_nccl_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test
test_gpu_gpu_nccl_LDADD = libtcomm_internal.la
TESTS += test/gpu/gpu_nccl-np1.mpitest test/gpu/gpu_nccl-np2.mpitest
endif
