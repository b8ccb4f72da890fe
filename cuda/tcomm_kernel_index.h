/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-thread index arithmetic of the reshaping kernels
 * (cuda/reshape_kernels.cu), on top of the shared helpers of
 * mpi_kernels/tcomm_reshape_index.h. Plain C with TCOMM_HD, so that
 * test/check_device_kernels.c runs the kernels' exact arithmetic on the
 * host against tcomm_host_gather_unpack and tcomm_host_scatter_pack.
 *
 * unpack: one launch per rank block; the block of rank r covers columns
 * [col, col + w) of total, and thread j (j < outer * w) moves source
 * element j of the block to tcomm_kernel_unpack_dst(j, ...).
 * pack: one launch; thread j (j < nranks * outer * chunk) fetches
 * destination element j from tcomm_kernel_pack_src(j, ...).
 * split (uneven pack, unpack's inverse): one launch per rank block, as
 * unpack; thread j fetches element j of the block from
 * tcomm_kernel_split_src(j, ...) (unpack's map read the other way).
 * Elements of other sizes than 1, 2, 4, 8 bytes move as bytes, every
 * length scaled by the element size (tcomm_kernel_scale). */
#ifndef TCOMM_KERNEL_INDEX_H
#define TCOMM_KERNEL_INDEX_H

#include <stddef.h>

#include "tcomm_reshape_index.h"

TCOMM_HD static inline size_t tcomm_kernel_unpack_dst(size_t j, size_t col,
                                                      size_t w, size_t total)
{
    /* rank 0 of 2 in the helper's terms: off = { col, col + w, total } */
    size_t off[3];
    off[0] = col;
    off[1] = col + w;
    off[2] = total;
    return tcomm_gather_dst_index(j, 0, off, 2);
}

TCOMM_HD static inline size_t tcomm_kernel_pack_src(size_t j, size_t outer,
                                                    int nranks, size_t chunk)
{
    int r;
    return tcomm_scatter_src_index(j, outer, nranks, chunk, &r);
}

TCOMM_HD static inline size_t tcomm_kernel_split_src(size_t j, size_t col,
                                                     size_t w, size_t total)
{
    return tcomm_kernel_unpack_dst(j, col, w, total);
}

/* The element size a kernel moves (1, 2, 4 or 8), and the factor by
 * which lengths are scaled when elsize is none of them. */
static inline size_t tcomm_kernel_word(size_t elsize)
{
    return elsize == 1 || elsize == 2 || elsize == 4 || elsize == 8 ? elsize
                                                                    : 1;
}
static inline size_t tcomm_kernel_scale(size_t elsize)
{
    return elsize / tcomm_kernel_word(elsize);
}

#endif /* TCOMM_KERNEL_INDEX_H */
