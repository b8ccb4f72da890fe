/* SPDX-License-Identifier: BSD-3-Clause */
/* Index arithmetic of the reshaping kernels (gather_unpack, scatter_pack),
 * shared by the host kernels, the CUDA kernels (one thread per output
 * element) and the tests. See tcomm_host_kernels.h for the layouts:
 *
 *   gather:  src = nranks blocks back to back, block r = [outer][seg[r]];
 *            dst = [outer][total], total = sum(seg), block r's rows at
 *            column off[r] = sum(seg[0..r)).
 *   scatter: src = [outer][nranks * chunk];
 *            dst = nranks blocks back to back, block r = [outer][chunk].
 *
 * Offsets are prefix sums: off[0] = 0, off[r + 1] = off[r] + seg[r], so
 * off has nranks + 1 entries and off[nranks] = total. Block r of the
 * gather source starts at element outer * off[r]. */
#ifndef TCOMM_RESHAPE_INDEX_H
#define TCOMM_RESHAPE_INDEX_H

#include <stddef.h>

#include "tcomm_hd.h"

/* The rank whose columns contain column col (0 <= col < off[nranks]):
 * the largest r with off[r] <= col, skipping zero-size segments. Binary
 * search, O(log nranks). */
TCOMM_HD static inline int tcomm_reshape_find_rank(const size_t *off,
                                                   int nranks, size_t col)
{
    int lo = 0, hi = nranks - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (off[mid] <= col)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* gather_unpack: the source element of destination element i
 * (0 <= i < outer * off[nranks]); *rank gets the contributing rank. */
TCOMM_HD static inline size_t tcomm_gather_src_index(size_t i, size_t outer,
                                                     int nranks,
                                                     const size_t *off,
                                                     int *rank)
{
    size_t total = off[nranks];
    size_t row = i / total;
    size_t col = i - row * total;
    int r = tcomm_reshape_find_rank(off, nranks, col);
    size_t seg = off[r + 1] - off[r];
    *rank = r;
    return outer * off[r] + row * seg + (col - off[r]);
}

/* gather_unpack, the other way: the destination element of source
 * element j of block r (0 <= j < outer * seg[r]). */
TCOMM_HD static inline size_t tcomm_gather_dst_index(size_t j, int r,
                                                     const size_t *off,
                                                     int nranks)
{
    size_t total = off[nranks];
    size_t seg = off[r + 1] - off[r];
    size_t row = j / seg;
    return row * total + off[r] + (j - row * seg);
}

/* scatter_pack: the source element of destination element j
 * (0 <= j < nranks * outer * chunk); *rank gets the block's rank. */
TCOMM_HD static inline size_t tcomm_scatter_src_index(size_t j, size_t outer,
                                                      int nranks,
                                                      size_t chunk, int *rank)
{
    size_t block = outer * chunk;
    size_t r = j / block;
    size_t rem = j - r * block;
    size_t row = rem / chunk;
    size_t col = rem - row * chunk;
    *rank = (int)r;
    return row * ((size_t)nranks * chunk) + r * chunk + col;
}

/* scatter_pack, the other way: the destination element of source element
 * i (0 <= i < outer * nranks * chunk). */
TCOMM_HD static inline size_t tcomm_scatter_dst_index(size_t i, size_t outer,
                                                      int nranks,
                                                      size_t chunk)
{
    size_t width = (size_t)nranks * chunk;
    size_t row = i / width;
    size_t col = i - row * width;
    size_t r = col / chunk;
    return r * outer * chunk + row * chunk + (col - r * chunk);
}

#endif /* TCOMM_RESHAPE_INDEX_H */
