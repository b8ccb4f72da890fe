! SPDX-License-Identifier: BSD-3-Clause
! A program written only against the Fortran contract (doc/fortran.md):
! `use tcomm`, the calls with and without ierr, a communicator from the
! integer handle of `use mpi`. Run in the tree and, by
! test/install-fortran-check.sh, built with
! `mpif90 contract.f90 $(pkg-config --cflags --libs tcomm-fortran)`
! against the installed module. Exit status 1 on a wrong result.
program contract
  use mpi
  use tcomm
  implicit none
  type(tcomm_comm_t) :: comm
  integer :: ierr, rank, world_size, i, j, q, bad, total
  real(4) :: grad(4)
  real(8) :: params(3), residual
  integer(8) :: counts(2)
  real(8) :: a(2, 3)
  real(8), allocatable :: gathered(:, :), s(:, :), mine(:, :)

  bad = 0
  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD, ierr)
  if (ierr /= TCOMM_SUCCESS) error stop 'tcomm_comm_create_mpi failed'
  call tcomm_comm_info(comm, rank, world_size, ierr)

  ! all_reduce in place
  grad = [(real(rank + i, 4), i = 1, 4)]
  call tcomm_all_reduce(comm, grad, TCOMM_AVG, ierr)
  do i = 1, 4
    if (abs(grad(i) - (i + (world_size - 1) / 2.0)) > 1e-5) bad = bad + 1
  end do
  residual = 1.0d0 / (rank + 1)
  call tcomm_all_reduce(comm, residual, TCOMM_MAX)
  if (residual /= 1.0d0) bad = bad + 1
  counts = [int(rank, 8), 1_8]
  call tcomm_all_reduce(comm, counts, TCOMM_SUM, ierr)
  if (counts(1) /= world_size * (world_size - 1) / 2 .or. &
      counts(2) /= world_size) bad = bad + 1

  ! broadcast in place from rank 0
  params = -1
  if (rank == 0) params = [0.25d0, 1.0d-6, 100.0d0]
  call tcomm_broadcast(comm, params, 0, ierr)
  if (any(params /= [0.25d0, 1.0d-6, 100.0d0])) bad = bad + 1

  ! gathering along dimension 2 of a(2,3) gives (2, 3*world_size)
  a = reshape([(10.0d0 * rank + i, i = 1, 6)], [2, 3])
  allocate (gathered(2, 3 * world_size))
  call tcomm_all_gather(comm, a, gathered, 2, ierr)
  if (ierr /= TCOMM_SUCCESS) bad = bad + 1
  do q = 0, world_size - 1
    do j = 1, 3
      do i = 1, 2
        if (gathered(i, 3 * q + j) /= 10.0d0 * q + i + 2 * (j - 1)) &
            bad = bad + 1
      end do
    end do
  end do

  ! reduce_scatter along dimension 1: rank r keeps rows 2r+1 .. 2r+2
  allocate (s(2 * world_size, 3), mine(2, 3))
  s = reshape([(1.0d0 * i, i = 1, 6 * world_size)], [2 * world_size, 3])
  call tcomm_reduce_scatter(comm, s, mine, TCOMM_SUM, 1, ierr)
  do j = 1, 3
    do i = 1, 2
      if (mine(i, j) /= world_size * s(2 * rank + i, j)) bad = bad + 1
    end do
  end do

  ! an error code instead of a stop when ierr is present
  call tcomm_all_gather(comm, a, gathered, 3, ierr)
  if (ierr /= TCOMM_ERR_INVALID_ARG) bad = bad + 1

  call tcomm_barrier(comm, ierr)
  call tcomm_comm_destroy(comm, ierr)
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a,i0)') 'contract: ranks ', world_size, &
      ', wrong results ', total
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1
end program contract
