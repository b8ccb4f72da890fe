# SPDX-License-Identifier: BSD-3-Clause
# Host kernels and MPI algorithms (mpi_kernels/), and their tests.
libtcomm_internal_la_SOURCES += \
	mpi_kernels/tcomm_host_kernels.h \
	mpi_kernels/tcomm_half.h \
	mpi_kernels/tcomm_reshape_index.h \
	mpi_kernels/tcomm_mpi_kernels.h \
	mpi_kernels/tcomm_mpi_reshape.h \
	mpi_kernels/tcomm_mpi_ops.c \
	mpi_kernels/tcomm_mpi_large.c \
	mpi_kernels/tcomm_mpi_allgather_dim.c \
	mpi_kernels/tcomm_mpi_allgather_cand.c \
	mpi_kernels/tcomm_mpi_pull.c \
	mpi_kernels/tcomm_mpi_reduce_scatter_dim.c

# The element-wise loops are built with the vectorizer's dynamic cost
# model: -O2's default ("very cheap") refuses every loop that needs an
# epilogue or an alias check. Explicit -f options win over the -O level
# whatever the order, so the user's CFLAGS (-O2 -g) do not undo them.
noinst_LTLIBRARIES += libtcomm_hostkern.la
libtcomm_hostkern_la_SOURCES = \
	mpi_kernels/tcomm_host_reduce.c \
	mpi_kernels/tcomm_host_half_x86.c \
	mpi_kernels/tcomm_host_reshape.c
libtcomm_hostkern_la_CFLAGS = $(AM_CFLAGS) -ftree-vectorize \
	-fvect-cost-model=dynamic
libtcomm_internal_la_LIBADD += libtcomm_hostkern.la

# Single-process Check suite of the host kernels.
check_PROGRAMS += test/check_kernels
TESTS += test/check_kernels
test_check_kernels_SOURCES = test/check_kernels.c
test_check_kernels_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_kernels_LDADD = libtcomm_internal.la $(CHECK_LIBS) -lm

# MPI suite of the wrappers and reshaping collectives, on 1-4 ranks.
check_PROGRAMS += test/mpi_kernels
TESTS += test/mpi_kernels-np1.mpitest test/mpi_kernels-np2.mpitest \
	test/mpi_kernels-np3.mpitest test/mpi_kernels-np4.mpitest
test_mpi_kernels_SOURCES = test/mpi_kernels.c
test_mpi_kernels_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_kernels_LDADD = libtcomm_internal.la $(CHECK_LIBS) -lm

# Candidates of the reshaping collectives against raw MPI (not installed):
# mpirun -np 2 bench/reshape_candidates
noinst_PROGRAMS += bench/reshape_candidates
bench_reshape_candidates_SOURCES = bench/reshape_candidates.c
bench_reshape_candidates_LDADD = libtcomm_internal.la

# MPI suite of the single-copy pull of all_gather along dim > 0, 1-4 ranks.
check_PROGRAMS += test/mpi_pull
TESTS += test/mpi_pull-np1.mpitest test/mpi_pull-np2.mpitest \
	test/mpi_pull-np3.mpitest test/mpi_pull-np4.mpitest
test_mpi_pull_SOURCES = test/mpi_pull.c
test_mpi_pull_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_pull_LDADD = libtcomm_internal.la $(CHECK_LIBS)
