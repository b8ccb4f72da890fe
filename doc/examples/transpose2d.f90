! SPDX-License-Identifier: BSD-3-Clause
! A 2-D discrete Fourier transform of an n x m complex array split into
! slabs of rows over the ranks (uneven slabs when n does not divide), the
! way a distributed FFT swaps pencils. The same problem as transpose2d.c.
! tcomm takes real arrays, so a complex value is the pair x(1:2, ...)
! (re, im), as complex(8) lies in memory.
!   1. each rank holds x(2, nl, m), its nl rows whole, and transforms
!      them along dimension 3;
!   2. one all_to_all swaps the pencils: x is split along dimension 3
!      (the columns, ml_j of them to rank j) and the pieces are
!      concatenated along dimension 2, into y(2, n, ml): every row of
!      this rank's columns;
!   3. each rank transforms its columns along dimension 2.
! When n and m divide by the world size the swap is tcomm_all_to_all;
! otherwise tcomm_all_to_all_v with the column counts as send_sizes (a
! transpose: the same send_sizes on every rank, the ranks' row counts may
! differ).
!
! Every rank then transforms the whole array serially, the same steps in
! the same order, and compares its columns: the exit status is 0 only if
! all ranks agree bitwise.
!
!   mpif90 transpose2d.f90 $(pkg-config --cflags --libs tcomm-fortran) \
!       -o transpose2d
!   mpirun -np 3 ./transpose2d
program transpose2d
  use mpi
  use tcomm
  implicit none
  integer, parameter :: dp = kind(1.0d0), n = 10, m = 12
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  type(tcomm_comm_t) :: comm
  integer :: me, np, ierr, nl, i0, ml, j0, i, j, r
  logical :: even
  real(dp) :: diff
  real(dp), allocatable :: x(:, :, :), y(:, :, :), g(:, :, :)

  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD)
  call tcomm_comm_info(comm, me, np)

  ! my rows i0+1 .. i0+nl, all m columns
  nl = share(n, me)
  i0 = first(n, me)
  allocate (x(2, nl, m))
  do j = 1, m
    do i = 1, nl
      x(:, i, j) = input(i0 + i, j)
    end do
  end do
  do i = 1, nl                       ! 1. along the columns (dimension 3)
    call dft(x(:, i, :))
  end do

  ! 2. the pencil swap: x(2, nl, m) -> y(2, n, ml)
  ml = share(m, me)
  j0 = first(m, me)
  even = mod(n, np) == 0 .and. mod(m, np) == 0
  allocate (y(2, n, ml))
  if (even) then
    call tcomm_all_to_all(comm, x, y, 3, 2, ierr)
  else
    call tcomm_all_to_all_v(comm, x, y, 3, [(share(m, r), r = 0, np - 1)], &
                            2, ierr)
  end if
  if (ierr /= TCOMM_SUCCESS) then
    write (*, '(2a)') 'transpose2d: ', tcomm_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  do j = 1, ml                       ! 3. along the rows (dimension 2)
    call dft(y(:, :, j))
  end do

  ! the whole array, serially, the same way
  allocate (g(2, n, m))
  do j = 1, m
    do i = 1, n
      g(:, i, j) = input(i, j)
    end do
  end do
  do i = 1, n
    call dft(g(:, i, :))
  end do
  do j = 1, m
    call dft(g(:, :, j))
  end do
  diff = 0
  if (ml > 0) diff = maxval(abs(y - g(:, :, j0 + 1:j0 + ml)))

  ! the largest difference over the ranks
  call tcomm_all_reduce(comm, diff, TCOMM_MAX)
  if (me == 0) write (*, '(a,i0,a,i0,a,i0,3a,f0.6,sp,f0.6,ss,a,es7.1,2a)') &
      'transpose2d (Fortran): ', np, ' ranks, ', n, 'x', m, ' array, ', &
      trim(merge('all_to_all  ', 'all_to_all_v', even)), ', X(1,1) = ', &
      g(1, 1, 1), g(2, 1, 1), 'i, max |parallel - serial| = ', diff, ': ', &
      merge('PASS', 'FAIL', diff == 0)

  deallocate (x, y, g) ! a main program's arrays live until exit otherwise
  call tcomm_comm_destroy(comm)
  call MPI_Finalize(ierr)
  if (diff /= 0) error stop 1

contains

  ! The input at global (i, j), 1-based: (re, im), as transpose2d.c's
  ! at (i - 1, j - 1).
  function input(i, j) result(v)
    integer, intent(in) :: i, j
    real(dp) :: v(2)
    v(1) = sin(0.3_dp * (i - 1) + 0.1_dp * (j - 1)**2) + 0.05_dp * (j - 1)
    v(2) = cos(0.7_dp * (i - 1) * (j - 1)) - 0.5_dp
  end function input

  ! The share of rank q in k things (the first mod(k, np) ranks get one
  ! more) and the number before it.
  integer function share(k, q)
    integer, intent(in) :: k, q
    share = k / np
    if (q < mod(k, np)) share = share + 1
  end function share

  integer function first(k, q)
    integer, intent(in) :: k, q
    first = q * (k / np) + min(q, mod(k, np))
  end function first

  ! The DFT of the complex values v(1:2, 1:k) in place:
  ! X(l) = sum_t v(t) exp(-2 pi i (t-1)(l-1) / k).
  subroutine dft(v)
    real(dp), intent(inout) :: v(:, :)
    real(dp) :: w(2, size(v, 2)), a
    integer :: k, l, t
    k = size(v, 2)
    do l = 0, k - 1
      w(:, l + 1) = 0
      do t = 0, k - 1
        a = -2 * pi * mod(t * l, k) / k
        w(1, l + 1) = w(1, l + 1) + v(1, t + 1) * cos(a) - v(2, t + 1) * sin(a)
        w(2, l + 1) = w(2, l + 1) + v(1, t + 1) * sin(a) + v(2, t + 1) * cos(a)
      end do
    end do
    v = w
  end subroutine dft

end program transpose2d
