# SPDX-License-Identifier: BSD-3-Clause
# Nonblocking collectives (issue 17): the starts, tcomm_wait/test/
# wait_all, progress without calls, the errors and the timeout under
# mpirun at 1-4 ranks, and the local backend's ranks as threads.
NB_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
NB_TEST_LDADD = libtcomm_internal.la $(CHECK_LIBS)

check_PROGRAMS += test/mpi_nonblocking test/mpi_nonblocking_progress \
	test/mpi_nonblocking_errors test/mpi_nonblocking_timeout \
	test/check_local_nonblocking
test_mpi_nonblocking_SOURCES = test/mpi_nonblocking.c \
	test/mpi_nonblocking.h test/nonblocking_ref.h test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_nonblocking_CFLAGS = $(NB_TEST_CFLAGS)
test_mpi_nonblocking_LDADD = $(NB_TEST_LDADD)
test_mpi_nonblocking_progress_SOURCES = test/mpi_nonblocking_progress.c \
	test/mpi_nonblocking.h test/nonblocking_ref.h test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_nonblocking_progress_CFLAGS = $(NB_TEST_CFLAGS)
test_mpi_nonblocking_progress_LDADD = $(NB_TEST_LDADD)
# The first suite under plain MPI_Init: the caller-mode fallback.
check_PROGRAMS += test/mpi_nonblocking_single
test_mpi_nonblocking_single_SOURCES = $(test_mpi_nonblocking_SOURCES)
test_mpi_nonblocking_single_CFLAGS = $(NB_TEST_CFLAGS) -DNB_MPI_SINGLE
test_mpi_nonblocking_single_LDADD = $(NB_TEST_LDADD)
NB_SAFETY_SOURCES = test/mpi_nonblocking_safety.h test/mpi_safety.h \
	test/nonblocking_ref.h test/mpi_reference.c test/mpi_reference.h
test_mpi_nonblocking_errors_SOURCES = test/mpi_nonblocking_errors.c \
	$(NB_SAFETY_SOURCES)
test_mpi_nonblocking_errors_CFLAGS = $(NB_TEST_CFLAGS)
test_mpi_nonblocking_errors_LDADD = $(NB_TEST_LDADD)
test_mpi_nonblocking_timeout_SOURCES = test/mpi_nonblocking_timeout.c \
	$(NB_SAFETY_SOURCES)
test_mpi_nonblocking_timeout_CFLAGS = $(NB_TEST_CFLAGS)
test_mpi_nonblocking_timeout_LDADD = $(NB_TEST_LDADD)
test_check_local_nonblocking_SOURCES = test/check_local_nonblocking.c \
	test/nonblocking_ref.h test/mpi_reference.c test/mpi_reference.h
test_check_local_nonblocking_CFLAGS = $(NB_TEST_CFLAGS)
test_check_local_nonblocking_LDADD = $(NB_TEST_LDADD)

TESTS += test/mpi_nonblocking-np1.mpitest test/mpi_nonblocking-np2.mpitest \
	test/mpi_nonblocking-np3.mpitest test/mpi_nonblocking-np4.mpitest \
	test/mpi_nonblocking_progress-np1.mpitest \
	test/mpi_nonblocking_progress-np2.mpitest \
	test/mpi_nonblocking_progress-np3.mpitest \
	test/mpi_nonblocking_progress-np4.mpitest \
	test/mpi_nonblocking_single-np1.mpitest \
	test/mpi_nonblocking_single-np2.mpitest \
	test/mpi_nonblocking_single-np3.mpitest \
	test/mpi_nonblocking_single-np4.mpitest \
	test/mpi_nonblocking_errors-np1.mpitest \
	test/mpi_nonblocking_errors-np2.mpitest \
	test/mpi_nonblocking_errors-np3.mpitest \
	test/mpi_nonblocking_errors-np4.mpitest \
	test/mpi_nonblocking_timeout-np1.mpitest \
	test/mpi_nonblocking_timeout-np2.mpitest \
	test/mpi_nonblocking_timeout-np3.mpitest \
	test/mpi_nonblocking_timeout-np4.mpitest \
	test/check_local_nonblocking

# MPI_Finalize with requests in flight completes them first.
check_PROGRAMS += test/mpi_nonblocking_finalize
test_mpi_nonblocking_finalize_SOURCES = test/mpi_nonblocking_finalize.c
test_mpi_nonblocking_finalize_LDADD = libtcomm_internal.la
TESTS += test/mpi_nonblocking_finalize-np1.mpitest \
	test/mpi_nonblocking_finalize-np2.mpitest \
	test/mpi_nonblocking_finalize-np3.mpitest \
	test/mpi_nonblocking_finalize-np4.mpitest
