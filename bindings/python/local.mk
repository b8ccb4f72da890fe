# SPDX-License-Identifier: BSD-3-Clause
# The Python package (issue 30): the extension tcomm._tcomm over the
# public C API, the package's modules, and its tests: pytest under mpirun
# at 1-4 ranks and with Communicator.local(n) (python-check.sh), the
# package from `make install` and from `pip install bindings/python`
# (install-check.sh). Without Python's headers nothing is built and the
# tests skip (77).
PYTHON_PKG = bindings/python/tcomm/__init__.py \
	bindings/python/tcomm/_arrays.py bindings/python/tcomm/_comm.py \
	bindings/python/tcomm/_mpi4py.py bindings/python/tcomm/bench.py \
	bindings/python/tcomm/__main__.py
PYTHON_EXT_SRC = bindings/python/tcomm/_tcomm.h \
	bindings/python/tcomm/_tcomm.c bindings/python/tcomm/comm.c \
	bindings/python/tcomm/request.c bindings/python/tcomm/mpi.c
PYTHON_TESTS = bindings/python/tests/conftest.py \
	bindings/python/tests/test_collectives.py \
	bindings/python/tests/test_async.py \
	bindings/python/tests/test_errors.py \
	bindings/python/tests/test_interop.py
EXTRA_DIST += $(PYTHON_PKG) $(PYTHON_EXT_SRC) $(PYTHON_TESTS) \
	bindings/python/setup.py bindings/python/pyproject.toml \
	bindings/python/python-check.sh bindings/python/install-check.sh \
	doc/python.md
AM_TESTS_ENVIRONMENT += TCOMM_PYTHON='$(PYTHON)'; export TCOMM_PYTHON;

if TCOMM_HAVE_PYTHON
tcommpydir = $(pythondir)/tcomm
tcommpy_DATA = $(PYTHON_PKG)
tcommpy_LTLIBRARIES = bindings/python/tcomm/_tcomm.la
bindings_python_tcomm__tcomm_la_SOURCES = $(PYTHON_EXT_SRC)
bindings_python_tcomm__tcomm_la_CPPFLAGS = -I$(top_srcdir)/include \
	$(PYTHON_CPPFLAGS)
# Python's headers break -Wextra's missing-field rule for its type slots.
bindings_python_tcomm__tcomm_la_CFLAGS = $(AM_CFLAGS) \
	-Wno-missing-field-initializers -fno-strict-aliasing
bindings_python_tcomm__tcomm_la_LIBADD = libtcomm.la
bindings_python_tcomm__tcomm_la_LDFLAGS = -module -avoid-version -shared \
	-no-undefined
endif

# The package as the tests import it: the build tree's extension beside
# the sources' modules (a read-only source tree works).
check_SCRIPTS += bindings/python/stage
bindings/python/stage: $(PYTHON_PKG) $(tcommpy_LTLIBRARIES)
	$(AM_V_GEN)rm -rf $@ && mkdir -p $@/tcomm && \
	for f in $(PYTHON_PKG); do cp $(srcdir)/$$f $@/tcomm/; done && \
	if test -f bindings/python/tcomm/.libs/_tcomm.so; then \
	    cp bindings/python/tcomm/.libs/_tcomm.so $@/tcomm/; fi

# bindings/python/python_tests-npN.mpitest: pytest on N ranks; the plain
# test runs the local backend's tests in one process.
check_SCRIPTS += bindings/python/python_tests
bindings/python/python_tests: bindings/python/python-check.sh
	$(AM_V_GEN)printf '#!/bin/sh\nexec $(SHELL) %s/bindings/python/python-check.sh mpi\n' '$(abs_srcdir)' >$@ && chmod +x $@
CLEANFILES += bindings/python/python_tests
TESTS += bindings/python/python-check.sh \
	bindings/python/python_tests-np1.mpitest \
	bindings/python/python_tests-np2.mpitest \
	bindings/python/python_tests-np3.mpitest \
	bindings/python/python_tests-np4.mpitest \
	bindings/python/install-check.sh

# make bench's rows of the package against mpi4py (bench/local.mk).
EXTRA_DIST += scripts/bench-python.sh
.PHONY: bench-python
bench-python: bindings/python/stage
	@PYTHON='$(PYTHON)' MPIRUN='$(MPIRUN)' MPIRUN_FLAGS='$(MPIRUN_FLAGS)' \
	    sh $(top_srcdir)/scripts/bench-python.sh \
	    '$(abs_top_builddir)/bindings/python/stage' \
	    '$(top_builddir)/bench/results'

clean-local: clean-python
.PHONY: clean-python
clean-python:
	-rm -rf bindings/python/stage
