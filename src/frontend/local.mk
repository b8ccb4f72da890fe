# SPDX-License-Identifier: BSD-3-Clause
# src/frontend/: the public collectives, validation, cross-rank agreement
# and dispatch through the backend's vtable; the nonblocking forms and
# their progress thread.
libtcomm_internal_la_SOURCES += \
	src/frontend/tcomm_frontend.h src/frontend/coll_table.c \
	src/frontend/validate.c \
	src/frontend/agree.c src/frontend/eager.c src/frontend/collectives.c \
	src/frontend/tensor_add.c \
	src/frontend/tcomm_trace.h src/frontend/trace.c \
	src/frontend/tcomm_progress.h src/frontend/progress.c \
	src/frontend/requests.c
