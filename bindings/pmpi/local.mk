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
