# SPDX-License-Identifier: BSD-3-Clause
# Core tests (test/): Check suites in one process, MPI suites under
# mpirun at 1-4 ranks (test/NAME-npN.mpitest), and the install check.
check_PROGRAMS += test/check_core
test_check_core_SOURCES = test/check_core.c test/check_tensor.c
test_check_core_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_core_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/check_core

# When the settings are read (the first graph), reload's snapshots, what
# the parsers accept (issue 27). A process of its own: the first test
# must be the first to read them.
check_PROGRAMS += test/check_settings
test_check_settings_SOURCES = test/check_settings.c test/check_main.h
test_check_settings_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_check_settings_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/check_settings

check_PROGRAMS += test/mpi_collectives
test_mpi_collectives_SOURCES = test/mpi_collectives.c test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_collectives_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_collectives_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_collectives-np1.mpitest test/mpi_collectives-np2.mpitest \
	test/mpi_collectives-np3.mpitest test/mpi_collectives-np4.mpitest

# An outside program against the installed library, via pkg-config.
TESTS += test/install-check.sh
EXTRA_DIST += test/install-check.sh test/contract_program.c \
	test/contract_program_02.c test/mpi_suite.h

# Packaging (issue 14): a static link through tcomm-static.pc (issue 27),
# the build tree's tcomm-uninstalled.pc, find_package(tcomm) from CMake,
# configure --help / LICENSE / NEWS / the distribution, and a build
# without Check.
TESTS += test/static-link-check.sh test/uninstalled-check.sh \
	test/cmake-check.sh test/packaging-check.sh test/no-check-build.sh
EXTRA_DIST += test/static-link-check.sh test/uninstalled-check.sh \
	test/cmake-check.sh test/packaging-check.sh test/no-check-build.sh
# One after another behind the install checks: `make install` relinks
# libtcomm_f in the build tree, and two `make distdir` share files.
# (Targets through variables, so that automake keeps its own recipes.)
if TCOMM_HAVE_FORTRAN
tcomm_pkg_after = test/install-fortran-check.sh.log
else
tcomm_pkg_after = test/install-check.sh.log
endif
tcomm_pkg_static_log = test/static-link-check.sh.log
tcomm_pkg_cmake_log = test/cmake-check.sh.log
tcomm_pkg_uninst_log = test/uninstalled-check.sh.log
tcomm_pkg_nocheck_log = test/no-check-build.sh.log
tcomm_pkg_python_log = bindings/python/install-check.sh.log
$(tcomm_pkg_static_log): $(tcomm_pkg_after)
$(tcomm_pkg_cmake_log): $(tcomm_pkg_static_log)
$(tcomm_pkg_uninst_log): $(tcomm_pkg_cmake_log)
$(tcomm_pkg_python_log): $(tcomm_pkg_uninst_log)
# And that chain after every other test: each `make install` relinks
# libtcomm_f in the build tree, and a test that loads it meanwhile finds
# it half written ("file too short", seen under the sanitizer build).
tcomm_pkg_first_log = test/install-check.sh.log
$(tcomm_pkg_first_log): $(filter-out $(tcomm_pkg_first_log) \
	$(tcomm_pkg_after) $(tcomm_pkg_static_log) $(tcomm_pkg_cmake_log) \
	$(tcomm_pkg_uninst_log) $(tcomm_pkg_python_log),$(TEST_LOGS))
$(tcomm_pkg_nocheck_log): test/packaging-check.sh.log

# `make install prefix=DIR` away from configure's prefix stops before it
# copies anything (issue 27).
TESTS += test/install-prefix-check.sh
EXTRA_DIST += test/install-prefix-check.sh
# The version is the contract's (test/exported-symbols.txt's since=),
# alike in configure, the headers, the man pages, the docs and NEWS.
TESTS += test/version-check.sh
EXTRA_DIST += test/version-check.sh

# README.md's C and Fortran examples, compiled with its build-tree
# commands and run at 1-4 ranks.
TESTS += test/readme-check.sh
EXTRA_DIST += test/readme-check.sh

# tcomm_info runs and prints every setting.
TESTS += test/tcomm-info-check.sh
EXTRA_DIST += test/tcomm-info-check.sh

