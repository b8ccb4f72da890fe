# SPDX-License-Identifier: BSD-3-Clause
# tcomm_info: version, build options, run-time support, settings.
bin_PROGRAMS += src/tools/tcomm_info
src_tools_tcomm_info_SOURCES = src/tools/tcomm_info.c src/tools/tcomm_info.h \
	src/tools/tcomm_info_backends.c
src_tools_tcomm_info_LDADD = libtcomm_internal.la
