/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI_Op of each (dtype, op): MPI's built-in where it is exact, else
 * a user op made of mpi_kernels/tcomm_mpi_ops.c's user function
 * (tcomm_mpi_user_fn). The handles are MPI state, so they live here, in
 * the MPI backend.
 *
 * The user ops are created together on first use, under a mutex with an
 * acquire/release flag so that later calls take no lock, and freed at
 * MPI_Finalize by the delete callback of an attribute on MPI_COMM_SELF
 * (MPI-2.2: MPI_Finalize deletes MPI_COMM_SELF's attributes first, while
 * MPI is still usable). */
#include <pthread.h>

#include "tcomm_mpi_kernels.h"
#include "tcomm_user_ops.h"

/* MPI_Op_create_c where the user functions take an MPI_Count (MPI-4). */
#if MPI_VERSION >= 4
#define TCOMM_OP_CREATE MPI_Op_create_c
#else
#define TCOMM_OP_CREATE MPI_Op_create
#endif

/* index = dtype * 4 + op (SUM..MAX); MPI_OP_NULL where MPI's own op is
 * exact. */
#define TCOMM_USER_OPS (TCOMM_DTYPE_COUNT * 4)

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
static int delete_user_ops(MPI_Comm comm, int keyval, void *attr, void *extra)
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
    for (int i = 0; i < TCOMM_USER_OPS && rc == MPI_SUCCESS; i++) {
        tcomm_mpi_user_fn_t *fn =
            tcomm_mpi_user_fn((tcomm_dtype_t)(i / 4), (tcomm_op_t)(i % 4));
        if (fn != NULL)
            rc = TCOMM_OP_CREATE(fn, 1, &user_ops[i]);
    }
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

static int user_op(tcomm_dtype_t dtype, tcomm_op_t op, MPI_Op *mpi_op)
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
    *mpi_op = user_ops[(int)dtype * 4 + (int)op];
    return MPI_SUCCESS;
}

int tcomm_mpi_op(tcomm_dtype_t dtype, tcomm_op_t op, MPI_Op *mpi_op)
{
    if ((unsigned)op >= TCOMM_OP_COUNT)
        return MPI_ERR_OP;
    if (op == TCOMM_AVG)
        op = TCOMM_SUM; /* the caller divides */
    if (tcomm_mpi_datatype(dtype) == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (tcomm_mpi_user_fn(dtype, op) != NULL)
        return user_op(dtype, op, mpi_op);
    switch (op) {
    case TCOMM_PROD: *mpi_op = MPI_PROD; break;
    case TCOMM_MIN: *mpi_op = MPI_MIN; break;
    case TCOMM_MAX: *mpi_op = MPI_MAX; break;
    default: *mpi_op = MPI_SUM; break;
    }
    return MPI_SUCCESS;
}
