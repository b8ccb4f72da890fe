# SPDX-License-Identifier: BSD-3-Clause
# The single-copy all_reduce and reduce_scatter on one node (issue 18,
# src/mpi/node/node_reduce.c): protocol, fold order, fallback, public
# calls, at 1-4 ranks.
check_PROGRAMS += test/mpi_node_reduce
test_mpi_node_reduce_SOURCES = test/mpi_node_reduce.c test/mpi_reference.c \
	test/node_suite.c test/node_suite.h \
	test/mpi_reference.h
test_mpi_node_reduce_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_node_reduce_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_node_reduce-np1.mpitest test/mpi_node_reduce-np2.mpitest \
	test/mpi_node_reduce-np3.mpitest test/mpi_node_reduce-np4.mpitest