# Another MPI's launcher: a warning once per process, and tcomm_info.
TESTS += test/launcher-check.sh
EXTRA_DIST += test/launcher-check.sh

# TCOMM_DEBUG=TRACE: one well-formed line per call on every backend.
check_PROGRAMS += test/mpi_trace
test_mpi_trace_SOURCES = test/mpi_trace.c test/log_capture.h
test_mpi_trace_LDADD = libtcomm_internal.la
TESTS += test/mpi_trace-np1.mpitest test/mpi_trace-np2.mpitest \
	test/mpi_trace-np3.mpitest test/mpi_trace-np4.mpitest

# TCOMM_DEBUG=INFO: one "hop FILE:LINE FUNC -> STATUS" line per hop of a
# failed status; none at the default level.
check_PROGRAMS += test/mpi_error_hops
test_mpi_error_hops_SOURCES = test/mpi_error_hops.c test/log_capture.h
test_mpi_error_hops_LDADD = libtcomm_internal.la
TESTS += test/mpi_error_hops-np1.mpitest test/mpi_error_hops-np2.mpitest \
	test/mpi_error_hops-np3.mpitest test/mpi_error_hops-np4.mpitest

# TCOMM_DEBUG=INFO names the path of every collective, once per path.
# tcomm_reduce_into and tcomm_reduce_start against the reference.
check_PROGRAMS += test/mpi_reduce
test_mpi_reduce_SOURCES = test/mpi_reduce.c test/mpi_reference.c \
	test/mpi_reference.h test/mpi_suite.h
test_mpi_reduce_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_mpi_reduce_LDADD = libtcomm_internal.la $(CHECK_LIBS)
TESTS += test/mpi_reduce-np1.mpitest test/mpi_reduce-np2.mpitest \
	test/mpi_reduce-np3.mpitest test/mpi_reduce-np4.mpitest

# TCOMM_TUNE: rules that put an algorithm first, and bad ones refused.
check_PROGRAMS += test/mpi_tune
test_mpi_tune_SOURCES = test/mpi_tune.c test/log_capture.h
test_mpi_tune_LDADD = libtcomm_internal.la
TESTS += test/mpi_tune-np1.mpitest test/mpi_tune-np2.mpitest \
	test/mpi_tune-np3.mpitest test/mpi_tune-np4.mpitest

# TCOMM_TUNE over the tables of all_to_all, all_to_all_v,
# reduce_scatter_v and barrier: each row forced, against the reference.
check_PROGRAMS += test/mpi_tune_rows
test_mpi_tune_rows_SOURCES = test/mpi_tune_rows.c test/log_capture.h \
	test/mpi_a2a_ref.c test/mpi_a2a_ref.h test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_tune_rows_LDADD = libtcomm_internal.la
TESTS += test/mpi_tune_rows-np1.mpitest test/mpi_tune_rows-np2.mpitest \
	test/mpi_tune_rows-np3.mpitest test/mpi_tune_rows-np4.mpitest

check_PROGRAMS += test/mpi_info_paths
test_mpi_info_paths_SOURCES = test/mpi_info_paths.c test/log_capture.h
test_mpi_info_paths_LDADD = libtcomm_internal.la
TESTS += test/mpi_info_paths-np1.mpitest test/mpi_info_paths-np2.mpitest \
	test/mpi_info_paths-np3.mpitest test/mpi_info_paths-np4.mpitest

# Cross-rank safety: errors, mismatches, timeout, determinism.
include test/local_safety.mk
# The kernels and algorithms, device tensors, the other backends.
include test/kernels.mk
include test/device.mk
include test/backends.mk

# The exported dynamic symbols are exactly the public API.
TESTS += test/symbols-check.sh
EXTRA_DIST += test/symbols-check.sh test/exported-symbols.txt
# And every internal function has a caller (issue 27: no dead code).
TESTS += test/dead-code-check.sh
EXTRA_DIST += test/dead-code-check.sh
# Their libtool version changes with the interface (headers, symbols).
TESTS += test/abi-version-check.sh
EXTRA_DIST += test/abi-version-check.sh test/abi-versions.txt
