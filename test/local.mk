# SPDX-License-Identifier: BSD-3-Clause
# Core tests (test/): Check suites in one process, MPI suites under
# mpirun at 1-4 ranks (test/NAME-npN.mpitest), and the install check.
check_PROGRAMS += test/check_core
test_check_core_SOURCES = test/check_core.c test/check_tensor.c
test_check_core_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_core_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/check_core

check_PROGRAMS += test/mpi_collectives
test_mpi_collectives_SOURCES = test/mpi_collectives.c test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_collectives_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_collectives_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_collectives-np1.mpitest test/mpi_collectives-np2.mpitest \
	test/mpi_collectives-np3.mpitest test/mpi_collectives-np4.mpitest

# An outside program against the installed library, via pkg-config.
TESTS += test/install-check.sh
EXTRA_DIST += test/install-check.sh test/contract_program.c test/mpi_suite.h

# README.md's C and Fortran examples, compiled with its build-tree
# commands and run at 1-4 ranks.
TESTS += test/readme-check.sh
EXTRA_DIST += test/readme-check.sh

# tcomm_info runs and prints every setting.
TESTS += test/tcomm-info-check.sh
EXTRA_DIST += test/tcomm-info-check.sh

# Cross-rank safety: errors, mismatches, timeout, determinism.
include test/local_safety.mk

# The exported dynamic symbols are exactly the public API.
TESTS += test/symbols-check.sh
EXTRA_DIST += test/symbols-check.sh test/exported-symbols.txt
