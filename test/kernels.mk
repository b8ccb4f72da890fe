# SPDX-License-Identifier: BSD-3-Clause
# Tests of the host kernels (mpi_kernels/) and of the MPI backend's
# algorithms along a dim and single-copy pull (src/mpi/).
# Single-process Check suite of the host kernels.
check_PROGRAMS += test/check_kernels
TESTS += test/check_kernels
test_check_kernels_SOURCES = test/check_kernels.c
test_check_kernels_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_kernels_LDADD = libtcomm_internal.la $(CHECK_LIBS) -lm

# Single-process Check suite of the shared tensor arena and the host
# space over it (src/core/host_arena.c, src/core/host_memory.c).
check_PROGRAMS += test/check_host_arena
TESTS += test/check_host_arena
test_check_host_arena_SOURCES = test/check_host_arena.c
test_check_host_arena_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_host_arena_LDADD = libtcomm_internal.la $(CHECK_LIBS)

# MPI suite of the wrappers and reshaping collectives, on 1-4 ranks.
check_PROGRAMS += test/mpi_kernels
TESTS += test/mpi_kernels-np1.mpitest test/mpi_kernels-np2.mpitest \
	test/mpi_kernels-np3.mpitest test/mpi_kernels-np4.mpitest
test_mpi_kernels_SOURCES = test/mpi_kernels.c bench/allgather_candidates.c \
	bench/allgather_candidates.h
test_mpi_kernels_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
test_mpi_kernels_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_kernels_LDADD = libtcomm_internal.la $(CHECK_LIBS) -lm

# MPI suite of the single-copy pull of all_gather along dim > 0, 1-4 ranks.
check_PROGRAMS += test/mpi_pull
TESTS += test/mpi_pull-np1.mpitest test/mpi_pull-np2.mpitest \
	test/mpi_pull-np3.mpitest test/mpi_pull-np4.mpitest
test_mpi_pull_SOURCES = test/mpi_pull.c
test_mpi_pull_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_pull_LDADD = libtcomm_internal.la $(CHECK_LIBS)

# The pull above TCOMM_STACK_RANKS ranks (its table on the heap), once,
# on 130 ranks (about 15 s oversubscribed on 2 cores; the script skips
# where /dev/shm is too small for 130 ranks).
check_PROGRAMS += test/mpi_pull_many
TESTS += test/mpi_pull_many.sh
EXTRA_DIST += test/mpi_pull_many.sh
test_mpi_pull_many_SOURCES = test/mpi_pull_many.c
test_mpi_pull_many_LDADD = libtcomm_internal.la
