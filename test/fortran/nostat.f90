! SPDX-License-Identifier: BSD-3-Clause
! A failing call without ierr: the module prints the message and stops
! the program with error stop (run by check-fortran.sh, which expects
! the failure). The calls before it succeed without ierr.
program fortran_nostat
  use mpi
  use tcomm
  implicit none
  type(tcomm_comm_t) :: comm
  integer :: me, np, ierr
  real(8) :: a(2, 3)
  real(8), allocatable :: r(:, :)

  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD)
  call tcomm_comm_info(comm, me, np)
  a = me
  allocate (r(2, 3 * np))
  call tcomm_all_gather(comm, a, r, 2)
  call tcomm_barrier(comm)
  if (me == 0) write (*, '(a)') 'fortran_nostat: the good calls passed'
  call tcomm_all_gather(comm, a, r, 3)     ! dim 3 of a(2,3): stops here
  write (*, '(a)') 'fortran_nostat: still running after a failure'
  call MPI_Finalize(ierr)
end program fortran_nostat
