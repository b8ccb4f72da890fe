! SPDX-License-Identifier: BSD-3-Clause
! A plain MPI program in Fortran (use mpi_f08) for test/pmpi-check.sh; its
! body is fcolls.inc.
#define COMM_T type(MPI_Comm)
#define ALLOC_MEM_CPTR
program pmpi_ff08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none

  character(len=16) :: where, what
#include "fcolls.inc"
end program pmpi_ff08
