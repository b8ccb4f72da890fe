/* SPDX-License-Identifier: BSD-3-Clause */
/* Blocks of an all_to_all as rows, copied onto one another (the contract
 * is in tcomm_block_copy.h): memcpy here or in a peer's mapped arena, else
 * cross-memory attach with scatter lists on both sides, so that a
 * strided block costs one system call per IOV_MAX pieces. */
#define _GNU_SOURCE /* process_vm_readv, IOV_MAX */
#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#include "tcomm_block_copy.h"
#include "tcomm_node_map.h"

#define IOVS (IOV_MAX < 1024 ? IOV_MAX : 1024)

tcomm_all_to_all_walk_t tcomm_all_to_all_walk(uint64_t base, size_t rows,
                                              size_t rb, size_t stride)
{
    tcomm_all_to_all_walk_t w = {base, rows, rb, stride, 0, 0};
    return w;
}

/* Append len bytes at w's position to iov (merging with the last entry
 * where contiguous); advance w. */
static void take(tcomm_all_to_all_walk_t *w, size_t len, struct iovec *iov,
                 unsigned long *n)
{
    uint64_t a = w->base + w->row * w->stride + w->off;
    if (*n && (uint64_t)(uintptr_t)iov[*n - 1].iov_base +
                      iov[*n - 1].iov_len == a)
        iov[*n - 1].iov_len += len;
    else {
        iov[*n].iov_base = (void *)(uintptr_t)a;
        iov[*n].iov_len = len;
        (*n)++;
    }
    if ((w->off += len) == w->rb) {
        w->off = 0;
        w->row++;
    }
}

int tcomm_all_to_all_walk_move(pid_t pid, tcomm_all_to_all_walk_t *rem,
                               tcomm_all_to_all_walk_t *loc, int push)
{
    struct iovec liov[IOVS], riov[IOVS];

    while (rem->row < rem->rows && loc->row < loc->rows) {
        unsigned long nl = 0, nr = 0;
        size_t bytes = 0;
        while (nl < IOVS - 1 && nr < IOVS - 1 && rem->row < rem->rows &&
               loc->row < loc->rows) {
            size_t a = rem->rb - rem->off, b = loc->rb - loc->off;
            size_t len = a < b ? a : b;
            take(rem, len, riov, &nr);
            take(loc, len, liov, &nl);
            bytes += len;
        }
        if ((push ? process_vm_writev(pid, liov, nl, riov, nr, 0)
                   : process_vm_readv(pid, liov, nl, riov, nr, 0)) !=
            (ssize_t)bytes)
            return 0;
    }
    return 1;
}

void tcomm_all_to_all_walk_copy(tcomm_all_to_all_walk_t *src,
                                tcomm_all_to_all_walk_t *dst)
{
    while (src->row < src->rows && dst->row < dst->rows) {
        size_t a = src->rb - src->off, b = dst->rb - dst->off;
        size_t len = a < b ? a : b;
        memcpy((char *)(uintptr_t)(dst->base + dst->row * dst->stride +
                                   dst->off),
               (const char *)(uintptr_t)(src->base + src->row * src->stride +
                                         src->off),
               len);
        src->off += len;
        dst->off += len;
        if (src->off == src->rb) {
            src->off = 0;
            src->row++;
        }
        if (dst->off == dst->rb) {
            dst->off = 0;
            dst->row++;
        }
    }
}

int tcomm_all_to_all_walk_with_peer(pid_t pid, tcomm_all_to_all_walk_t *rem,
                                    tcomm_all_to_all_walk_t *loc, int push)
{
    char *here = rem->rows && rem->rb
                     ? tcomm_node_mapped(pid, rem->base,
                                         (rem->rows - 1) * rem->stride +
                                             rem->rb)
                     : NULL;
    if (!here)
        return tcomm_all_to_all_walk_move(pid, rem, loc, push);
    rem->base = (uint64_t)(uintptr_t)here;
    if (push)
        tcomm_all_to_all_walk_copy(loc, rem);
    else
        tcomm_all_to_all_walk_copy(rem, loc);
    return 1;
}
