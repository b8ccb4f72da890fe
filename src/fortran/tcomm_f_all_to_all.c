/* SPDX-License-Identifier: BSD-3-Clause */
/* all_to_all, all_to_all_v and reduce_scatter_v of the Fortran module.
 * The even all_to_all goes through tcomm_all_to_all_into straight into
 * recvbuf, as the seed's calls do (tcomm_f_colls.c). The _v forms have no
 * _into form in C: tcomm allocates the result, which is copied into
 * recvbuf. What C checks too (dims, the sizes' sum, op) is passed on as
 * it is, so that the peers' texts name the real cause; what C cannot see
 * (recvbuf, the length and signs of the sizes array) joins the collective
 * with a NULL input, so that the peers fail too instead of waiting, and
 * ends with the status found here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_f.h"

/* Open sendbuf and recvbuf; the caller joins the collective on failure. */
static int open_pair(tcomm_f_comm_t *fc, const char *fn, CFI_cdesc_t *send,
                     CFI_cdesc_t *recv, tcomm_f_view_t *s, tcomm_f_view_t *r)
{
    int st = tcomm_f_view_open(fc, fn, "sendbuf", send, 1, s);
    if (st == TCOMM_SUCCESS) {
        st = tcomm_f_view_open(fc, fn, "recvbuf", recv, 0, r);
        if (st != TCOMM_SUCCESS)
            tcomm_f_view_close(s, 0);
    }
    return st;
}

/* These calls split sendbuf: a scalar (a 0-d tensor in C) will not do. */
static void check_array(tcomm_f_pre_t *p, const char *fn,
                        const tcomm_f_view_t *s)
{
    if (s->rank == 0)
        tcomm_f_pre_fail(p, TCOMM_ERR_SHAPE,
                         "%s: sendbuf is a scalar (pass an array of rank 1 "
                         "or more)",
                         fn);
}

/* The length and signs of a sizes array (one entry per rank) into
 * @p out; 1 if the array is fit to pass to C. */
static int check_sizes(tcomm_f_pre_t *p, const char *fn, const char *name,
                       const int64_t *sizes, int n, int world, size_t *out)
{
    if (n != world) {
        tcomm_f_pre_fail(p, TCOMM_ERR_INVALID_ARG,
                         "%s: %s has %d entries but the world size is %d "
                         "(pass one per rank)",
                         fn, name, n, world);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) {
            tcomm_f_pre_fail(p, TCOMM_ERR_INVALID_ARG,
                             "%s: %s(%d) is %lld (sizes are 0 or more)", fn,
                             name, i + 1, (long long)sizes[i]);
            return 0;
        }
        out[i] = (size_t)sizes[i];
    }
    return 1;
}

/* sum(sizes) against sendbuf's extent along @p dim (called @p dname). */
static void check_sum(tcomm_f_pre_t *p, const char *fn, const char *name,
                      const size_t *sz, int n, const tcomm_f_view_t *s,
                      const char *dname, int dim)
{
    size_t sum = 0, ext = s->ext[dim - 1];
    for (int i = 0; i < n; i++)
        sum += sz[i];
    if (sum != ext)
        tcomm_f_pre_fail(p, TCOMM_ERR_SHAPE,
                         "%s: %s add up to %zu but sendbuf has extent %zu "
                         "along %s %d (make them add up to %zu)",
                         fn, name, sum, ext, dname, dim, ext);
}

/* A result of tcomm's into recvbuf, if it has recvbuf's shape. */
static int take_result(const char *fn, const tcomm_tensor_t *out,
                       tcomm_f_view_t *r)
{
    int nd = tcomm_tensor_ndim(out), ok = nd == r->rank;
    size_t ext[TCOMM_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        ext[i] = tcomm_tensor_dim(out, nd - 1 - i);
        ok = ok && ext[i] == r->ext[i];
    }
    if (!ok) {
        char got[128], want[128];
        tcomm_f_shape_text(r->rank, r->ext, got, sizeof got);
        tcomm_f_shape_text(nd, ext, want, sizeof want);
        return tcomm_f_fail(TCOMM_ERR_SHAPE,
                            "%s: recvbuf has shape %s but the result has "
                            "shape %s (allocate recvbuf with that shape)",
                            fn, got, want);
    }
    size_t bytes = tcomm_tensor_numel(out) * tcomm_dtype_size(r->dtype);
    int st = tcomm_tensor_to_host(out, tcomm_tensor_data(r->tensor), bytes);
    return st ? tcomm_f_from_c(st, fn, 0) : TCOMM_SUCCESS;
}

