/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI datatypes and reduction ops of the dtypes.
 *
 * Built-in MPI ops where they are exact: every integer op, and f32/f64
 * SUM/PROD. User ops (MPI_Op_create) where MPI cannot do it: f16 and bf16
 * (which travel as MPI_UINT16_T, so the op, not the datatype, says which
 * one) and f32/f64 MIN/MAX, which must propagate NaN (MPI_MIN/MAX on
 * floats follow C's < and may drop a NaN). The user functions call
 * tcomm_host_reduce, so MPI's reductions and the host path agree bit for
 * bit.
 *
 * The user ops are created together on first use, under a mutex with an
 * acquire/release flag so that later calls take no lock, and freed at
 * MPI_Finalize by the delete callback of an attribute on MPI_COMM_SELF
 * (MPI-2.2: MPI_Finalize deletes MPI_COMM_SELF's attributes first, while
 * MPI is still usable). */
#include <limits.h>
#include <pthread.h>

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
#define TCOMM_OP_CREATE MPI_Op_create_c
#else
typedef int tcomm_op_len_t;
#define TCOMM_OP_CREATE MPI_Op_create
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

#if MPI_VERSION >= 4
typedef MPI_User_function_c tcomm_user_fn_t;
#else
typedef MPI_User_function tcomm_user_fn_t;
#endif

/* The table of user ops: index = slot(dtype) * 4 + op (SUM..MAX). */
enum { SLOT_F16, SLOT_BF16, SLOT_F32, SLOT_F64, SLOT_COUNT };
#define TCOMM_USER_OPS (SLOT_COUNT * 4)

static tcomm_user_fn_t *const user_fns[TCOMM_USER_OPS] = {
    user_f16_sum, user_f16_prod, user_f16_min, user_f16_max,
    user_bf16_sum, user_bf16_prod, user_bf16_min, user_bf16_max,
    NULL, NULL, user_f32_min, user_f32_max,
    NULL, NULL, user_f64_min, user_f64_max,
};

static MPI_Op user_ops[TCOMM_USER_OPS];
static int user_ops_ready; /* read with acquire, written under the lock */
static int user_ops_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t user_ops_lock = PTHREAD_MUTEX_INITIALIZER;

static void free_user_ops(void)
{
    for (int i = 0; i < TCOMM_USER_OPS; i++)
        if (user_ops[i] != MPI_OP_NULL)
            MPI_Op_free(&user_ops[i]);
}

/* Runs inside MPI_Finalize (or if someone deletes the attribute). */
static int delete_user_ops(MPI_Comm comm, int keyval, void *attr,
                           void *extra)
{
    (void)comm, (void)attr, (void)extra;
    pthread_mutex_lock(&user_ops_lock);
    free_user_ops();
    __atomic_store_n(&user_ops_ready, 0, __ATOMIC_RELEASE);
    user_ops_keyval = MPI_KEYVAL_INVALID;
    pthread_mutex_unlock(&user_ops_lock);
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

static int create_user_ops_locked(void)
{
    int rc = MPI_SUCCESS, init = 0, fini = 0;

    /* Outside MPI_Init..MPI_Finalize, MPI_Op_create would go to
     * MPI_COMM_WORLD's handler, which may abort: refuse instead. */
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini)
        return MPI_ERR_OTHER;
    for (int i = 0; i < TCOMM_USER_OPS; i++)
        user_ops[i] = MPI_OP_NULL;
    for (int i = 0; i < TCOMM_USER_OPS && rc == MPI_SUCCESS; i++)
        if (user_fns[i] != NULL)
            rc = TCOMM_OP_CREATE(user_fns[i], 1, &user_ops[i]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_user_ops,
                                    &user_ops_keyval, NULL);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_set_attr(MPI_COMM_SELF, user_ops_keyval, NULL);
        if (rc != MPI_SUCCESS)
            MPI_Comm_free_keyval(&user_ops_keyval);
    }
    if (rc != MPI_SUCCESS) {
        free_user_ops();
        user_ops_keyval = MPI_KEYVAL_INVALID;
        return rc;
    }
    __atomic_store_n(&user_ops_ready, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

static int user_op(int slot, tcomm_op_t op, MPI_Op *mpi_op)
{
    int rc = MPI_SUCCESS;

    if (!__atomic_load_n(&user_ops_ready, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&user_ops_lock);
        if (!__atomic_load_n(&user_ops_ready, __ATOMIC_RELAXED))
            rc = create_user_ops_locked();
        pthread_mutex_unlock(&user_ops_lock);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *mpi_op = user_ops[slot * 4 + (int)op];
    return MPI_SUCCESS;
}

int tcomm_mpi_op(tcomm_dtype_t dtype, tcomm_op_t op, MPI_Op *mpi_op)
{
    if ((unsigned)op >= TCOMM_OP_COUNT)
        return MPI_ERR_OP;
    if (op == TCOMM_AVG)
        op = TCOMM_SUM; /* the caller divides */
    switch (dtype) {
    case TCOMM_U8: case TCOMM_I8: case TCOMM_I32: case TCOMM_U32:
    case TCOMM_I64:
        break;
    case TCOMM_F32: case TCOMM_F64:
        if (op == TCOMM_MIN || op == TCOMM_MAX)
            return user_op(dtype == TCOMM_F32 ? SLOT_F32 : SLOT_F64, op,
                           mpi_op);
        break;
    case TCOMM_F16:
        return user_op(SLOT_F16, op, mpi_op);
    case TCOMM_BF16:
        return user_op(SLOT_BF16, op, mpi_op);
    default:
        return MPI_ERR_TYPE;
    }
    switch (op) {
    case TCOMM_PROD: *mpi_op = MPI_PROD; break;
    case TCOMM_MIN: *mpi_op = MPI_MIN; break;
    case TCOMM_MAX: *mpi_op = MPI_MAX; break;
    default: *mpi_op = MPI_SUM; break;
    }
    return MPI_SUCCESS;
}
