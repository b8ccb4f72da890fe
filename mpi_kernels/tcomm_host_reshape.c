/* SPDX-License-Identifier: BSD-3-Clause */
/* Host reshaping along a dim: gather_unpack (rank-major blocks ->
 * [outer][total]), scatter_pack ([outer][nranks * chunk] -> rank-major
 * blocks) and split_pack, its uneven form. Both are a sequence of row copies; the element index map they
 * implement is spelled out in tcomm_reshape_index.h (which the CUDA
 * kernels use one element per thread) and test/check_kernels.c checks
 * them against it.
 *
 * Rows are copied with memcpy, which is as fast as anything for rows of
 * a cache line or more. Short rows (the typical [big][small] case, e.g.
 * gathering along the last dim of [4096, 2]) would spend most of their
 * time in memcpy's call and dispatch, so rows of up to 32 bytes of a
 * power-of-two element size go through an inline fixed-size copy. */
#include <stdint.h>
#include <string.h>

#include "tcomm_host_kernels.h"

void tcomm_host_copy_rows(void *dst_, size_t dstride, const void *src_,
                          size_t sstride, size_t row_bytes, size_t rows)
{
    char *dst = dst_;
    const char *src = src_;
    size_t o;

    if (row_bytes == 0 || rows == 0)
        return;
    if (row_bytes == dstride && row_bytes == sstride) {
        memcpy(dst, src, row_bytes * rows);
        return;
    }
    switch (row_bytes) {
    case 1:
        for (o = 0; o < rows; o++)
            dst[o * dstride] = src[o * sstride];
        return;
    case 2:
        for (o = 0; o < rows; o++)
            memcpy(dst + o * dstride, src + o * sstride, 2);
        return;
    case 4:
        for (o = 0; o < rows; o++)
            memcpy(dst + o * dstride, src + o * sstride, 4);
        return;
    case 8:
        for (o = 0; o < rows; o++)
            memcpy(dst + o * dstride, src + o * sstride, 8);
        return;
    case 16:
        for (o = 0; o < rows; o++)
            memcpy(dst + o * dstride, src + o * sstride, 16);
        return;
    case 32:
        for (o = 0; o < rows; o++)
            memcpy(dst + o * dstride, src + o * sstride, 32);
        return;
    default:
        for (o = 0; o < rows; o++)
            memcpy(dst + o * dstride, src + o * sstride, row_bytes);
        return;
    }
}

void tcomm_host_gather_unpack(const void *src, void *dst, size_t elsize,
                              size_t outer, int nranks, const size_t *seg)
{
    size_t total = 0, col = 0;
    const char *s = src;
    int r;

    for (r = 0; r < nranks; r++)
        total += seg[r];
    for (r = 0; r < nranks; r++) {
        tcomm_host_copy_rows((char *)dst + col * elsize, total * elsize, s,
                             seg[r] * elsize, seg[r] * elsize, outer);
        s += outer * seg[r] * elsize;
        col += seg[r];
    }
}

void tcomm_host_scatter_pack(const void *src, void *dst, size_t elsize,
                             size_t outer, int nranks, size_t chunk)
{
    size_t row = chunk * elsize;
    size_t width = (size_t)nranks * row;
    char *d = dst;
    int r;

    for (r = 0; r < nranks; r++) {
        tcomm_host_copy_rows(d, row, (const char *)src + (size_t)r * row,
                             width, row, outer);
        d += outer * row;
    }
}

void tcomm_host_split_pack(const void *src, void *dst, size_t elsize,
                           size_t outer, int nranks, const size_t *seg)
{
    size_t total = 0, col = 0;
    char *d = dst;
    int r;

    for (r = 0; r < nranks; r++)
        total += seg[r];
    for (r = 0; r < nranks; r++) {
        tcomm_host_copy_rows(d, seg[r] * elsize,
                             (const char *)src + col * elsize,
                             total * elsize, seg[r] * elsize, outer);
        d += outer * seg[r] * elsize;
        col += seg[r];
    }
}
