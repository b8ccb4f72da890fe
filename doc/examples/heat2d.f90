! SPDX-License-Identifier: BSD-3-Clause
! A 2-D heat equation, u_t = alpha (u_xx + u_yy), explicit in time, on an
! nx x ny grid split into blocks of rows y over the ranks (uneven blocks
! when ny does not divide). The hot top edge diffuses into a cold plate
! that starts with a warm square in the middle. The same problem as
! heat2d.c, decomposed along Fortran's last dimension.
!
! What tcomm does here, as in a simulation code:
!   - rank 0 reads the parameters and broadcasts them (in place);
!   - every step, the squared change of the local block is summed over
!     the ranks (all_reduce of a scalar) to decide convergence;
!   - at the end, the interior u(1:nx, 1:nyl) of each rank's block (a
!     section: the halo is left out) is gathered along dimension 2 into
!     the whole field(nx, ny) on every rank.
! The halo rows move with plain MPI (MPI_Sendrecv, `use mpi`).
!
! Finally rank 0 solves the same problem serially for the same number of
! steps and compares: the exit status is 0 only if they agree.
!
!   mpif90 heat2d.f90 $(pkg-config --cflags --libs tcomm-fortran) -o heat2d
!   mpirun -np 4 ./heat2d
program heat2d
  use mpi
  use tcomm
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  type(tcomm_comm_t) :: comm
  integer :: me, np, ierr, nx, ny, nyl, y0, max_steps, steps, down, up
  integer :: verdict(1)
  real(dp) :: params(5), r, tol, change, diff
  real(dp), allocatable :: u(:, :), un(:, :), field(:, :), s(:, :)

  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD)
  call tcomm_comm_info(comm, me, np)

  ! rank 0 decides the parameters; everyone gets them
  if (me == 0) then
    params = [42.0_dp, 30.0_dp, 400.0_dp, 0.2_dp, 1.0e-2_dp]
  end if
  call tcomm_broadcast(comm, params, 0)
  nx = nint(params(1))
  ny = nint(params(2))
  max_steps = nint(params(3))
  r = params(4)      ! alpha dt / h^2, stable below 0.25
  tol = params(5)

  ! my rows: y0+1 .. y0+nyl, the first mod(ny, np) ranks one more
  nyl = ny / np
  y0 = me * nyl + min(me, mod(ny, np))
  if (me < mod(ny, np)) nyl = nyl + 1
  allocate (u(0:nx + 1, 0:nyl + 1), un(0:nx + 1, 0:nyl + 1))
  call init_block(u, y0)
  un = u
  down = merge(me - 1, MPI_PROC_NULL, me > 0)
  up = merge(me + 1, MPI_PROC_NULL, me < np - 1)

  steps = 0
  do while (steps < max_steps)
    call MPI_Sendrecv(u(:, nyl), nx + 2, MPI_DOUBLE_PRECISION, up, 0, &
                      u(:, 0), nx + 2, MPI_DOUBLE_PRECISION, down, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(:, 1), nx + 2, MPI_DOUBLE_PRECISION, down, 1, &
                      u(:, nyl + 1), nx + 2, MPI_DOUBLE_PRECISION, up, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    change = step(u, un, nyl)
    call swap(u, un)
    steps = steps + 1
    call tcomm_all_reduce(comm, change, TCOMM_SUM)
    if (sqrt(change) < tol) exit
  end do

  ! the field for output: the blocks' interiors along dimension 2
  allocate (field(nx, ny))
  call tcomm_all_gather(comm, u(1:nx, 1:nyl), field, 2, ierr)
  if (ierr /= TCOMM_SUCCESS) then
    write (*, '(2a)') 'heat2d: ', tcomm_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  ! rank 0 checks against the serial solution; all share the verdict
  verdict = 0
  if (me == 0) then
    allocate (s(0:nx + 1, 0:ny + 1))
    call solve_serial(s, steps)
    diff = maxval(abs(field - s(1:nx, 1:ny)))
    if (diff <= 1.0e-12_dp) verdict = 1
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,es9.3,a,f8.6,a,es7.1,2a)') &
        'heat2d (Fortran): ', np, ' ranks, ', nx, 'x', ny, ' grid, ', &
        steps, ' steps, change ', sqrt(change), ', mean temperature ', &
        sum(field) / (nx * ny), ', max |parallel - serial| = ', diff, ': ', &
        merge('PASS', 'FAIL', verdict(1) == 1)
  end if
  call tcomm_broadcast(comm, verdict, 0)

  call tcomm_comm_destroy(comm)
  call MPI_Finalize(ierr)
  if (verdict(1) /= 1) error stop 1

contains

  ! The grid with its boundary (top edge 1, the other edges 0) and the
  ! initial warm square, for rows y0+1 .. of the global grid.
  subroutine init_block(a, y0)
    real(dp), intent(out) :: a(0:, 0:)
    integer, intent(in) :: y0
    integer :: i, j, cx, cy, w
    cx = nx / 2
    cy = ny / 2
    w = nx / 8 + 1
    a = 0
    do j = 1, ubound(a, 2) - 1
      do i = 1, nx
        if (abs(i - cx) < w .and. abs(y0 + j - cy) < w) a(i, j) = 0.5_dp
      end do
    end do
    if (y0 + ubound(a, 2) - 1 == ny) a(:, ubound(a, 2)) = 1
  end subroutine init_block

  ! One explicit step on rows 1..m; returns the sum of squared changes.
  real(dp) function step(a, an, m) result(change)
    real(dp), intent(in) :: a(0:, 0:)
    real(dp), intent(inout) :: an(0:, 0:)
    integer, intent(in) :: m
    integer :: i, j
    real(dp) :: v
    change = 0
    do j = 1, m
      do i = 1, nx
        v = a(i, j) + r * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + &
                           a(i, j + 1) - 4 * a(i, j))
        an(i, j) = v
        change = change + (v - a(i, j))**2
      end do
    end do
  end function step

  subroutine swap(a, b)
    real(dp), allocatable, intent(inout) :: a(:, :), b(:, :)
    real(dp), allocatable :: t(:, :)
    call move_alloc(a, t)
    call move_alloc(b, a)
    call move_alloc(t, b)
  end subroutine swap

  ! The serial solution after n steps.
  subroutine solve_serial(a, n)
    real(dp), allocatable, intent(inout) :: a(:, :)
    integer, intent(in) :: n
    real(dp), allocatable :: b(:, :)
    integer :: k
    real(dp) :: ignored
    call init_block(a, 0)
    b = a
    do k = 1, n
      ignored = step(a, b, ny)
      call swap(a, b)
    end do
  end subroutine solve_serial

end program heat2d
