! SPDX-License-Identifier: BSD-3-Clause
! A plain MPI program in Fortran (use mpi) for test/pmpi-check.sh; its
! body is fcolls.inc.
#define COMM_T integer
program pmpi_fusempi
  use mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none

  character(len=16) :: where, what
#include "fcolls.inc"
end program pmpi_fusempi
