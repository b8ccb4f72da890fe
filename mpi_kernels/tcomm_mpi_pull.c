/* SPDX-License-Identifier: BSD-3-Clause */
/* all_gather along a dim > 0 on one node: every rank pulls the peers'
 * rows straight into place with Linux cross-memory attach
 * (process_vm_readv, one system call per peer and up to IOV_MAX rows).
 *
 * Why: each row of a rank's input lands at a stride in out. Through MPI
 * that is either two copies of every byte (a derived receive type or a
 * temporary) or one message per row (~2-5 us each); MPI_Allgather of
 * contiguous blocks is one copy, because Open MPI's shared-memory
 * transport itself reads the sender's buffer with process_vm_readv. The
 * pull does the same single copy, with a scatter list on our side, so
 * that the strided layout costs nothing extra (numbers in
 * tcomm_mpi_allgather_dim.c).
 *
 * Protocol: MPI_Allgather of (address, pid, PID namespace); every rank
 * reads its peers' inputs (a pid names the same process only within
 * one namespace: ranks in containers of their own count as failed
 * reads); MPI_Allreduce(MIN) of a success flag, which also keeps every
 * input alive and unchanged until all readers are done. If any rank
 * could not read (not the same node after all, a container without
 * ptrace rights, a seccomp filter), every rank learns it from that flag,
 * marks the communicator and redoes the call through MPI messages: out
 * is rewritten whole. Whether the ranks share a node is asked once per
 * communicator (MPI_Comm_split_type) and cached as an attribute. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tcomm_mpi_reshape.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

int tcomm_mpi_pull_fail_for_test;

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

/* Collective on first use: are all ranks of comm on this node? */
static int node_state(MPI_Comm comm, int *state)
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

uint64_t tcomm_pid_namespace_for_test;

uint64_t tcomm_pid_namespace(void)
{
    static uint64_t ino; /* 0: not asked yet; 1: no /proc (benign race) */
    struct stat sb;
    if (tcomm_pid_namespace_for_test)
        return tcomm_pid_namespace_for_test;
    if (!ino)
        ino = stat("/proc/self/ns/pid", &sb) == 0 ? (uint64_t)sb.st_ino : 1;
    return ino != 1 ? ino : (uint64_t)getpid() << 32 | 1u;
}

/* Read rank r's outer rows of rb bytes from its input at remote into
 * out at column byte offset col, rows stride bytes apart. */
static int pull_rows(pid_t pid, uint64_t remote, char *out, size_t col,
                     size_t stride, size_t outer, size_t rb)
{
    struct iovec loc[IOV_MAX < 1024 ? IOV_MAX : 1024], rem;
    size_t per = sizeof loc / sizeof loc[0];

    for (size_t o0 = 0; o0 < outer; o0 += per) {
        size_t k = outer - o0 < per ? outer - o0 : per;
        for (size_t i = 0; i < k; i++) {
            loc[i].iov_base = out + (o0 + i) * stride + col;
            loc[i].iov_len = rb;
        }
        rem.iov_base = (void *)(uintptr_t)(remote + o0 * rb);
        rem.iov_len = k * rb;
        /* a short read only happens on an error part way */
        if (process_vm_readv(pid, loc, (unsigned long)k, &rem, 1, 0) !=
            (ssize_t)(k * rb))
            return 0;
    }
    return 1;
}

int tcomm_ag_pull(const tcomm_ag_plan_t *p, const void *in, void *out,
                  size_t outer, const size_t *seg, MPI_Comm comm, int *done)
{
    struct { uint64_t addr, pid, ns; } me, peers[TCOMM_STACK_RANKS];
    int rc, state, ok = 1, all = 0;
    size_t es = p->es, stride = p->total * es;

    *done = 0;
    if (p->nranks > TCOMM_STACK_RANKS)
        return MPI_SUCCESS;
    if ((rc = node_state(comm, &state)) != MPI_SUCCESS || state == PULL_OFF)
        return rc;
    me.addr = (uint64_t)(uintptr_t)in;
    me.pid = (uint64_t)getpid();
    me.ns = tcomm_pid_namespace();
    rc = MPI_Allgather(&me, 3, MPI_UINT64_T, peers, 3, MPI_UINT64_T, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    tcomm_ag_copy_own(p, in, out, outer, seg);
    /* start with the next rank, so that not everyone reads rank 0 first */
    for (int k = 1; k < p->nranks && ok; k++) {
        int r = (p->rank + k) % p->nranks;
        if (seg[r] != 0)
            ok = !tcomm_mpi_pull_fail_for_test && peers[r].ns == me.ns &&
                 pull_rows((pid_t)peers[r].pid, peers[r].addr, out,
                           p->off[r] * es, stride, outer, seg[r] * es);
    }
    rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (state == PULL_TRY || !all)
        rc = tcomm_mpi_pull_mark(comm, all);
    *done = all;
    return rc;
}

int tcomm_mpi_allgather_dim_pull(const void *in, void *out,
                                 tcomm_dtype_t dtype, size_t outer,
                                 const size_t *seg, MPI_Comm comm)
{
    tcomm_ag_plan_t p;
    int done = 0, rc = tcomm_ag_plan_init(&p, dtype, outer, seg, comm);

    if (rc != MPI_SUCCESS)
        return rc;
    rc = tcomm_ag_pull(&p, in, out, outer, seg, comm, &done);
    tcomm_ag_plan_free(&p);
    if (rc == MPI_SUCCESS && !done)
        rc = tcomm_mpi_allgather_dim_vec(in, out, dtype, outer, seg, comm);
    return rc;
}
