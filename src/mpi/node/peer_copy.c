/* SPDX-License-Identifier: BSD-3-Clause */
/* Single copies on one node: whether a communicator may use them (an
 * attribute: unknown, try, on, off), the PID namespace, and the read of a
 * peer's rows with process_vm_readv (one system call per peer and up to
 * IOV_MAX rows), or memcpy where the peer's buffer is in its mapped
 * tensor arena (node_map.c). Whether the ranks share a node is asked once per
 * communicator (MPI_Comm_split_type). Used by the all_gather pull
 * (all_gather_attach.c) and the shared broadcast copy (node_broadcast.c). */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tcomm_node_map.h"
#include "tcomm_peer_copy.h"
#include "tcomm_test_hooks.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static int pull_keyval = MPI_KEYVAL_INVALID;

static int get_keyval(int *keyval)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&keyval_lock);
    if (pull_keyval == MPI_KEYVAL_INVALID)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                    MPI_COMM_NULL_DELETE_FN, &pull_keyval,
                                    NULL);
    *keyval = pull_keyval;
    pthread_mutex_unlock(&keyval_lock);
    return rc;
}

int tcomm_mpi_pull_state(MPI_Comm comm)
{
    int keyval, flag = 0;
    void *val = NULL;
    if (get_keyval(&keyval) != MPI_SUCCESS ||
        MPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS || !flag)
        return PULL_UNKNOWN;
    return (int)(intptr_t)val;
}

static int set_state(MPI_Comm comm, int state)
{
    int keyval, rc = get_keyval(&keyval);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_attr(comm, keyval, (void *)(intptr_t)state);
    return rc;
}

int tcomm_mpi_pull_off(MPI_Comm comm)
{
    return set_state(comm, PULL_OFF);
}

int tcomm_mpi_pull_mark(MPI_Comm comm, int all_read)
{
    return set_state(comm, all_read ? PULL_ON : PULL_OFF);
}

int tcomm_mpi_pull_node_state(MPI_Comm comm, int *state)
{
    MPI_Comm node;
    int rc, n, nn;

    if ((*state = tcomm_mpi_pull_state(comm)) != PULL_UNKNOWN)
        return MPI_SUCCESS;
    rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                             &node);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm_size(comm, &n);
    MPI_Comm_size(node, &nn);
    MPI_Comm_free(&node);
    *state = nn == n ? PULL_TRY : PULL_OFF;
    return set_state(comm, *state);
}

uint64_t tcomm_pid_namespace(void)
{
    /* 0: not asked yet; 1: no /proc. Threads may race to fill it:
     * atomic, and all store the same. */
    static _Atomic uint64_t cached;
    long hook = tcomm_test_hook(TCOMM_HOOK_PID_NAMESPACE);
    struct stat sb;
    if (hook)
        return (uint64_t)hook;
    uint64_t ino = atomic_load_explicit(&cached, memory_order_relaxed);
    if (!ino) {
        ino = stat("/proc/self/ns/pid", &sb) == 0 ? (uint64_t)sb.st_ino : 1;
        atomic_store_explicit(&cached, ino, memory_order_relaxed);
    }
    return ino != 1 ? ino : (uint64_t)getpid() << 32 | 1u;
}

/* Packed rows at flat into rows of rb bytes, stride apart at column col
 * of rows_at: ours from pid's (rows_remote 0: a read) or ours into pid's
 * (rows_remote 1: a write). memcpy where pid's side is in its mapped
 * arena, else a system call per up to 1024 rows. 1: all moved. */
