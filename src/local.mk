# SPDX-License-Identifier: BSD-3-Clause
# Core runtime (src/).
libtcomm_internal_la_SOURCES += \
	src/tcomm_internal.h src/tcomm_error.h src/tcomm_log.h \
	src/tcomm_config.h src/tcomm_frontend.h src/tcomm_backend_mpi.h \
	src/status.c src/log.c src/config.c \
	src/graph.c src/tensor.c src/tensor_access.c \
	src/comm.c src/validate.c src/agree.c src/collectives.c \
	src/backend_identity.c src/backend_mpi.c src/mpi_collectives.c \
	src/ordered.c src/trace.c src/tcomm_trace.h

# tcomm_info: version, build options, run-time support, settings.
bin_PROGRAMS += src/tcomm_info
src_tcomm_info_SOURCES = src/tcomm_info.c src/tcomm_info.h \
	src/tcomm_info_backends.c
src_tcomm_info_LDADD = libtcomm_internal.la
