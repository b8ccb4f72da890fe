# SPDX-License-Identifier: BSD-3-Clause
# libtcomm_pmpi: MPI's collectives through the profiling interface, for
# unmodified MPI programs (LD_PRELOAD or linked before libmpi). It uses
# only tcomm's public API and PMPI_*.
lib_LTLIBRARIES += libtcomm_pmpi.la
libtcomm_pmpi_la_SOURCES = bindings/pmpi/tcomm_pmpi.h bindings/pmpi/pmpi_types.c \
	bindings/pmpi/pmpi_comm.c bindings/pmpi/pmpi_reduce.c bindings/pmpi/pmpi_move.c \
	bindings/pmpi/pmpi_alltoallv.c bindings/pmpi/pmpi_barrier.c \
	bindings/pmpi/pmpi_memory.c bindings/pmpi/pmpi_report.c \
	bindings/pmpi/pmpi_nonblocking.c bindings/pmpi/pmpi_icolls.c \
	bindings/pmpi/pmpi_fortran.c
libtcomm_pmpi_la_CPPFLAGS = -I$(top_srcdir)/include
libtcomm_pmpi_la_LIBADD = libtcomm.la
libtcomm_pmpi_la_LDFLAGS = -version-info $(TCOMM_LT_VERSION) -no-undefined

# `make bench` adds the preloaded against the plain runs: OSU's programs
# where OSU_DIR names them, else the harness's MPI baselines
# (scripts/pmpi-bench.sh), the table also in bench/results/pmpi.txt.
EXTRA_DIST += scripts/pmpi-bench.sh
bench: bench-pmpi
bench-pmpi: all
	@$(MKDIR_P) $(top_builddir)/bench/results
	@MPIRUN='$(MPIRUN)' TCOMM_BUILDDIR='$(top_builddir)' \
		sh $(top_srcdir)/scripts/pmpi-bench.sh | \
		tee $(top_builddir)/bench/results/pmpi.txt
.PHONY: bench-pmpi
