/* SPDX-License-Identifier: BSD-3-Clause */
/* The few MPI calls the Rust crate needs, compiled by build.rs with the
 * MPI's own wrapper (mpicc): MPI_Comm is a pointer in Open MPI and an int
 * in MPICH, and MPI_COMM_WORLD a macro, so Rust cannot name them itself.
 * Every function returns an int status and writes outputs through
 * pointers. */
#include <mpi.h>
#include <stddef.h>

#include "tcomm_mpi.h"

/* The thread level as 0 single, 1 funneled, 2 serialized, 3 multiple
 * (the constants' values are the MPI's own). */
static int thread_level(int provided)
{
    if (provided == MPI_THREAD_MULTIPLE)
        return 3;
    if (provided == MPI_THREAD_SERIALIZED)
        return 2;
    if (provided == MPI_THREAD_FUNNELED)
        return 1;
    return 0;
}

/* 0: MPI initialized by this call (*provided is the thread level);
 * 1: it was initialized already (by someone else);
 * 2: it was finalized already (MPI cannot start again);
 * 3: MPI_Init_thread failed. */
int tcomm_rs_mpi_init(int *provided)
{
    int flag = 0;
    MPI_Finalized(&flag);
    if (flag)
        return 2;
    MPI_Initialized(&flag);
    if (flag) {
        MPI_Query_thread(provided);
        *provided = thread_level(*provided);
        return 1;
    }
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided) !=
        MPI_SUCCESS)
        return 3;
    *provided = thread_level(*provided);
    return 0;
}

/* MPI_Finalize unless MPI is already finalized: 0 done, 1 was, -1 error. */
int tcomm_rs_mpi_finalize(void)
{
    int flag = 0;
    MPI_Finalized(&flag);
    if (flag)
        return 1;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : -1;
}

/* 1 while MPI is initialized and not finalized. */
int tcomm_rs_mpi_active(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

size_t tcomm_rs_mpi_comm_size(void)
{
    return sizeof(MPI_Comm);
}

tcomm_status_t tcomm_rs_comm_world(tcomm_comm_t **comm)
{
    return tcomm_comm_create_mpi(MPI_COMM_WORLD, comm);
}

/* handle points at an MPI_Comm of this MPI (whatever its C type). */
tcomm_status_t tcomm_rs_comm_from_raw(const void *handle, tcomm_comm_t **comm)
{
    return tcomm_comm_create_mpi(*(const MPI_Comm *)handle, comm);
}

/* A Fortran handle (an integer in both MPIs), e.g. from mpi4py's
 * py2f() or `use mpi`. */
tcomm_status_t tcomm_rs_comm_from_fint(int handle, tcomm_comm_t **comm)
{
    return tcomm_comm_create_mpi(MPI_Comm_f2c((MPI_Fint)handle), comm);
}

/* For the crate's tests: MPI_COMM_WORLD as the bytes of an MPI_Comm
 * (dst has tcomm_rs_mpi_comm_size() bytes), and as a Fortran handle. */
void tcomm_rs_mpi_world_raw(void *dst)
{
    *(MPI_Comm *)dst = MPI_COMM_WORLD;
}

int tcomm_rs_mpi_world_fint(void)
{
    return (int)MPI_Comm_c2f(MPI_COMM_WORLD);
}
