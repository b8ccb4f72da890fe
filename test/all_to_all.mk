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

# all_to_all_v's single copies on one node (issue 18): mapped, private,
# unchecked, failing copies, another PID namespace.
check_PROGRAMS += test/mpi_node_a2a_v
test_mpi_node_a2a_v_SOURCES = test/mpi_node_a2a_v.c test/mpi_a2a_ref.c \
	test/mpi_a2a_ref.h test/mpi_reference.c test/mpi_reference.h \
	test/node_suite.c test/node_suite.h test/node_map_count.c \
	test/node_map_count.h test/trace_count.h
test_mpi_node_a2a_v_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_node_a2a_v_LDADD = libtcomm_internal.la $(CHECK_LIBS)
test_mpi_node_a2a_v_LDFLAGS = -Wl,--wrap=tcomm_node_mapped
TESTS += test/mpi_node_a2a_v-np1.mpitest test/mpi_node_a2a_v-np2.mpitest \
	test/mpi_node_a2a_v-np3.mpitest test/mpi_node_a2a_v-np4.mpitest

# -- MPI backend, device tensors (sim, CUDA) --
# reduce_scatter_v on host tensors (the MPI backend's host path).
check_PROGRAMS += test/mpi_reduce_scatter_v
test_mpi_reduce_scatter_v_SOURCES = test/mpi_reduce_scatter_v.c \
	test/mpi_reference.c test/mpi_reference.h
test_mpi_reduce_scatter_v_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_reduce_scatter_v_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_reduce_scatter_v-np1.mpitest \
	test/mpi_reduce_scatter_v-np2.mpitest \
	test/mpi_reduce_scatter_v-np3.mpitest \
	test/mpi_reduce_scatter_v-np4.mpitest
# all_to_all, all_to_all_v and reduce_scatter_v on sim graphs, staged
# and direct.
check_PROGRAMS += test/mpi_device_a2a
test_mpi_device_a2a_SOURCES = test/mpi_device_a2a.c \
	test/mpi_device_a2a_ref.c test/mpi_device_a2a_ref.h \
	test/mpi_reference.c test/mpi_reference.h
test_mpi_device_a2a_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_device_a2a_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_device_a2a-np1.mpitest test/mpi_device_a2a-np2.mpitest \
	test/mpi_device_a2a-np3.mpitest test/mpi_device_a2a-np4.mpitest
# The same on CUDA graphs (exit 77 without a GPU; test/gpu/run.sh).
if TCOMM_HAVE_CUDA
check_PROGRAMS += test/gpu/gpu_all_to_all
test_gpu_gpu_all_to_all_SOURCES = test/gpu/gpu_all_to_all.c \
	test/gpu/gpu_util.h test/mpi_device_a2a_ref.c \
	test/mpi_device_a2a_ref.h test/mpi_reference.c test/mpi_reference.h
test_gpu_gpu_all_to_all_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test
test_gpu_gpu_all_to_all_LDADD = libtcomm_internal.la
TESTS += test/gpu/gpu_all_to_all-np1.mpitest \
	test/gpu/gpu_all_to_all-np2.mpitest
endif

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
# The pencil-swap examples (doc/examples/transpose2d.*): a 2-D DFT over
# row slabs, checked against a serial transform, even at 1 and 2 ranks
# (all_to_all), uneven at 3 and 4 (all_to_all_v).
check_PROGRAMS += examples-bin/transpose2d_c
examples_bin_transpose2d_c_SOURCES = doc/examples/transpose2d.c
examples_bin_transpose2d_c_LDADD = libtcomm.la -lm
TESTS += examples-bin/transpose2d_c-np1.mpitest \
	examples-bin/transpose2d_c-np2.mpitest \
	examples-bin/transpose2d_c-np3.mpitest \
	examples-bin/transpose2d_c-np4.mpitest
if TCOMM_HAVE_FORTRAN
check_PROGRAMS += examples-bin/transpose2d_f
examples_bin_transpose2d_f_SOURCES = doc/examples/transpose2d.f90
examples_bin_transpose2d_f_FCFLAGS = $(tcomm_f_prog_flags)
examples_bin_transpose2d_f_LDADD = $(tcomm_f_prog_libs)
TESTS += examples-bin/transpose2d_f-np1.mpitest \
	examples-bin/transpose2d_f-np2.mpitest \
	examples-bin/transpose2d_f-np3.mpitest \
	examples-bin/transpose2d_f-np4.mpitest

