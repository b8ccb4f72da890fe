/* SPDX-License-Identifier: BSD-3-Clause */
/* Fortran arrays as tcomm tensors. The descriptor gives the type, rank,
 * extents and byte strides (sm) of the array or section. A contiguous
 * array is wrapped in place; a section such as a(1:2, 1:3) or a(1:n:2)
 * is copied into a contiguous temporary in Fortran (column-major) order,
 * which is exactly the row-major layout of the reversed extents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_f.h"

/* The tcomm dtype of a descriptor's type; -1 if it has none. */
static int dtype_of(const CFI_cdesc_t *d)
{
    CFI_type_t t = d->type;
    if (t == CFI_type_float)
        return TCOMM_F32;
    if (t == CFI_type_double)
        return TCOMM_F64;
    if (t == CFI_type_int8_t)
        return TCOMM_I8;
    if (t == CFI_type_int32_t)
        return TCOMM_I32;
    if (t == CFI_type_int64_t)
        return TCOMM_I64;
    return -1;
}

/* A name for a type tcomm does not take. */
static const char *other_type_name(const CFI_cdesc_t *d, char *buf,
                                   size_t len)
{
    if (d->type == CFI_type_struct)
        return "a derived type";
    if (d->type == CFI_type_cptr)
        return "type(c_ptr)";
#ifdef CFI_type_mask /* gfortran: intrinsic type + (kind << shift) */
    static const char *const base[] = {
        [CFI_type_Integer] = "integer", [CFI_type_Logical] = "logical",
        [CFI_type_Real] = "real", [CFI_type_Complex] = "complex",
        [CFI_type_Character] = "character"};
    int b = d->type & CFI_type_mask;
    if (d->type > 0 && b >= CFI_type_Integer && b <= CFI_type_Character) {
        snprintf(buf, len, "%s(%d)", base[b],
                 (int)(d->type >> CFI_type_kind_shift));
        return buf;
    }
#endif
    snprintf(buf, len, "of CFI type %d, %zu bytes per element",
             (int)d->type, (size_t)d->elem_len);
    return buf;
}

const char *tcomm_f_type_name(tcomm_dtype_t dtype)
{
    switch (dtype) {
    case TCOMM_F32: return "real(4)";
    case TCOMM_F64: return "real(8)";
    case TCOMM_I8: return "integer(1)";
    case TCOMM_I32: return "integer(4)";
    case TCOMM_I64: return "integer(8)";
    default: return tcomm_dtype_name(dtype);
    }
}

void tcomm_f_shape_text(int rank, const size_t *ext, char *buf, size_t len)
{
    if (rank == 0) {
        snprintf(buf, len, "scalar");
        return;
    }
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < rank && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%zu",
                                 i ? ", " : "", ext[i]);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

static int is_contiguous(const CFI_cdesc_t *d, size_t numel)
{
    if (numel == 0)
        return 1;
    ptrdiff_t want = (ptrdiff_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent > 1 && d->dim[i].sm != want)
            return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

/* Copy between the array and a contiguous buffer, in Fortran order. */
static void copy_strided(const CFI_cdesc_t *d, char *packed, int to_packed)
{
    size_t el = d->elem_len;
    char *base = d->base_addr;
    size_t n0 = (size_t)d->dim[0].extent;
    ptrdiff_t s0 = d->dim[0].sm;
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    for (;;) {
        char *p = base;
        for (int i = 1; i < d->rank; i++)
            p += idx[i] * d->dim[i].sm;
        for (size_t j = 0; j < n0; j++, p += s0, packed += el) {
            if (to_packed)
                memcpy(packed, p, el);
            else
                memcpy(p, packed, el);
        }
        int i = 1;
        while (i < d->rank && ++idx[i] == d->dim[i].extent)
            idx[i++] = 0;
        if (i >= d->rank)
            return;
    }
}

int tcomm_f_view_open(tcomm_f_comm_t *fc, const char *fn, const char *arg,
                      const CFI_cdesc_t *d, int copy_in, tcomm_f_view_t *v)
{
    char tbuf[64];
    memset(v, 0, sizeof *v);
    v->desc = d;
    if (!d)
        return tcomm_f_fail(TCOMM_ERR_INVALID_ARG,
                            "%s: %s is not present (pass an array)", fn, arg);
    int dt = dtype_of(d);
    if (dt < 0)
        return tcomm_f_fail(TCOMM_ERR_DTYPE,
                            "%s: %s is %s (pass a real(4), real(8), "
                            "integer(1), integer(4) or integer(8) array)",
                            fn, arg, other_type_name(d, tbuf, sizeof tbuf));
    if (d->rank > TCOMM_MAX_DIMS)
        return tcomm_f_fail(TCOMM_ERR_SHAPE,
                            "%s: %s has rank %d but tcomm takes up to %d "
                            "dimensions (reshape it, e.g. with a pointer of "
                            "lower rank)",
                            fn, arg, (int)d->rank, TCOMM_MAX_DIMS);
    v->dtype = (tcomm_dtype_t)dt;
    v->rank = d->rank;
    size_t numel = 1, shape[TCOMM_MAX_DIMS];
    for (int i = 0; i < v->rank; i++) {
        v->ext[i] = d->dim[i].extent > 0 ? (size_t)d->dim[i].extent : 0;
        shape[v->rank - 1 - i] = v->ext[i];
        numel *= v->ext[i];
    }
    void *data = d->base_addr;
    if (!is_contiguous(d, numel)) {
        v->tmp = malloc(numel * d->elem_len);
        if (!v->tmp)
            return tcomm_f_fail(TCOMM_ERR_NO_MEMORY,
                                "%s: no host memory for a contiguous copy "
                                "of the section %s (%zu bytes)",
                                fn, arg, numel * d->elem_len);
        if (copy_in)
            copy_strided(d, v->tmp, 1);
        data = v->tmp;
    }
    int st = tcomm_tensor_wrap(fc->graph, v->dtype, data, v->rank, shape,
                               &v->tensor);
    if (st != TCOMM_SUCCESS) {
        free(v->tmp);
        v->tmp = NULL;
        return tcomm_f_from_c(st, fn, 0);
    }
    return TCOMM_SUCCESS;
}

void tcomm_f_view_unpack(const CFI_cdesc_t *d, const void *packed)
{
    copy_strided(d, (char *)packed, 0);
}

void tcomm_f_view_close(tcomm_f_view_t *v, int copy_out)
{
    if (v->tmp && copy_out)
        copy_strided(v->desc, v->tmp, 0);
    tcomm_tensor_release(v->tensor);
    free(v->tmp);
    v->tensor = NULL;
    v->tmp = NULL;
}
