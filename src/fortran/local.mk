# SPDX-License-Identifier: BSD-3-Clause
# Fortran bindings: libtcomm_f and the module `tcomm` (src/fortran/), their
# tests (test/fortran/), the heat-equation examples (doc/examples/) and
# tcomm-fortran.pc. Without a Fortran compiler (m4/tcomm_fortran.m4) only
# the C example is built.

EXTRA_DIST += tcomm-fortran.pc.in doc/fortran.md doc/examples/README.md \
	test/fortran/check-fortran.sh test/fortran/contract.f90 \
	test/install-fortran-check.sh

# The C example: a 2-D heat equation over a domain decomposition, checked
# against a serial run of the same problem, at 2 and 4 ranks.
check_PROGRAMS += examples-bin/heat2d_c
examples_bin_heat2d_c_SOURCES = doc/examples/heat2d.c
examples_bin_heat2d_c_LDADD = libtcomm.la -lm
TESTS += examples-bin/heat2d_c-np2.mpitest examples-bin/heat2d_c-np4.mpitest

if TCOMM_HAVE_FORTRAN
lib_LTLIBRARIES += src/fortran/libtcomm_f.la
src_fortran_libtcomm_f_la_SOURCES = src/fortran/tcomm.F90 \
	src/fortran/tcomm_f.h src/fortran/tcomm_f.c src/fortran/tcomm_f_view.c \
	src/fortran/tcomm_f_colls.c src/fortran/tcomm_f_check.c \
	src/fortran/tcomm_f_all_to_all.c src/fortran/tcomm_f_nonblocking.c
EXTRA_DIST += src/fortran/tcomm_nb_spec.inc src/fortran/tcomm_nb_body.inc
src_fortran_libtcomm_f_la_FCFLAGS = $(FC_MODOUT)src/fortran $(TCOMM_FC_DEFS)
src_fortran_libtcomm_f_la_LIBADD = libtcomm.la
src_fortran_libtcomm_f_la_LDFLAGS = -version-info $(TCOMM_LT_VERSION) \
	-no-undefined

# The module file comes with the library's Fortran object, which
# includes the nonblocking calls' fragments (automake does not track
# Fortran includes).
tcomm_f_modobj = src/fortran/libtcomm_f_la-tcomm.lo
$(tcomm_f_modobj): src/fortran/tcomm_nb_spec.inc src/fortran/tcomm_nb_body.inc
src/fortran/tcomm.mod: $(tcomm_f_modobj)
	@test -f $@ || { rm -f $(tcomm_f_modobj); \
	    $(MAKE) $(AM_MAKEFLAGS) $(tcomm_f_modobj); }
fmoddir = $(includedir)
nodist_fmod_DATA = src/fortran/tcomm.mod
pkgconfig_DATA += tcomm-fortran.pc
CLEANFILES += src/fortran/tcomm.mod

# Programs that `use tcomm` compile after the module and link both
# libraries.
tcomm_f_prog_flags = $(FC_MODINC)src/fortran
tcomm_f_prog_libs = src/fortran/libtcomm_f.la libtcomm.la

# Every collective for every kind (one program per kind: TK is the type),
# ranks 1-3, each dim, sections, scalars; error codes; calls without ierr.
check_PROGRAMS += test/fortran_colls_r4 test/fortran_colls_r8 \
	test/fortran_colls_i4 test/fortran_colls_i8 test/fortran_colls_i1
test_fortran_colls_r4_SOURCES = test/fortran/colls.F90
test_fortran_colls_r4_FCFLAGS = $(tcomm_f_prog_flags) -DTK_R4
test_fortran_colls_r4_LDADD = $(tcomm_f_prog_libs)
test_fortran_colls_r8_SOURCES = test/fortran/colls.F90
test_fortran_colls_r8_FCFLAGS = $(tcomm_f_prog_flags) -DTK_R8
test_fortran_colls_r8_LDADD = $(tcomm_f_prog_libs)
test_fortran_colls_i4_SOURCES = test/fortran/colls.F90
test_fortran_colls_i4_FCFLAGS = $(tcomm_f_prog_flags) -DTK_I4
test_fortran_colls_i4_LDADD = $(tcomm_f_prog_libs)
test_fortran_colls_i8_SOURCES = test/fortran/colls.F90
test_fortran_colls_i8_FCFLAGS = $(tcomm_f_prog_flags) -DTK_I8
test_fortran_colls_i8_LDADD = $(tcomm_f_prog_libs)
test_fortran_colls_i1_SOURCES = test/fortran/colls.F90
test_fortran_colls_i1_FCFLAGS = $(tcomm_f_prog_flags) -DTK_I1
test_fortran_colls_i1_LDADD = $(tcomm_f_prog_libs)

