# SPDX-License-Identifier: BSD-3-Clause
# Small calls completed in the agreement's round (issue 18,
# src/frontend/eager.c): every kind, dtype and op against the reference,
# the calls left to the backend and those refused, at 1-4 ranks.
check_PROGRAMS += test/mpi_eager
test_mpi_eager_SOURCES = test/mpi_eager.c test/mpi_reference.c \
	test/mpi_reference.h test/trace_count.h
test_mpi_eager_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_eager_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_eager-np1.mpitest test/mpi_eager-np2.mpitest \
	test/mpi_eager-np3.mpitest test/mpi_eager-np4.mpitest

# The same suite over the carrying MPI round that ranks on several nodes
# use (src/mpi/carry_round.c; test hook TCOMM_HOOK_NO_NODE_ROUND).
check_PROGRAMS += test/mpi_eager_net
test_mpi_eager_net_SOURCES = $(test_mpi_eager_SOURCES)
test_mpi_eager_net_CFLAGS = $(test_mpi_eager_CFLAGS) -DEAGER_OVER_MPI
test_mpi_eager_net_LDADD = $(test_mpi_eager_LDADD)
TESTS += test/mpi_eager_net-np1.mpitest test/mpi_eager_net-np2.mpitest \
	test/mpi_eager_net-np3.mpitest test/mpi_eager_net-np4.mpitest
