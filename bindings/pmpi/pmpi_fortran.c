/* SPDX-License-Identifier: BSD-3-Clause */
/* Fortran calls (mpif.h, `use mpi`, `use mpi_f08`) under Open MPI, whose
 * Fortran bindings call PMPI_ directly and so would bypass the C
 * functions here: the same symbols, their handles made C handles and
 * the MPI_IN_PLACE and MPI_BOTTOM sentinels (Fortran common blocks) made
 * C's, then the interposed C function. mpi_f08's buffers are plain
 * addresses (Open MPI's ignore-TKR), its handles one integer, and its
 * ierror optional (NULL when absent). MPICH's mpif.h and `use mpi`
 * bindings, and its mpi_f08 collectives (through their descriptor
 * wrappers), call the C MPI_ functions, which this library already is;
 * but its mpi_f08 MPI_Barrier, MPI_Alloc_mem and MPI_Finalize call
 * PMPI_ (`nm -D libmpichfort.so`): those are here for both MPIs. */
#include "tcomm_pmpi.h"

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

/* The report and the handles' end come with MPI_Finalize. */
static void f_finalize(MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Finalize());
}

static void f_barrier(MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Barrier(PMPI_Comm_f2c(*comm)));
}

/* baseptr: INTEGER(MPI_ADDRESS_KIND) (mpif.h) or TYPE(C_PTR), both one
 * address written through the reference. */
static void f_alloc_mem(MPI_Aint *size, MPI_Fint *info, void **baseptr,
                        MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Alloc_mem(*size, PMPI_Info_f2c(*info), baseptr));
}

#if defined(OPEN_MPI) && OPEN_MPI

/* Open MPI's sentinels; weak, so that a libmpi without Fortran loads. */
extern char mpi_fortran_in_place_ __attribute__((weak));
extern char mpi_fortran_bottom_ __attribute__((weak));

static void *c_buf(void *buf)
{
    if (buf == &mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (buf == &mpi_fortran_bottom_)
        return MPI_BOTTOM;
    return buf;
}

#define TYPE(f) PMPI_Type_f2c(*(f))
#define OP(f) PMPI_Op_f2c(*(f))
#define COMM(f) PMPI_Comm_f2c(*(f))

static void f_allreduce(void *s, void *r, MPI_Fint *n, MPI_Fint *t,
                        MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Allreduce(c_buf(s), c_buf(r), *n, TYPE(t), OP(op),
                                 COMM(comm)));
}

static void f_reduce_scatter_block(void *s, void *r, MPI_Fint *n,
                                   MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                                   MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Reduce_scatter_block(c_buf(s), c_buf(r), *n, TYPE(t),
                                            OP(op), COMM(comm)));
}

/* MPI_Fint is C's int in both MPIs' default builds: counts pass as is */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not int");

static void f_reduce_scatter(void *s, void *r, MPI_Fint *counts,
                             MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                             MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Reduce_scatter(c_buf(s), c_buf(r), (int *)counts,
                                      TYPE(t), OP(op), COMM(comm)));
}

static void f_allgather(void *s, MPI_Fint *sn, MPI_Fint *st, void *r,
                        MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *comm,
                        MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Allgather(c_buf(s), *sn, TYPE(st), c_buf(r), *rn,
                                 TYPE(rt), COMM(comm)));
}

static void f_allgatherv(void *s, MPI_Fint *sn, MPI_Fint *st, void *r,
                         MPI_Fint *counts, MPI_Fint *displs, MPI_Fint *rt,
                         MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Allgatherv(c_buf(s), *sn, TYPE(st), c_buf(r),
                                  (int *)counts, (int *)displs, TYPE(rt),
                                  COMM(comm)));
}

static void f_bcast(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root,
                    MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Bcast(c_buf(b), *n, TYPE(t), *root, COMM(comm)));
}

static void f_alltoallv(void *s, MPI_Fint *sn, MPI_Fint *sd, MPI_Fint *st,
                        void *r, MPI_Fint *rn, MPI_Fint *rd, MPI_Fint *rt,
                        MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Alltoallv(c_buf(s), (int *)sn, (int *)sd, TYPE(st),
                                 c_buf(r), (int *)rn, (int *)rd, TYPE(rt),
                                 COMM(comm)));
}

