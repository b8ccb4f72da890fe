# SPDX-License-Identifier: BSD-3-Clause
# Backends beside MPI (issue 9): local (N ranks as N threads, always
# built), Gloo (--with-gloo) and NCCL (--with-nccl), their tests, and the
# user-defined backend's test.

# local: the mock backend, an independent reference for the MPI suites.
libtcomm_internal_la_SOURCES += src/backend_local_world.h \
	src/backend_local.c src/backend_local_colls.c

BACKEND_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/test
BACKEND_TEST_LDADD = libtcomm_internal.la $(CHECK_LIBS)

check_PROGRAMS += test/check_local_backend test/check_local_backend_safety \
	test/check_custom_backend test/mpi_vs_local
test_check_local_backend_SOURCES = test/check_local_backend.c \
	test/backend_matrix.c test/backend_matrix.h \
	test/mpi_reference.c test/mpi_reference.h
test_check_local_backend_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_check_local_backend_LDADD = $(BACKEND_TEST_LDADD)
test_check_local_backend_safety_SOURCES = test/check_local_backend_safety.c
test_check_local_backend_safety_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_check_local_backend_safety_LDADD = $(BACKEND_TEST_LDADD)
test_check_custom_backend_SOURCES = test/check_custom_backend.c
test_check_custom_backend_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_custom_backend_LDADD = $(BACKEND_TEST_LDADD)
test_mpi_vs_local_SOURCES = test/mpi_vs_local.c test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_vs_local_CFLAGS = $(BACKEND_TEST_CFLAGS)
test_mpi_vs_local_LDADD = $(BACKEND_TEST_LDADD)
TESTS += test/check_local_backend test/check_local_backend_safety \
	test/check_custom_backend \
	test/mpi_vs_local-np1.mpitest test/mpi_vs_local-np2.mpitest \
	test/mpi_vs_local-np3.mpitest test/mpi_vs_local-np4.mpitest