# The module's all_to_all, all_to_all_v and reduce_scatter_v for every
# kind (TK), at 1-4 ranks (test/fortran/all_to_all.F90).
check_PROGRAMS += test/fortran_a2a_r4 test/fortran_a2a_r8 \
	test/fortran_a2a_i4 test/fortran_a2a_i8 test/fortran_a2a_i1
test_fortran_a2a_r4_SOURCES = test/fortran/all_to_all.F90
test_fortran_a2a_r4_FCFLAGS = $(tcomm_f_prog_flags) -DTK_R4
test_fortran_a2a_r4_LDADD = $(tcomm_f_prog_libs)
test_fortran_a2a_r8_SOURCES = test/fortran/all_to_all.F90
test_fortran_a2a_r8_FCFLAGS = $(tcomm_f_prog_flags) -DTK_R8
test_fortran_a2a_r8_LDADD = $(tcomm_f_prog_libs)
test_fortran_a2a_i4_SOURCES = test/fortran/all_to_all.F90
test_fortran_a2a_i4_FCFLAGS = $(tcomm_f_prog_flags) -DTK_I4
test_fortran_a2a_i4_LDADD = $(tcomm_f_prog_libs)
test_fortran_a2a_i8_SOURCES = test/fortran/all_to_all.F90
test_fortran_a2a_i8_FCFLAGS = $(tcomm_f_prog_flags) -DTK_I8
test_fortran_a2a_i8_LDADD = $(tcomm_f_prog_libs)
test_fortran_a2a_i1_SOURCES = test/fortran/all_to_all.F90
test_fortran_a2a_i1_FCFLAGS = $(tcomm_f_prog_flags) -DTK_I1
test_fortran_a2a_i1_LDADD = $(tcomm_f_prog_libs)
TESTS += test/fortran_a2a_r4-np1.mpitest test/fortran_a2a_r4-np2.mpitest \
	test/fortran_a2a_r4-np3.mpitest test/fortran_a2a_r4-np4.mpitest
TESTS += test/fortran_a2a_r8-np1.mpitest test/fortran_a2a_r8-np2.mpitest \
	test/fortran_a2a_r8-np3.mpitest test/fortran_a2a_r8-np4.mpitest
TESTS += test/fortran_a2a_i4-np1.mpitest test/fortran_a2a_i4-np2.mpitest \
	test/fortran_a2a_i4-np3.mpitest test/fortran_a2a_i4-np4.mpitest
TESTS += test/fortran_a2a_i8-np1.mpitest test/fortran_a2a_i8-np2.mpitest \
	test/fortran_a2a_i8-np3.mpitest test/fortran_a2a_i8-np4.mpitest
TESTS += test/fortran_a2a_i1-np1.mpitest test/fortran_a2a_i1-np2.mpitest \
	test/fortran_a2a_i1-np3.mpitest test/fortran_a2a_i1-np4.mpitest
# Their sections and errors (test/fortran/all_to_all_errors.f90).
check_PROGRAMS += test/fortran_a2a_errors
test_fortran_a2a_errors_SOURCES = test/fortran/all_to_all_errors.f90
test_fortran_a2a_errors_FCFLAGS = $(tcomm_f_prog_flags)
test_fortran_a2a_errors_LDADD = $(tcomm_f_prog_libs)
TESTS += test/fortran_a2a_errors-np1.mpitest \
	test/fortran_a2a_errors-np2.mpitest \
	test/fortran_a2a_errors-np3.mpitest \
	test/fortran_a2a_errors-np4.mpitest
$(test_fortran_a2a_r4_OBJECTS) $(test_fortran_a2a_r8_OBJECTS) \
$(test_fortran_a2a_i4_OBJECTS) $(test_fortran_a2a_i8_OBJECTS) \
$(test_fortran_a2a_i1_OBJECTS) $(test_fortran_a2a_errors_OBJECTS) \
$(examples_bin_transpose2d_f_OBJECTS): src/fortran/tcomm.mod
endif

# -- harness --
# osu_tcomm_alltoall's options and a -c run of every (split, concat) pair,
# equal and uneven, at 1-4 ranks (test/bench_lib.sh starts them).
TESTS += test/bench_alltoall.sh
EXTRA_DIST += test/bench_alltoall.sh
