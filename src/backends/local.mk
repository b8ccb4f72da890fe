# SPDX-License-Identifier: BSD-3-Clause
# src/backends/: the backends beside MPI: identity, local (N ranks as N
# threads, always built), Gloo (--with-gloo), NCCL (--with-nccl), and the
# create functions of the absent ones (TCOMM_ERR_UNSUPPORTED).
libtcomm_internal_la_SOURCES += src/backends/backend_identity.c \
	src/backends/backend_local_world.h src/backends/backend_local.c \
	src/backends/backend_local_colls.c src/backends/backend_local_all_to_all.c \
	src/backends/backend_absent.c

include_HEADERS += include/tcomm_gloo.h include/tcomm_nccl.h

# Gloo: one C++ file in its own convenience library (C++ flags, Gloo's
# headers).
if TCOMM_HAVE_GLOO
noinst_LTLIBRARIES += src/backends/libtcomm_gloo.la
src_backends_libtcomm_gloo_la_SOURCES = src/backends/backend_gloo.cc \
	src/backends/backend_gloo_all_to_all.cc src/backends/backend_gloo.h
src_backends_libtcomm_gloo_la_CPPFLAGS = $(AM_CPPFLAGS) $(GLOO_CPPFLAGS)
src_backends_libtcomm_gloo_la_CXXFLAGS = -std=gnu++17 -Wall -Wextra \
	-Wno-unused-parameter -fvisibility=hidden
src_backends_libtcomm_gloo_la_LIBADD = $(GLOO_LIBS)
# Linked as C: libtool's C++ tag would drop -lstdc++ from the library's
# dependencies, and every C program that links libtcomm needs it.
src_backends_libtcomm_gloo_la_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC \
	$(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CCLD) $(AM_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
libtcomm_internal_la_LIBADD += src/backends/libtcomm_gloo.la
# The C++ standard library's template instances have default visibility:
# keep the shared library's exports to the tcomm_ API.
libtcomm_la_LDFLAGS += -export-symbols-regex '^tcomm_'
endif

# NCCL: for CUDA graphs, in its own convenience library (with cuda/, the
# only place that sees the CUDA and NCCL headers).
if TCOMM_HAVE_NCCL
noinst_LTLIBRARIES += src/backends/libtcomm_nccl.la
src_backends_libtcomm_nccl_la_SOURCES = src/backends/backend_nccl.c \
	src/backends/backend_nccl_all_to_all.c src/backends/backend_nccl.h
src_backends_libtcomm_nccl_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	$(NCCL_CPPFLAGS)
src_backends_libtcomm_nccl_la_LIBADD = $(NCCL_LIBS)
libtcomm_internal_la_LIBADD += src/backends/libtcomm_nccl.la
endif