static int flat_to_rows(pid_t pid, uintptr_t rows_at, uintptr_t flat,
                        size_t col, size_t stride, size_t outer, size_t rb,
                        int rows_remote)
{
    struct iovec rows[IOV_MAX < 1024 ? IOV_MAX : 1024], packed;
    size_t per = sizeof rows / sizeof rows[0];
    char *there = rows_remote
                      ? tcomm_node_mapped(pid, rows_at,
                                          (outer - 1) * stride + col + rb)
                      : tcomm_node_mapped(pid, flat, outer * rb);
    if (there) {
        char *dst = rows_remote ? there : (char *)rows_at;
        const char *src = rows_remote ? (const char *)flat : there;
        for (size_t o = 0; o < outer; o++)
            memcpy(dst + o * stride + col, src + o * rb, rb);
        return 1;
    }
    for (size_t o0 = 0; o0 < outer; o0 += per) {
        size_t k = outer - o0 < per ? outer - o0 : per;
        for (size_t i = 0; i < k; i++) {
            rows[i].iov_base = (void *)(rows_at + (o0 + i) * stride + col);
            rows[i].iov_len = rb;
        }
        packed.iov_base = (void *)(flat + o0 * rb);
        packed.iov_len = k * rb;
        /* short only on an error part way */
        ssize_t got =
            rows_remote ? process_vm_writev(pid, &packed, 1, rows, k, 0)
                        : process_vm_readv(pid, rows, k, &packed, 1, 0);
        if (got != (ssize_t)(k * rb))
            return 0;
    }
    return 1;
}

int tcomm_node_read_rows(pid_t pid, uint64_t remote, char *out, size_t col,
                         size_t stride, size_t outer, size_t rb)
{
    return flat_to_rows(pid, (uintptr_t)out, (uintptr_t)remote, col, stride,
                        outer, rb, 0);
}

int tcomm_node_write_rows(pid_t pid, uint64_t remote, const char *in,
                          size_t col, size_t stride, size_t outer, size_t rb)
{
    return flat_to_rows(pid, (uintptr_t)remote, (uintptr_t)in, col, stride,
                        outer, rb, 1);
}

/* One system call moves at most about 2 GiB (MAX_RW_COUNT): go in
 * pieces of 1 GiB. */
#define PIECE ((size_t)1 << 30)

static int move(pid_t pid, char *here, uint64_t remote, size_t len,
                int write)
{
    char *there = tcomm_node_mapped(pid, remote, len);
    if (there) {
        memcpy(write ? there : here, write ? here : there, len);
        return 1;
    }
    for (size_t off = 0; off < len; off += PIECE) {
        size_t k = len - off < PIECE ? len - off : PIECE;
        struct iovec loc = {here + off, k};
        struct iovec rem = {(void *)(uintptr_t)(remote + off), k};
        ssize_t got = write ? process_vm_writev(pid, &loc, 1, &rem, 1, 0)
                            : process_vm_readv(pid, &loc, 1, &rem, 1, 0);
        if (got != (ssize_t)k) /* short only on an error part way */
            return 0;
    }
    return 1;
}

int tcomm_node_read(pid_t pid, void *here, uint64_t remote, size_t len)
{
    return move(pid, here, remote, len, 0);
}

int tcomm_node_write(pid_t pid, const void *here, uint64_t remote,
                     size_t len)
{
    return move(pid, (char *)(uintptr_t)here, remote, len, 1);
}

int tcomm_node_read_strided(pid_t pid, void *here, uint64_t remote,
                            size_t stride, size_t rows, size_t rb)
{
    struct iovec rem[IOV_MAX < 1024 ? IOV_MAX : 1024], loc;
    size_t per = sizeof rem / sizeof rem[0];

    if (rows == 1 || stride == rb)
        return move(pid, here, remote, rows * rb, 0);
    const char *src = tcomm_node_mapped(pid, remote, (rows - 1) * stride + rb);
    if (src) {
        for (size_t o = 0; o < rows; o++)
            memcpy((char *)here + o * rb, src + o * stride, rb);
        return 1;
    }
    if (rb >= PIECE / per) { /* keep a call under MAX_RW_COUNT */
        for (size_t o = 0; o < rows; o++)
            if (!move(pid, (char *)here + o * rb, remote + o * stride, rb, 0))
                return 0;
        return 1;
    }
    for (size_t o0 = 0; o0 < rows; o0 += per) {
        size_t k = rows - o0 < per ? rows - o0 : per;
        for (size_t i = 0; i < k; i++) {
            rem[i].iov_base = (void *)(uintptr_t)(remote + (o0 + i) * stride);
            rem[i].iov_len = rb;
        }
        loc.iov_base = (char *)here + o0 * rb;
        loc.iov_len = k * rb;
        if (process_vm_readv(pid, &loc, 1, rem, (unsigned long)k, 0) !=
            (ssize_t)(k * rb))
            return 0;
    }
    return 1;
}
