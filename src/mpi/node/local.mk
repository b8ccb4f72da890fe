# SPDX-License-Identifier: BSD-3-Clause
# src/mpi/node/: one node's shared memory: the segment, the mailbox and
# the agreement through it, the single-copy transfers between ranks.
libtcomm_internal_la_SOURCES += \
	src/mpi/node/tcomm_node_shm_map.h src/mpi/node/tcomm_node_segment.h \
	src/mpi/node/tcomm_node_broadcast.h src/mpi/node/tcomm_peer_copy.h \
	src/mpi/node/node_shm_map.c src/mpi/node/node_segment.c \
	src/mpi/node/node_broadcast.c src/mpi/node/peer_copy.c \
	src/mpi/node/tcomm_node_call.h src/mpi/node/node_call.c \
	src/mpi/node/tcomm_node_reduce.h src/mpi/node/node_reduce.c \
	src/mpi/node/tcomm_node_gather.h src/mpi/node/node_gather.c \
	src/mpi/node/tcomm_node_map.h src/mpi/node/node_map.c

# The single copies of all_gather along a dim (synchronised by MPI),
# all_to_all and all_to_all_v, and the copies of blocks of rows they
# share.
libtcomm_internal_la_SOURCES += src/mpi/node/all_gather_attach.c \
	src/mpi/node/all_to_all_copies.c src/mpi/node/all_to_all_v_copies.c \
	src/mpi/node/tcomm_block_copy.h src/mpi/node/block_copy.c
