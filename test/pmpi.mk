# SPDX-License-Identifier: BSD-3-Clause
# libtcomm_pmpi under unmodified MPI programs: plain MPI test programs
# (no tcomm in them) run with and without the library
# (test/pmpi-check.sh).
check_PROGRAMS += test/pmpi/colls test/pmpi/nocoll
test_pmpi_colls_SOURCES = test/pmpi/colls.c
test_pmpi_nocoll_SOURCES = test/pmpi/nocoll.c
TESTS += test/pmpi-check.sh
EXTRA_DIST += test/pmpi-check.sh