/* base: the block itself (a choice buffer) */
static void f_free_mem(void *base, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Free_mem(base));
}

static void f_alltoall(void *s, MPI_Fint *sn, MPI_Fint *st, void *r,
                       MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *comm,
                       MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Alltoall(c_buf(s), *sn, TYPE(st), c_buf(r), *rn,
                                TYPE(rt), COMM(comm)));
}

/* Every name gfortran and other compilers give the call: mpif.h and
 * `use mpi` (four manglings), `use mpi_f08` (NAME_f08_). */
#define ALIAS(fn, name)                                                    \
    extern __typeof__(fn) name;                                            \
    TCOMM_PMPI_EXPORT __attribute__((alias(#fn))) __typeof__(fn) name
#define NAMES4(fn, a, b, c, d)                                             \
    ALIAS(fn, a);                                                          \
    ALIAS(fn, b);                                                          \
    ALIAS(fn, c);                                                          \
    ALIAS(fn, d)
#define NAMES(fn, a, b, c, d, e)                                           \
    NAMES4(fn, a, b, c, d);                                                \
    ALIAS(fn, e)

NAMES(f_allreduce, mpi_allreduce, mpi_allreduce_, mpi_allreduce__,
      MPI_ALLREDUCE, mpi_allreduce_f08_);
NAMES(f_reduce_scatter_block, mpi_reduce_scatter_block,
      mpi_reduce_scatter_block_, mpi_reduce_scatter_block__,
      MPI_REDUCE_SCATTER_BLOCK, mpi_reduce_scatter_block_f08_);
NAMES(f_reduce_scatter, mpi_reduce_scatter, mpi_reduce_scatter_,
      mpi_reduce_scatter__, MPI_REDUCE_SCATTER, mpi_reduce_scatter_f08_);
NAMES(f_allgather, mpi_allgather, mpi_allgather_, mpi_allgather__,
      MPI_ALLGATHER, mpi_allgather_f08_);
NAMES(f_allgatherv, mpi_allgatherv, mpi_allgatherv_, mpi_allgatherv__,
      MPI_ALLGATHERV, mpi_allgatherv_f08_);
NAMES(f_bcast, mpi_bcast, mpi_bcast_, mpi_bcast__, MPI_BCAST,
      mpi_bcast_f08_);
NAMES(f_alltoall, mpi_alltoall, mpi_alltoall_, mpi_alltoall__,
      MPI_ALLTOALL, mpi_alltoall_f08_);
NAMES(f_alltoallv, mpi_alltoallv, mpi_alltoallv_, mpi_alltoallv__,
      MPI_ALLTOALLV, mpi_alltoallv_f08_);
NAMES(f_barrier, mpi_barrier, mpi_barrier_, mpi_barrier__, MPI_BARRIER,
      mpi_barrier_f08_);
NAMES(f_finalize, mpi_finalize, mpi_finalize_, mpi_finalize__,
      MPI_FINALIZE, mpi_finalize_f08_);
NAMES(f_free_mem, mpi_free_mem, mpi_free_mem_, mpi_free_mem__,
      MPI_FREE_MEM, mpi_free_mem_f08_);
/* mpif.h's and `use mpi`'s TYPE(C_PTR) form has a name of its own */
NAMES(f_alloc_mem, mpi_alloc_mem, mpi_alloc_mem_, mpi_alloc_mem__,
      MPI_ALLOC_MEM, mpi_alloc_mem_f08_);
NAMES4(f_alloc_mem, mpi_alloc_mem_cptr, mpi_alloc_mem_cptr_,
       mpi_alloc_mem_cptr__, MPI_ALLOC_MEM_CPTR);

#elif defined(MPICH)

#define ALIAS(fn, name)                                                    \
    extern __typeof__(fn) name;                                            \
    TCOMM_PMPI_EXPORT __attribute__((alias(#fn))) __typeof__(fn) name

ALIAS(f_finalize, mpi_finalize_f08_);
ALIAS(f_barrier, mpi_barrier_f08_);
ALIAS(f_alloc_mem, mpi_alloc_mem_f08_);

#endif /* OPEN_MPI, MPICH */