# Errors (codes and texts), communicators from `use mpi` handles of
# MPI_COMM_WORLD and a split, the contract program itself.
check_PROGRAMS += test/fortran_errors test/fortran_contract
test_fortran_errors_SOURCES = test/fortran/errors.f90
test_fortran_errors_FCFLAGS = $(tcomm_f_prog_flags)
test_fortran_errors_LDADD = $(tcomm_f_prog_libs)
test_fortran_contract_SOURCES = test/fortran/contract.f90
test_fortran_contract_FCFLAGS = $(tcomm_f_prog_flags)
test_fortran_contract_LDADD = $(tcomm_f_prog_libs)

TESTS += test/fortran_colls_r4-np1.mpitest test/fortran_colls_r4-np2.mpitest \
	test/fortran_colls_r4-np3.mpitest test/fortran_colls_r4-np4.mpitest
TESTS += test/fortran_colls_r8-np1.mpitest test/fortran_colls_r8-np2.mpitest \
	test/fortran_colls_r8-np3.mpitest test/fortran_colls_r8-np4.mpitest
TESTS += test/fortran_colls_i4-np1.mpitest test/fortran_colls_i4-np2.mpitest \
	test/fortran_colls_i4-np3.mpitest test/fortran_colls_i4-np4.mpitest
TESTS += test/fortran_colls_i8-np1.mpitest test/fortran_colls_i8-np2.mpitest \
	test/fortran_colls_i8-np3.mpitest test/fortran_colls_i8-np4.mpitest
TESTS += test/fortran_colls_i1-np1.mpitest test/fortran_colls_i1-np2.mpitest \
	test/fortran_colls_i1-np3.mpitest test/fortran_colls_i1-np4.mpitest
TESTS += test/fortran_errors-np1.mpitest test/fortran_errors-np2.mpitest \
	test/fortran_errors-np3.mpitest test/fortran_errors-np4.mpitest
TESTS += test/fortran_contract-np1.mpitest test/fortran_contract-np2.mpitest \
	test/fortran_contract-np3.mpitest test/fortran_contract-np4.mpitest

# The nonblocking calls on an MPI_THREAD_MULTIPLE MPI (the progress
# thread), at 1-4 ranks.
check_PROGRAMS += test/fortran_nonblocking
test_fortran_nonblocking_SOURCES = test/fortran/nonblocking.F90
test_fortran_nonblocking_FCFLAGS = $(tcomm_f_prog_flags)
test_fortran_nonblocking_LDADD = $(tcomm_f_prog_libs)
TESTS += test/fortran_nonblocking-np1.mpitest \
	test/fortran_nonblocking-np2.mpitest \
	test/fortran_nonblocking-np3.mpitest \
	test/fortran_nonblocking-np4.mpitest

# A failure without ierr: the message, then error stop on every rank.
check_PROGRAMS += test/fortran_nostat
test_fortran_nostat_SOURCES = test/fortran/nostat.f90
test_fortran_nostat_FCFLAGS = $(tcomm_f_prog_flags)
test_fortran_nostat_LDADD = $(tcomm_f_prog_libs)
TESTS += test/fortran/check-fortran.sh

if TCOMM_HAVE_FORTRAN_F08
check_PROGRAMS += test/fortran_f08
test_fortran_f08_SOURCES = test/fortran/f08.f90
test_fortran_f08_FCFLAGS = $(tcomm_f_prog_flags)
test_fortran_f08_LDADD = $(tcomm_f_prog_libs)
TESTS += test/fortran_f08-np1.mpitest test/fortran_f08-np3.mpitest
endif

# The Fortran example, likewise checked against a serial run.
check_PROGRAMS += examples-bin/heat2d_f
examples_bin_heat2d_f_SOURCES = doc/examples/heat2d.f90
examples_bin_heat2d_f_FCFLAGS = $(tcomm_f_prog_flags)
examples_bin_heat2d_f_LDADD = $(tcomm_f_prog_libs)
TESTS += examples-bin/heat2d_f-np2.mpitest examples-bin/heat2d_f-np4.mpitest

$(test_fortran_colls_r4_OBJECTS) $(test_fortran_colls_r8_OBJECTS) \
$(test_fortran_colls_i4_OBJECTS) $(test_fortran_colls_i8_OBJECTS) \
$(test_fortran_colls_i1_OBJECTS) $(test_fortran_errors_OBJECTS) \
$(test_fortran_contract_OBJECTS) $(test_fortran_nostat_OBJECTS) \
$(test_fortran_f08_OBJECTS) $(examples_bin_heat2d_f_OBJECTS) \
$(test_fortran_nonblocking_OBJECTS): \
	src/fortran/tcomm.mod

# The contract program against the installed module and libraries, built
# with pkg-config; after the C install check (both run `make install`).
# (The target is a variable so that automake keeps its own recipe.)
TESTS += test/install-fortran-check.sh
tcomm_f_install_log = test/install-fortran-check.sh.log
$(tcomm_f_install_log): test/install-check.sh.log
endif
