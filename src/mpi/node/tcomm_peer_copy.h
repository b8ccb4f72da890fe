/* SPDX-License-Identifier: BSD-3-Clause */
/* Single copies between the ranks of one node (Linux cross-memory
 * attach): whether a communicator may use them, kept as an attribute,
 * the PID namespace that decides whether a peer's pid means the same
 * process, and the read of a peer's rows (src/mpi/node/peer_copy.c). The
 * all_gather pull over them is src/mpi/node/all_gather_attach.c; the shared
 * broadcast copy is node_broadcast.c. */
#ifndef TCOMM_PEER_COPY_H
#define TCOMM_PEER_COPY_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What the pull knows of comm, kept as the value of an attribute. */
enum {
    PULL_UNKNOWN, /* not asked yet */
    PULL_TRY,     /* one node, no read tried yet */
    PULL_ON,      /* in use */
    PULL_OFF      /* not one node, a read failed, or TCOMM_SINGLE_COPY=0 */
};
int tcomm_mpi_pull_state(MPI_Comm comm);
/* This process's PID namespace (the inode of /proc/self/ns/pid): two
 * ranks' pids name the same processes only where it is equal. Unknown
 * (no /proc): a value no other process has. The test hook
 * TCOMM_HOOK_PID_NAMESPACE stands in for it where set. */
uint64_t tcomm_pid_namespace(void);
/* After a single copy that every rank tried (the outcome agreed): ON if
 * all_read, else OFF for good. Local. */
int tcomm_mpi_pull_mark(MPI_Comm comm, int all_read);
/* Turn the single copies off on comm for good (TCOMM_SINGLE_COPY=0). */
int tcomm_mpi_pull_off(MPI_Comm comm);
/* Collective on first use: the state, after asking once whether all
 * ranks of comm share this node (PULL_TRY if they do, else PULL_OFF). */
int tcomm_mpi_pull_node_state(MPI_Comm comm, int *state);
/* Read outer rows of rb bytes from process pid's memory at remote into
 * out at column byte offset col, rows stride bytes apart. 1: all read. */
int tcomm_node_read_rows(pid_t pid, uint64_t remote, char *out, size_t col,
                         size_t stride, size_t outer, size_t rb);

/* Write outer packed rows of rb bytes from in into process pid's memory
 * at remote, at column byte offset col, rows stride bytes apart (rows of
 * at most 2 GiB together per system call). 1: all written. */
int tcomm_node_write_rows(pid_t pid, uint64_t remote, const char *in,
                          size_t col, size_t stride, size_t outer, size_t rb);

/* Copies with a peer (pid), in pieces a system call can take. 1: all
 * moved. */
int tcomm_node_read(pid_t pid, void *here, uint64_t remote, size_t len);
int tcomm_node_write(pid_t pid, const void *here, uint64_t remote,
                     size_t len);
/* Read rows rows of rb bytes, stride bytes apart in pid's memory from
 * remote, packed into here. 1: all read. */
int tcomm_node_read_strided(pid_t pid, void *here, uint64_t remote,
                            size_t stride, size_t rows, size_t rb);

#endif /* TCOMM_PEER_COPY_H */
