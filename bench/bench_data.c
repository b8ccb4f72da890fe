/* SPDX-License-Identifier: BSD-3-Clause */
/* Dtypes of the harness: names, sizes, the MPI datatype of the baseline,
 * f16/bf16 conversions, and the fill and compare of -c validation. */
#include <stdint.h>
#include <string.h>

#include "tcomm_bench.h"

static const struct {
    const char *name;
    tcomm_dtype_t dtype;
    size_t size;
} dtypes[] = {
    {"f32", TCOMM_F32, 4}, {"f64", TCOMM_F64, 8}, {"f16", TCOMM_F16, 2},
    {"bf16", TCOMM_BF16, 2}, {"i32", TCOMM_I32, 4}, {"u32", TCOMM_U32, 4},
    {"i64", TCOMM_I64, 8}, {"i8", TCOMM_I8, 1}, {"u8", TCOMM_U8, 1},
};
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

const char *bench_dtype_name(tcomm_dtype_t dtype)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].dtype == dtype)
            return dtypes[i].name;
    return "?";
}

int bench_dtype_parse(const char *text, tcomm_dtype_t *dtype)
{
    for (size_t i = 0; i < NDTYPES; i++) {
        if (strcmp(text, dtypes[i].name) == 0) {
            *dtype = dtypes[i].dtype;
            return 0;
        }
    }
    return -1;
}

size_t bench_dtype_size(tcomm_dtype_t dtype)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].dtype == dtype)
            return dtypes[i].size;
    return 0;
}

/* The datatype of the raw MPI call. f16 and bf16 have none: data movement
 * uses MPI_UINT16_T, reductions use MPI_FLOAT over the same bytes (the
 * baseline of the issue), chosen by the collective. */
MPI_Datatype bench_mpi_type(tcomm_dtype_t dtype)
{
    switch (dtype) {
    case TCOMM_F32: return MPI_FLOAT;
    case TCOMM_F64: return MPI_DOUBLE;
    case TCOMM_I32: return MPI_INT32_T;
    case TCOMM_U32: return MPI_UINT32_T;
    case TCOMM_I64: return MPI_INT64_T;
    case TCOMM_I8: return MPI_INT8_T;
    case TCOMM_U8: return MPI_UINT8_T;
    case TCOMM_F16:
    case TCOMM_BF16: return MPI_UINT16_T;
    }
    return MPI_BYTE;
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(x >> 16);
}

static float bf16_to_f32(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Exact for the small integers the harness uses; rounds to nearest even
 * for normal numbers, flushes what f16 cannot hold to zero or inf. */
static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    int exp = (int)((x >> 23) & 0xffu) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (exp >= 31)
        return sign | 0x7c00u;
    if (exp <= 0)
        return sign;
    uint32_t h = ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
    if (exp == 0) {
        float v = (float)mant / 16777216.0f; /* subnormal: mant * 2^-24 */
        return sign ? -v : v;
    }
    if (exp == 31)
        x = sign | 0x7f800000u | (mant << 13);
    else
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}

double bench_value(int rank, size_t i)
{
    return (double)(((size_t)rank * 7 + (i % 8) * 3 + 1) % 8);
}

void bench_store(tcomm_dtype_t dtype, void *buf, size_t i, double v)
{
    switch (dtype) {
    case TCOMM_F32: ((float *)buf)[i] = (float)v; break;
    case TCOMM_F64: ((double *)buf)[i] = v; break;
    case TCOMM_F16: ((uint16_t *)buf)[i] = f32_to_f16((float)v); break;
    case TCOMM_BF16: ((uint16_t *)buf)[i] = f32_to_bf16((float)v); break;
    case TCOMM_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case TCOMM_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case TCOMM_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case TCOMM_I8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case TCOMM_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    }
}

double bench_load(tcomm_dtype_t dtype, const void *buf, size_t i)
{
    switch (dtype) {
    case TCOMM_F32: return ((const float *)buf)[i];
    case TCOMM_F64: return ((const double *)buf)[i];
    case TCOMM_F16: return f16_to_f32(((const uint16_t *)buf)[i]);
    case TCOMM_BF16: return bf16_to_f32(((const uint16_t *)buf)[i]);
    case TCOMM_I32: return ((const int32_t *)buf)[i];
    case TCOMM_U32: return ((const uint32_t *)buf)[i];
    case TCOMM_I64: return (double)((const int64_t *)buf)[i];
    case TCOMM_I8: return ((const int8_t *)buf)[i];
    case TCOMM_U8: return ((const uint8_t *)buf)[i];
    }
    return 0.0;
}

void bench_fill(tcomm_dtype_t dtype, void *buf, size_t count, int rank)
{
    for (size_t i = 0; i < count; i++)
        bench_store(dtype, buf, i, bench_value(rank, i));
}

/* A pattern that no expected value has in any dtype (-101 or 0x9b). */
void bench_poison(void *buf, size_t bytes)
{
    memset(buf, 0x9b, bytes);
}

size_t bench_compare(const bench_run_t *r, const void *out)
{
    size_t bad = 0;
    for (size_t i = 0; i < r->out_count; i++)
        if (bench_load(r->opt->dtype, out, i) != r->coll->expect(r, i))
            bad++;
    return bad;
}

void bench_fill_input(const bench_run_t *r)
{
    for (size_t i = 0; i < r->in_count; i++)
        bench_store(r->opt->dtype, r->in_buf, i,
                    bench_input_value(r, r->rank, i));
}
