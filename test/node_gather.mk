# SPDX-License-Identifier: BSD-3-Clause
# The single-copy all_gather on one node (src/mpi/node/node_gather.c):
# its protocol at 1-4 ranks, its fallbacks, the public call around it.
check_PROGRAMS += test/mpi_node_gather
test_mpi_node_gather_SOURCES = test/mpi_node_gather.c test/node_suite.c \
	test/node_suite.h
test_mpi_node_gather_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_node_gather_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_node_gather-np1.mpitest test/mpi_node_gather-np2.mpitest \
	test/mpi_node_gather-np3.mpitest test/mpi_node_gather-np4.mpitest
