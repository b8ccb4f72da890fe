/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI suites' reference: inputs from (rank, index), expected results
 * in double, and f16/bf16 conversions written independently of tcomm's. */
#include "mpi_reference.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int ref_is_float(tcomm_dtype_t d)
{
    return d == TCOMM_F16 || d == TCOMM_BF16 || d == TCOMM_F32 ||
           d == TCOMM_F64;
}

static int is_unsigned(tcomm_dtype_t d)
{
    return d == TCOMM_U8 || d == TCOMM_U32;
}

double ref_value(tcomm_dtype_t d, int op, int rank, size_t i)
{
    long k = (long)(i % 1000003);
    switch (op) {
    case TCOMM_SUM:
    case TCOMM_AVG:
        return (double)((rank * 7 + k * 3) % 17) - (is_unsigned(d) ? 0 : 8);
    case TCOMM_PROD: {
        static const double f[4] = {0.5, 1, 2, -1}, s[4] = {1, 2, -1, -2},
                            u[4] = {1, 2, 3, 1};
        int j = (int)((rank + k) % 4);
        return ref_is_float(d) ? f[j] : is_unsigned(d) ? u[j] : s[j];
    }
    case TCOMM_MIN:
    case TCOMM_MAX:
        return (double)((rank * 13 + k * 5) % 23) - (is_unsigned(d) ? 0 : 11);
    default: /* payload: distinct per rank, exact in every dtype */
        return (double)((rank * 37 + k * 11) % 101) -
               (is_unsigned(d) ? 0 : 50);
    }
}

/* Exact decode of IEEE binary16. */
static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Round to nearest even into binary16, by search over the 65536
 * encodings' neighbours: slow, obviously correct; the test values are
 * exact anyway. */
static uint16_t double_to_half(double v)
{
    if (isnan(v))
        return 0x7e00;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    uint16_t lo = 0, hi = 0x7c00; /* 0 .. Inf, monotonic in magnitude */
    while (hi - lo > 1) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if (half_to_double(mid) <= a)
            lo = mid;
        else
            hi = mid;
    }
    double dl = a - half_to_double(lo), dh = half_to_double(hi) - a;
    uint16_t r = dl < dh ? lo : dh < dl ? hi : (lo & 1) ? hi : lo;
    return sign | r;
}

static double bf16_to_double(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t double_to_bf16(double v)
{
    if (isnan(v))
        return 0x7fc0;
    float f = (float)v; /* the test values are exact in float */
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t rest = u & 0xffff, keep = u >> 16;
    if (rest > 0x8000 || (rest == 0x8000 && (keep & 1)))
        keep++;
    return (uint16_t)keep;
}

void ref_store(tcomm_dtype_t d, void *buf, size_t i, double v)
{
    switch (d) {
    case TCOMM_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case TCOMM_I8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case TCOMM_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case TCOMM_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case TCOMM_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case TCOMM_F16: ((uint16_t *)buf)[i] = double_to_half(v); break;
    case TCOMM_BF16: ((uint16_t *)buf)[i] = double_to_bf16(v); break;
    case TCOMM_F32: ((float *)buf)[i] = (float)v; break;
    case TCOMM_F64: ((double *)buf)[i] = v; break;
    }
}

double ref_load(tcomm_dtype_t d, const void *buf, size_t i)
{
    switch (d) {
    case TCOMM_U8: return ((const uint8_t *)buf)[i];
    case TCOMM_I8: return ((const int8_t *)buf)[i];
    case TCOMM_I32: return ((const int32_t *)buf)[i];
    case TCOMM_U32: return ((const uint32_t *)buf)[i];
    case TCOMM_I64: return (double)((const int64_t *)buf)[i];
    case TCOMM_F16: return half_to_double(((const uint16_t *)buf)[i]);
    case TCOMM_BF16: return bf16_to_double(((const uint16_t *)buf)[i]);
    case TCOMM_F32: return ((const float *)buf)[i];
    case TCOMM_F64: return ((const double *)buf)[i];
    }
    return NAN;
}

void ref_store_nan(tcomm_dtype_t d, void *buf, size_t i)
{
    ref_store(d, buf, i, NAN);
}

void ref_fill(tcomm_dtype_t d, int op, int rank, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ref_store(d, buf, i, ref_value(d, op, rank, i));
}

double ref_reduce(tcomm_dtype_t d, int op, int nranks, size_t i)
{
    double acc = ref_value(d, op, 0, i);
    for (int r = 1; r < nranks; r++) {
        double v = ref_value(d, op, r, i);
        switch (op) {
        case TCOMM_SUM:
        case TCOMM_AVG: acc += v; break;
        case TCOMM_PROD: acc *= v; break;
        case TCOMM_MIN: acc = v < acc ? v : acc; break;
        case TCOMM_MAX: acc = v > acc ? v : acc; break;
        }
    }
    return op == TCOMM_AVG ? acc / nranks : acc;
}

int ref_match(tcomm_dtype_t d, int op, double got, double want)
{
    if (isnan(want))
        return isnan(got);
    if (op != TCOMM_AVG)
        return got == want;
    double tol = d == TCOMM_F64 ? 1e-12 : d == TCOMM_F32 ? 1e-6 : 1e-2;
    return fabs(got - want) <= tol * (fabs(want) + 1);
}
