# SPDX-License-Identifier: BSD-3-Clause
# libtcomm_pmpi under unmodified MPI programs: plain MPI test programs
# (no tcomm in them) run with and without the library
# (test/pmpi-check.sh).
check_PROGRAMS += test/pmpi/colls test/pmpi/nocoll test/pmpi/icolls \
	test/pmpi/calls test/pmpi/threads
test_pmpi_colls_SOURCES = test/pmpi/colls.c test/pmpi/pmpi_test.h
test_pmpi_calls_SOURCES = test/pmpi/calls.c test/pmpi/pmpi_test.h
test_pmpi_threads_SOURCES = test/pmpi/threads.c test/pmpi/pmpi_test.h
test_pmpi_nocoll_SOURCES = test/pmpi/nocoll.c
test_pmpi_icolls_SOURCES = test/pmpi/icolls.c test/pmpi/pmpi_test.h
TESTS += test/pmpi-check.sh
EXTRA_DIST += test/pmpi-check.sh

# OSU's validating collective programs under the library, from an OSU 7.x
# build named by OSU_DIR (nothing is fetched; skips without it).
TESTS += scripts/pmpi-validate.sh
EXTRA_DIST += scripts/pmpi-validate.sh

# The same from Fortran: mpif.h, `use mpi` and `use mpi_f08` (fcolls.inc
# is the body of all three). mpif.h's untyped buffers need gfortran's
# -fallow-argument-mismatch where it has it (configure's
# TCOMM_FC_MISMATCH).
EXTRA_DIST += test/pmpi/fcolls.inc
if TCOMM_HAVE_FORTRAN
check_PROGRAMS += test/pmpi/fmpifh test/pmpi/fusempi
test_pmpi_fmpifh_SOURCES = test/pmpi/fmpifh.F90
test_pmpi_fmpifh_FCFLAGS = $(TCOMM_FC_MISMATCH) -I$(srcdir)/test/pmpi
test_pmpi_fusempi_SOURCES = test/pmpi/fusempi.F90
test_pmpi_fusempi_FCFLAGS = -I$(srcdir)/test/pmpi
# Automake tracks what a C source includes, not what a Fortran one does:
# the programs rebuild when their shared body changes.
test/pmpi/fmpifh-fmpifh.$(OBJEXT) test/pmpi/fusempi-fusempi.$(OBJEXT): \
	$(srcdir)/test/pmpi/fcolls.inc
if TCOMM_HAVE_FORTRAN_F08
check_PROGRAMS += test/pmpi/ff08
test_pmpi_ff08_SOURCES = test/pmpi/ff08.F90
test_pmpi_ff08_FCFLAGS = -I$(srcdir)/test/pmpi
test/pmpi/ff08-ff08.$(OBJEXT): $(srcdir)/test/pmpi/fcolls.inc
endif
endif