int tcomm_f_all_to_all(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                       CFI_cdesc_t *recv, int split, int concat)
{
    static const char fn[] = "tcomm_all_to_all";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    tcomm_f_view_t s, r;
    int st = open_pair(fc, fn, send, recv, &s, &r);
    if (st != TCOMM_SUCCESS) { /* the C call still meets the peers */
        tcomm_all_to_all_into(fc->comm, NULL, -1, -1, NULL);
        return st;
    }
    tcomm_f_pre_t pre = {0};
    int n = fc->world_size;
    tcomm_f_check_dim(&pre, fn, "split_dim", &s, split);
    tcomm_f_check_dim(&pre, fn, "concat_dim", &s, concat);
    check_array(&pre, fn, &s);
    if (!pre.status && s.ext[split - 1] % (size_t)n)
        tcomm_f_pre_fail(&pre, TCOMM_ERR_SHAPE,
                         "%s: extent %zu of sendbuf along split_dim %d is "
                         "not divisible by the world size %d (make it a "
                         "multiple of %d, or use tcomm_all_to_all_v)",
                         fn, s.ext[split - 1], split, n, n);
    if (!pre.status) {
        size_t want[TCOMM_MAX_DIMS];
        memcpy(want, s.ext, sizeof want);
        want[split - 1] /= (size_t)n;
        if (split != concat)
            want[concat - 1] *= (size_t)n;
        tcomm_f_check_recv(&pre, fn, &s, &r, s.rank, want, 0, "");
    }
    st = tcomm_all_to_all_into(fc->comm, s.tensor,
                               tcomm_f_c_dim(s.rank, split),
                               tcomm_f_c_dim(s.rank, concat), r.tensor);
    tcomm_f_view_close(&s, 0);
    tcomm_f_view_close(&r, st == TCOMM_SUCCESS);
    return tcomm_f_finish(st, &pre, fn);
}

/* The sizes array's C copy and both buffers; on failure the caller joins
 * the collective with a NULL input. */
static int open_sized(tcomm_f_comm_t *fc, const char *fn, CFI_cdesc_t *send,
                      CFI_cdesc_t *recv, tcomm_f_view_t *s, tcomm_f_view_t *r,
                      size_t **sz)
{
    *sz = calloc((size_t)fc->world_size, sizeof **sz);
    int st =
        *sz ? open_pair(fc, fn, send, recv, s, r)
            : tcomm_f_fail(TCOMM_ERR_NO_MEMORY, "%s: out of host memory", fn);
    if (st != TCOMM_SUCCESS) {
        free(*sz);
        *sz = NULL;
    }
    return st;
}

/* The call's status: a failure C could not see (blind), else the result
 * copied into recvbuf or C's failure in Fortran terms; frees the rest. */
static int finish_sized(int st, int blind, const tcomm_f_pre_t *pre,
                        const char *fn, tcomm_tensor_t *out, tcomm_f_view_t *s,
                        tcomm_f_view_t *r, size_t *sz)
{
    if (blind)
        st = tcomm_f_fail(pre->status, "%s", pre->text);
    else if (st == TCOMM_SUCCESS)
        st = take_result(fn, out, r);
    else
        st = tcomm_f_finish(st, pre, fn);
    tcomm_tensor_release(out);
    tcomm_f_view_close(s, 0);
    tcomm_f_view_close(r, st == TCOMM_SUCCESS);
    free(sz);
    return st;
}

