# SPDX-License-Identifier: BSD-3-Clause
# The tests of contract 0.2's all_to_all, all_to_all_v and
# reduce_scatter_v (issue 16), one section per part.

# -- front end: validation and cross-rank agreement --
check_PROGRAMS += test/mpi_all_to_all_errors
test_mpi_all_to_all_errors_SOURCES = test/mpi_all_to_all_errors.c \
	test/mpi_safety.h
test_mpi_all_to_all_errors_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_all_to_all_errors_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_all_to_all_errors-np1.mpitest \
	test/mpi_all_to_all_errors-np2.mpitest \
	test/mpi_all_to_all_errors-np3.mpitest \
	test/mpi_all_to_all_errors-np4.mpitest

# -- MPI backend, host tensors --
check_PROGRAMS += test/mpi_all_to_all
test_mpi_all_to_all_SOURCES = test/mpi_all_to_all.c test/mpi_a2a_ref.c \
	test/mpi_a2a_ref.h test/mpi_reference.c test/mpi_reference.h
test_mpi_all_to_all_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_all_to_all_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_all_to_all-np1.mpitest test/mpi_all_to_all-np2.mpitest \
	test/mpi_all_to_all-np3.mpitest test/mpi_all_to_all-np4.mpitest

# -- MPI backend, device tensors (sim, CUDA) --

# -- the other backends (local, Gloo, NCCL, custom) --
# The matrix of test/a2a_matrix.c (every dtype, op, dim pair, both
# all_to_all_v modes with zero-size pieces) on the local backend (threads,
# host and sim graphs) and on Gloo at 1-4 ranks.
A2A_MATRIX_SOURCES = test/a2a_matrix.c test/a2a_matrix.h \
	test/backend_matrix.c test/backend_matrix.h test/mpi_reference.c \
	test/mpi_reference.h
check_PROGRAMS += test/check_local_a2a
test_check_local_a2a_SOURCES = test/check_local_a2a.c $(A2A_MATRIX_SOURCES)
test_check_local_a2a_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_check_local_a2a_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/check_local_a2a
# The local backend as the MPI backend's bitwise reference (deterministic
# mode); skips while the MPI slots are the scaffolding's placeholders.
check_PROGRAMS += test/mpi_vs_local_a2a
test_mpi_vs_local_a2a_SOURCES = test/mpi_vs_local_a2a.c $(A2A_MATRIX_SOURCES)
test_mpi_vs_local_a2a_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_mpi_vs_local_a2a_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/mpi_vs_local_a2a-np1.mpitest test/mpi_vs_local_a2a-np2.mpitest \
	test/mpi_vs_local_a2a-np3.mpitest test/mpi_vs_local_a2a-np4.mpitest
# A user backend: the three slots absent (size 0, NULL) or called with
# the contract's sizes.
check_PROGRAMS += test/check_custom_a2a
test_check_custom_a2a_SOURCES = test/check_custom_a2a.c
test_check_custom_a2a_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_custom_a2a_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/check_custom_a2a
if TCOMM_HAVE_GLOO
check_PROGRAMS += test/mpi_gloo_a2a
test_mpi_gloo_a2a_SOURCES = test/mpi_gloo_a2a.c $(A2A_MATRIX_SOURCES)
test_mpi_gloo_a2a_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_mpi_gloo_a2a_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/mpi_gloo_a2a-np1.mpitest test/mpi_gloo_a2a-np2.mpitest \
	test/mpi_gloo_a2a-np3.mpitest test/mpi_gloo_a2a-np4.mpitest
endif
# NCCL on CUDA graphs: skips (77) without a device per rank.
if TCOMM_HAVE_NCCL
check_PROGRAMS += test/gpu/gpu_nccl_a2a
test_gpu_gpu_nccl_a2a_SOURCES = test/gpu/gpu_nccl_a2a.c $(A2A_MATRIX_SOURCES)
test_gpu_gpu_nccl_a2a_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test
test_gpu_gpu_nccl_a2a_LDADD = libtcomm_internal.la
TESTS += test/gpu/gpu_nccl_a2a-np1.mpitest test/gpu/gpu_nccl_a2a-np2.mpitest
endif

# -- Fortran and the examples --

# -- harness --
# osu_tcomm_alltoall's options and a -c run of every (split, concat) pair,
# equal and uneven, at 1-4 ranks (test/bench_lib.sh starts them).
TESTS += test/bench_alltoall.sh
EXTRA_DIST += test/bench_alltoall.sh
