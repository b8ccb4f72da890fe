# SPDX-License-Identifier: BSD-3-Clause
# libtcomm_pmpi: MPI's collectives through the profiling interface, for
# unmodified MPI programs (LD_PRELOAD or linked before libmpi). It uses
# only tcomm's public API and PMPI_*.
lib_LTLIBRARIES += libtcomm_pmpi.la
libtcomm_pmpi_la_SOURCES = src/pmpi/tcomm_pmpi.h src/pmpi/pmpi_types.c \
	src/pmpi/pmpi_comm.c src/pmpi/pmpi_reduce.c src/pmpi/pmpi_move.c \
	src/pmpi/pmpi_passed.c src/pmpi/pmpi_report.c \
	src/pmpi/pmpi_nonblocking.c src/pmpi/pmpi_icolls.c \
	src/pmpi/pmpi_fortran.c
libtcomm_pmpi_la_CPPFLAGS = -I$(top_srcdir)/include
libtcomm_pmpi_la_LIBADD = libtcomm.la
libtcomm_pmpi_la_LDFLAGS = -version-info $(TCOMM_LT_VERSION) -no-undefined
