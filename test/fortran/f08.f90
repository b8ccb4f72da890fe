! SPDX-License-Identifier: BSD-3-Clause
! Communicators from mpi_f08's type(MPI_Comm): MPI_COMM_WORLD and a split.
program fortran_f08
  use mpi_f08
  use tcomm
  implicit none
  type(tcomm_comm_t) :: world, sub
  type(MPI_Comm) :: fsub
  integer :: me, np, srank, ssize, ierr, bad, total
  real(8) :: x(2)

  bad = 0
  call MPI_Init()
  call tcomm_comm_create_mpi(world, MPI_COMM_WORLD, ierr)
  if (ierr /= TCOMM_SUCCESS) bad = bad + 1
  call tcomm_comm_info(world, me, np)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), -me, fsub)
  call tcomm_comm_create_mpi(sub, fsub)                 ! without ierr
  call tcomm_comm_info(sub, srank, ssize)
  ! key -me: the split's ranks run in reverse order of the world's
  if (ssize /= (np + 1 - mod(me, 2)) / 2) bad = bad + 1
  if (srank /= ssize - 1 - me / 2) bad = bad + 1
  x = [1.0d0, real(me, 8)]
  call tcomm_all_reduce(sub, x, TCOMM_SUM)
  if (nint(x(1)) /= ssize) bad = bad + 1
  x = [1.0d0, real(me, 8)]
  call tcomm_all_reduce(world, x, TCOMM_SUM, ierr)
  if (ierr /= 0 .or. nint(x(1)) /= np .or. nint(x(2)) /= np * (np - 1) / 2) &
      bad = bad + 1
  call tcomm_comm_destroy(sub)
  call tcomm_comm_destroy(world)
  call MPI_Comm_free(fsub)
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (me == 0) write (*, '(a,i0,a,i0)') 'fortran_f08: ranks ', np, &
      ', failures ', total
  call MPI_Finalize()
  if (total /= 0) error stop 1
end program fortran_f08
