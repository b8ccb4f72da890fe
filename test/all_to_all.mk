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

# -- MPI backend, device tensors (sim, CUDA) --

# -- the other backends (local, Gloo, NCCL, custom) --

# -- Fortran and the examples --

# -- harness --
# osu_tcomm_alltoall's options and a -c run of every (split, concat) pair,
# equal and uneven, at 1-4 ranks (test/bench_lib.sh starts them).
TESTS += test/bench_alltoall.sh
EXTRA_DIST += test/bench_alltoall.sh
