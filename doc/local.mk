# SPDX-License-Identifier: BSD-3-Clause
# Documentation and release (issue 7): the API reference from the public
# headers (`make doc`, Doxygen, HTML in doc/api/html/), the man pages of
# tcomm_info and the osu_tcomm_* programs, the guides in the tarball, a
# test that the reference documents every setting, configure option,
# error code and harness option, and `make distcheck`'s configuration.

# Man pages: hand-written troff. osu_tcomm_allreduce.1 describes the seven
# harness programs; the other six are .so links to it.
# osu_tcomm_iallreduce.1 the five nonblocking ones (four links).
dist_man_MANS = doc/man/tcomm_info.1 doc/man/osu_tcomm_allreduce.1 \
	doc/man/osu_tcomm_allgather.1 doc/man/osu_tcomm_reduce_scatter.1 \
	doc/man/osu_tcomm_bcast.1 doc/man/osu_tcomm_barrier.1 \
	doc/man/osu_tcomm_alltoall.1 doc/man/osu_tcomm_reduce.1 \
	doc/man/osu_tcomm_iallreduce.1 \
	doc/man/osu_tcomm_iallgather.1 doc/man/osu_tcomm_ireduce_scatter.1 \
	doc/man/osu_tcomm_ibcast.1 doc/man/osu_tcomm_ialltoall.1 \
	doc/man/tcomm_pmpi.7

EXTRA_DIST += Doxyfile.in README.md doc/user-guide.md doc/design-notes.md \
	doc/reference.md doc/backends.md doc/reliability.md

# The guides, their plots and examples, installed under DOCDIR/doc/
# (nobase_: the doc/ prefix stays), where the installed README.md links
# them (test/install-check.sh follows its links). Distributed elsewhere.
nobase_doc_DATA = doc/user-guide.md doc/reference.md doc/design-notes.md \
	doc/fortran.md doc/rust.md doc/python.md doc/performance.md \
	doc/backends.md \
	doc/reliability.md doc/examples/README.md doc/examples/heat2d.c \
	doc/examples/heat2d.f90 doc/examples/transpose2d.c \
	doc/examples/transpose2d.f90 doc/performance/allreduce.png \
	doc/performance/allgather.png doc/performance/reduce_scatter.png \
	doc/performance/bcast.png doc/performance/barrier.png \
	doc/performance/alltoall.png doc/performance/allreduce_ratio.png \
	doc/performance/allgather_ratio.png \
	doc/performance/reduce_scatter_ratio.png \
	doc/performance/bcast_ratio.png doc/performance/alltoall_ratio.png

# `make doc`: doxygen must be installed (scripts/install-deps); any
# warning (an undocumented public name, a broken command) fails the
# target after printing the warnings.
.PHONY: doc
doc: Doxyfile
	@if ! command -v '$(DOXYGEN)' >/dev/null 2>&1; then \
	    echo "make doc: doxygen not found (DOXYGEN=$(DOXYGEN));" \
	        "install it (apt-get install doxygen, or scripts/install-deps)" \
	        "or pass DOXYGEN=/path/to/doxygen" >&2; \
	    exit 1; \
	fi
	@rm -rf doc/api && $(MKDIR_P) doc/api
	$(AM_V_GEN)'$(DOXYGEN)' Doxyfile
	@if test -s doc/api/warnings.log; then \
	    cat doc/api/warnings.log >&2; \
	    echo "make doc: doxygen warned (above): document the public" \
	        "headers in $(top_srcdir)/include" >&2; \
	    exit 1; \
	fi
	@echo "API reference: $(abs_top_builddir)/doc/api/html/index.html"

clean-local: clean-doc
.PHONY: clean-doc
clean-doc:
	-rm -rf doc/api

# The reference and the man pages name every setting, variable read by
# the code and scripts, configure option, error code and option of the
# harness and tcomm_info; README names install-deps' packages.
TESTS += doc/doc-check.sh
EXTRA_DIST += doc/doc-check.sh

# `make distcheck` builds the tarball without CUDA (nvcc takes minutes; the
# main build compiles the CUDA code). The committed bootstrap Makefile is
# not distributed: a tarball has configure, and `./configure && make`
# uses the generated GNUmakefile.
AM_DISTCHECK_CONFIGURE_FLAGS = --without-cuda
# configure's Fortran module check leaves its module in the build tree.
DISTCLEANFILES += tcomm_conftest.mod
