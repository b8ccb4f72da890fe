# SPDX-License-Identifier: BSD-3-Clause
# The single copies through the peers' mapped tensor arenas (issue 18,
# src/mpi/node/node_map.c): arena, private and mixed tensors, a refused
# map, in place; every collective against the reference, at 1-4 ranks.
check_PROGRAMS += test/mpi_node_map
test_mpi_node_map_SOURCES = test/mpi_node_map.c test/node_suite.c \
	test/node_suite.h test/node_map_count.c test/node_map_count.h
test_mpi_node_map_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_node_map_LDADD = libtcomm_internal.la $(CHECK_LIBS)
# the mapped copies are counted here, not in the library
test_mpi_node_map_LDFLAGS = -Wl,--wrap=tcomm_node_mapped
TESTS += test/mpi_node_map-np1.mpitest test/mpi_node_map-np2.mpitest \
	test/mpi_node_map-np3.mpitest test/mpi_node_map-np4.mpitest

# The table of mapped arenas keyed by the arena's identity, not the pid
# alone (issue 27): a peer restarted under the same pid, unmapping.
check_PROGRAMS += test/check_node_map
test_check_node_map_SOURCES = test/check_node_map.c test/check_main.h
test_check_node_map_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_node_map_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/check_node_map
