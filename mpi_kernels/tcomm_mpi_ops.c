/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI datatypes of the dtypes, and the user functions of the reduction
 * ops that MPI cannot do exactly.
 *
 * Built-in MPI ops where they are exact: every integer op, and f32/f64
 * SUM/PROD. User functions where MPI cannot do it: f16 and bf16 (which
 * travel as MPI_UINT16_T, so the op, not the datatype, says which one)
 * and f32/f64 MIN/MAX, which must propagate NaN (MPI_MIN/MAX on floats
 * follow C's < and may drop a NaN). They call tcomm_host_reduce, so MPI's
 * reductions and the host path agree bit for bit. Stateless: the MPI_Op
 * handles made of them, created once and freed at MPI_Finalize, are the
 * MPI backend's (src/mpi/user_ops.c). */

#include "tcomm_host_kernels.h"
#include "tcomm_mpi_kernels.h"

MPI_Datatype tcomm_mpi_datatype(tcomm_dtype_t dtype)
{
    switch (dtype) {
    case TCOMM_U8: return MPI_UINT8_T;
    case TCOMM_I8: return MPI_INT8_T;
    case TCOMM_I32: return MPI_INT32_T;
    case TCOMM_U32: return MPI_UINT32_T;
    case TCOMM_I64: return MPI_INT64_T;
    case TCOMM_F16: return MPI_UINT16_T;
    case TCOMM_BF16: return MPI_UINT16_T;
    case TCOMM_F32: return MPI_FLOAT;
    case TCOMM_F64: return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

/* MPI-4 passes the count of a user op as MPI_Count where the op is made
 * with MPI_Op_create_c, which large-count (_c) collectives need. */
#if MPI_VERSION >= 4
typedef MPI_Count tcomm_op_len_t;
#else
typedef int tcomm_op_len_t;
#endif

/* inout[i] = in[i] op inout[i]; every op here is commutative, and the
 * fold step is acc = acc op x, so acc is inout. */
#define TCOMM_USER_FN(name, DT, OP)                                     \
    static void name(void *in, void *inout, tcomm_op_len_t *len,        \
                     MPI_Datatype *type)                                \
    {                                                                   \
        (void)type;                                                     \
        tcomm_host_reduce(DT, OP, inout, in, (size_t)*len);             \
    }

TCOMM_USER_FN(user_f16_sum, TCOMM_F16, TCOMM_SUM)
TCOMM_USER_FN(user_f16_prod, TCOMM_F16, TCOMM_PROD)
TCOMM_USER_FN(user_f16_min, TCOMM_F16, TCOMM_MIN)
TCOMM_USER_FN(user_f16_max, TCOMM_F16, TCOMM_MAX)
TCOMM_USER_FN(user_bf16_sum, TCOMM_BF16, TCOMM_SUM)
TCOMM_USER_FN(user_bf16_prod, TCOMM_BF16, TCOMM_PROD)
TCOMM_USER_FN(user_bf16_min, TCOMM_BF16, TCOMM_MIN)
TCOMM_USER_FN(user_bf16_max, TCOMM_BF16, TCOMM_MAX)
TCOMM_USER_FN(user_f32_min, TCOMM_F32, TCOMM_MIN)
TCOMM_USER_FN(user_f32_max, TCOMM_F32, TCOMM_MAX)
TCOMM_USER_FN(user_f64_min, TCOMM_F64, TCOMM_MIN)
TCOMM_USER_FN(user_f64_max, TCOMM_F64, TCOMM_MAX)

/* The table of user functions: index = slot(dtype) * 4 + op (SUM..MAX). */
enum { SLOT_F16, SLOT_BF16, SLOT_F32, SLOT_F64, SLOT_COUNT };

static tcomm_mpi_user_fn_t *const user_fns[SLOT_COUNT * 4] = {
    user_f16_sum, user_f16_prod, user_f16_min, user_f16_max,
    user_bf16_sum, user_bf16_prod, user_bf16_min, user_bf16_max,
    NULL, NULL, user_f32_min, user_f32_max,
    NULL, NULL, user_f64_min, user_f64_max,
};

tcomm_mpi_user_fn_t *tcomm_mpi_user_fn(tcomm_dtype_t dtype, tcomm_op_t op)
{
    int slot;
    if ((unsigned)op > TCOMM_MAX)
        return NULL;
    switch (dtype) {
    case TCOMM_F16: slot = SLOT_F16; break;
    case TCOMM_BF16: slot = SLOT_BF16; break;
    case TCOMM_F32: slot = SLOT_F32; break;
    case TCOMM_F64: slot = SLOT_F64; break;
    default: return NULL;
    }
    return user_fns[slot * 4 + (int)op];
}
