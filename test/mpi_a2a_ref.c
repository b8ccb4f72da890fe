/* SPDX-License-Identifier: BSD-3-Clause */
/* The all_to_all reference (mpi_a2a_ref.h): element by element, the
 * piece from each rank walked with a multi-index. */
#include <stdlib.h>
#include <string.h>

#include "mpi_a2a_ref.h"
#include "mpi_reference.h"

void a2a_equal_ranks(a2a_rank_t *rk, int nranks, int nd, const size_t *shape,
                     int split)
{
    for (int r = 0; r < nranks; r++) {
        memcpy(rk[r].shape, shape, (size_t)nd * sizeof *shape);
        for (int j = 0; j < nranks; j++)
            rk[r].send[j] = shape[split] / (size_t)nranks;
    }
}

void a2a_token_ranks(a2a_rank_t *rk, int nranks, int nd, const size_t *base,
                     int split, int seed, size_t unit)
{
    for (int r = 0; r < nranks; r++) {
        memcpy(rk[r].shape, base, (size_t)nd * sizeof *base);
        rk[r].shape[split] = 0;
        for (int j = 0; j < nranks; j++) {
            rk[r].send[j] = (size_t)((r + 2 * j + seed) % 4) * unit;
            rk[r].shape[split] += rk[r].send[j];
        }
    }
}

void a2a_transpose_ranks(a2a_rank_t *rk, int nranks, int nd,
                         const size_t *base, int split, int concat, int seed,
                         size_t unit)
{
    for (int r = 0; r < nranks; r++) {
        memcpy(rk[r].shape, base, (size_t)nd * sizeof *base);
        rk[r].shape[split] = 0;
        for (int j = 0; j < nranks; j++) {
            rk[r].send[j] = (size_t)((2 * j + 1 + seed) % 3) * unit;
            rk[r].shape[split] += rk[r].send[j];
        }
        rk[r].shape[concat] = (size_t)((r + seed) % 3) * unit;
    }
}

static size_t flat(int nd, const size_t *shape, const size_t *idx)
{
    size_t f = 0;
    for (int k = 0; k < nd; k++)
        f = f * shape[k] + idx[k];
    return f;
}

size_t a2a_expect(tcomm_dtype_t d, int nd, int s, int c, int nranks,
                  const a2a_rank_t *rk, int me, size_t *oshape,
                  double **want)
{
    size_t n = 1, coff = 0, bad = 0;
    unsigned char *seen;

    memcpy(oshape, rk[me].shape, (size_t)nd * sizeof *oshape);
    oshape[s] = 0;
    oshape[c] = 0;
    for (int r = 0; r < nranks; r++) {
        if (s == c)
            oshape[s] += rk[r].send[me];
        else {
            oshape[s] = rk[r].send[me];
            oshape[c] += rk[r].shape[c];
        }
    }
    for (int k = 0; k < nd; k++)
        n *= oshape[k];
    *want = calloc(n + 1, sizeof **want);
    seen = calloc(n + 1, 1);
    for (int r = 0; r < nranks; r++) {
        size_t b[A2A_MAX_DIMS], idx[A2A_MAX_DIMS] = {0}, m = 1, soff = 0;
        memcpy(b, rk[r].shape, (size_t)nd * sizeof *b);
        b[s] = rk[r].send[me];
        for (int j = 0; j < me; j++)
            soff += rk[r].send[j];
        for (int k = 0; k < nd; k++)
            m *= b[k];
        for (size_t e = 0; e < m; e++) {
            size_t src[A2A_MAX_DIMS], dst[A2A_MAX_DIMS], i = e;
            for (int k = nd - 1; k >= 0; k--) {
                idx[k] = i % b[k];
                i /= b[k];
            }
            memcpy(src, idx, sizeof src);
            memcpy(dst, idx, sizeof dst);
            src[s] += soff;
            dst[c] += coff;
            size_t o = flat(nd, oshape, dst);
            if (o >= n || seen[o]++) {
                bad = 1;
                continue;
            }
            (*want)[o] = ref_value(d, -1, r, flat(nd, rk[r].shape, src));
        }
        coff += b[c];
    }
    for (size_t o = 0; o < n; o++)
        bad |= !seen[o];
    free(seen);
    return bad ? (size_t)-1 : n;
}
