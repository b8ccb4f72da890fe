# SPDX-License-Identifier: BSD-3-Clause
# Cross-rank safety (issue 3): the MPI suites of the agreement, the
# timeout layer and one node's shared memory, run under mpirun
# (test/NAME-npN.mpitest) with a timeout, so that a hang fails the test.
SAFETY_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
SAFETY_TEST_LDADD = libtcomm_internal.la $(CHECK_LIBS)

check_PROGRAMS += test/mpi_errors test/mpi_mismatch test/mpi_timeout \
	test/mpi_determinism test/mpi_unchecked_timeout test/mpi_intercomm \
	test/mpi_unchecked_matrix
test_mpi_errors_SOURCES = test/mpi_errors.c test/mpi_safety.h
test_mpi_errors_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_errors_LDADD = $(SAFETY_TEST_LDADD)
test_mpi_mismatch_SOURCES = test/mpi_mismatch.c test/mpi_safety.h
test_mpi_mismatch_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_mismatch_LDADD = $(SAFETY_TEST_LDADD)
test_mpi_timeout_SOURCES = test/mpi_timeout.c
test_mpi_timeout_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_timeout_LDADD = $(SAFETY_TEST_LDADD)
test_mpi_determinism_SOURCES = test/mpi_determinism.c
test_mpi_determinism_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_determinism_LDADD = $(SAFETY_TEST_LDADD)
test_mpi_unchecked_timeout_SOURCES = test/mpi_unchecked_timeout.c
test_mpi_unchecked_timeout_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_unchecked_timeout_LDADD = $(SAFETY_TEST_LDADD)
test_mpi_unchecked_matrix_SOURCES = test/mpi_unchecked_matrix.c
test_mpi_unchecked_matrix_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_unchecked_matrix_LDADD = $(SAFETY_TEST_LDADD)
test_mpi_intercomm_SOURCES = test/mpi_intercomm.c
test_mpi_intercomm_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_intercomm_LDADD = $(SAFETY_TEST_LDADD)

TESTS += test/mpi_errors-np1.mpitest test/mpi_errors-np2.mpitest \
	test/mpi_errors-np3.mpitest test/mpi_errors-np4.mpitest \
	test/mpi_mismatch-np2.mpitest test/mpi_mismatch-np3.mpitest \
	test/mpi_mismatch-np4.mpitest \
	test/mpi_timeout-np2.mpitest test/mpi_timeout-np3.mpitest \
	test/mpi_timeout-np4.mpitest \
	test/mpi_determinism-np1.mpitest test/mpi_determinism-np2.mpitest \
	test/mpi_determinism-np3.mpitest test/mpi_determinism-np4.mpitest \
	test/mpi_unchecked_timeout-np2.mpitest \
	test/mpi_unchecked_timeout-np3.mpitest \
	test/mpi_unchecked_timeout-np4.mpitest \
	test/mpi_unchecked_matrix-np2.mpitest \
	test/mpi_unchecked_matrix-np3.mpitest \
	test/mpi_unchecked_matrix-np4.mpitest \
	test/mpi_intercomm-np2.mpitest test/mpi_intercomm-np3.mpitest \
	test/mpi_intercomm-np4.mpitest

# The cost of checked and deterministic mode against raw MPI (not
# installed): mpirun -np 2 bench/check_cost [max_bytes [min_bytes]]
noinst_PROGRAMS += bench/check_cost
bench_check_cost_SOURCES = bench/check_cost.c
bench_check_cost_LDADD = libtcomm.la

# The shared-memory agreement round against MPI, and MPI progress while
# a rank waits in it.
check_PROGRAMS += test/mpi_shm_agree
test_mpi_shm_agree_SOURCES = test/mpi_shm_agree.c
test_mpi_shm_agree_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_shm_agree_LDADD = $(SAFETY_TEST_LDADD)
TESTS += test/mpi_shm_agree-np1.mpitest test/mpi_shm_agree-np2.mpitest \
	test/mpi_shm_agree-np3.mpitest test/mpi_shm_agree-np4.mpitest

# The shared-copy broadcast on one node: protocol, fallback, switch.
check_PROGRAMS += test/mpi_node_broadcast
test_mpi_node_broadcast_SOURCES = test/mpi_node_broadcast.c test/node_suite.c \
	test/node_suite.h
test_mpi_node_broadcast_CFLAGS = $(SAFETY_TEST_CFLAGS)
test_mpi_node_broadcast_LDADD = $(SAFETY_TEST_LDADD)
TESTS += test/mpi_node_broadcast-np1.mpitest test/mpi_node_broadcast-np2.mpitest \
	test/mpi_node_broadcast-np3.mpitest test/mpi_node_broadcast-np4.mpitest