int tcomm_f_all_to_all_v(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                         CFI_cdesc_t *recv, int split, const int64_t *sizes,
                         int nsizes, int concat)
{
    static const char fn[] = "tcomm_all_to_all_v";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    tcomm_f_view_t s, r;
    tcomm_tensor_t *out = NULL;
    int n = fc->world_size;
    size_t *sz;
    int st = open_sized(fc, fn, send, recv, &s, &r, &sz);
    if (st != TCOMM_SUCCESS) { /* the C call still meets the peers */
        tcomm_all_to_all_v(fc->comm, NULL, -1, NULL, -1, &out);
        return st;
    }
    tcomm_f_pre_t pre = {0};
    int blind = 0; /* a failure C cannot see: join with a NULL input */
    tcomm_f_check_dim(&pre, fn, "split_dim", &s, split);
    tcomm_f_check_dim(&pre, fn, "concat_dim", &s, concat);
    check_array(&pre, fn, &s);
    char note[96] = "";
    if (!pre.status) {
        blind = !check_sizes(&pre, fn, "send_sizes", sizes, nsizes, n, sz);
        if (!blind)
            check_sum(&pre, fn, "send_sizes", sz, n, &s, "split_dim", split);
    }
    if (!pre.status) {
        size_t want[TCOMM_MAX_DIMS];
        memcpy(want, s.ext, sizeof want);
        if (split != concat)
            want[split - 1] = sz[fc->rank];
        if (split == concat)
            snprintf(note, sizeof note,
                     " (*: the sum of the ranks' send_sizes(%d))",
                     fc->rank + 1);
        else
            snprintf(note, sizeof note,
                     " (*: the sum of the ranks' extents along "
                     "concat_dim)");
        tcomm_f_check_recv(&pre, fn, &s, &r, s.rank, want, concat, note);
        blind = pre.status != 0;
    }
    st = tcomm_all_to_all_v(fc->comm, blind ? NULL : s.tensor,
                            tcomm_f_c_dim(s.rank, split), blind ? NULL : sz,
                            tcomm_f_c_dim(s.rank, concat), &out);
    return finish_sized(st, blind, &pre, fn, out, &s, &r, sz);
}

int tcomm_f_reduce_scatter_v(tcomm_f_comm_t *fc, CFI_cdesc_t *send,
                             CFI_cdesc_t *recv, int op, int dim,
                             const int64_t *sizes, int nsizes)
{
    static const char fn[] = "tcomm_reduce_scatter_v";
    tcomm_f_clear();
    if (!fc)
        return tcomm_f_no_comm(fn);
    tcomm_f_view_t s, r;
    tcomm_tensor_t *out = NULL;
    int n = fc->world_size;
    size_t *sz;
    int st = open_sized(fc, fn, send, recv, &s, &r, &sz);
    if (st != TCOMM_SUCCESS) { /* the C call still meets the peers */
        tcomm_reduce_scatter_v(fc->comm, NULL, (tcomm_op_t)op, -1, NULL, &out);
        return st;
    }
    tcomm_f_pre_t pre = {0};
    int blind = 0;
    tcomm_f_check_op(&pre, fn, "sendbuf", &s, op);
    tcomm_f_check_dim(&pre, fn, "dim", &s, dim);
    check_array(&pre, fn, &s);
    if (!pre.status) {
        blind = !check_sizes(&pre, fn, "sizes", sizes, nsizes, n, sz);
        if (!blind)
            check_sum(&pre, fn, "sizes", sz, n, &s, "dim", dim);
    }
    if (!pre.status) {
        size_t want[TCOMM_MAX_DIMS];
        memcpy(want, s.ext, sizeof want);
        want[dim - 1] = sz[fc->rank];
        tcomm_f_check_recv(&pre, fn, &s, &r, s.rank, want, 0, "");
        blind = pre.status != 0;
    }
    st = tcomm_reduce_scatter_v(fc->comm, blind ? NULL : s.tensor,
                                (tcomm_op_t)op, tcomm_f_c_dim(s.rank, dim),
                                blind ? NULL : sz, &out);
    return finish_sized(st, blind, &pre, fn, out, &s, &r, sz);
}
