! SPDX-License-Identifier: BSD-3-Clause
! Errors of the module `tcomm`: the status codes (the C values) and the
! texts in Fortran terms, on every rank, with the communicator usable
! afterwards; a communicator from a split `use mpi` handle; destroy.
program fortran_errors
  use mpi
  use tcomm
  implicit none
  type(tcomm_comm_t) :: comm, never, sub
  integer :: me, np, ierr, fails, total, fsub, srank, ssize, d, want
  real(8) :: a(2, 3), s(2, 3), big(1, 1, 1, 1, 1, 1, 1, 1, 1), x
  real(8), allocatable :: r(:, :)
  real(4), allocatable :: r4(:, :)
  integer :: ia(4)
  complex(8) :: z(3)
  logical :: flags(3)

  fails = 0
  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD, ierr)
  call expect(ierr, TCOMM_SUCCESS, 'create', '')
  call tcomm_comm_info(comm, me, np, ierr)
  call expect(ierr, TCOMM_SUCCESS, 'info', '')
  a = me
  allocate (r(2, 3 * np))

  ! a dim out of range, on every rank
  call tcomm_all_gather(comm, a, r, 3, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'all_gather dim 3', &
              'tcomm_all_gather: dim 3 is out of range for this sendbuf ' // &
              '(use 1..2)')
  call tcomm_all_gather(comm, a, r, 0, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'all_gather dim 0', &
              'dim 0 is out of range')
  call tcomm_reduce_scatter(comm, a, s, TCOMM_SUM, -1, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'reduce_scatter dim -1', &
              'tcomm_reduce_scatter: dim -1 is out of range')

  ! a root out of range
  call tcomm_broadcast(comm, a, np, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'broadcast root np', &
              'tcomm_broadcast: root')
  call tcomm_broadcast(comm, a, -1, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'broadcast root -1', 'root -1')

  ! one rank's bad dim: its own error there, a mismatch elsewhere
  if (np > 1) then
    d = 2
    want = TCOMM_ERR_MISMATCH
    if (me == 0) then
      d = 5
      want = TCOMM_ERR_INVALID_ARG
    end if
    call tcomm_all_gather(comm, a, r, d, ierr)
    call expect(ierr, want, 'all_gather, rank 0 dim 5', 'tcomm_all_gather:')
  end if

  ! recvbuf of the wrong shape
  deallocate (r)
  allocate (r(3, 3 * np))
  call tcomm_all_gather(comm, a, r, 2, ierr)
  call expect(ierr, TCOMM_ERR_SHAPE, 'all_gather recvbuf (3, *)', &
              'recvbuf has shape (3, ')
  call expect(ierr, TCOMM_ERR_SHAPE, 'all_gather recvbuf (3, *)', &
              'the result has shape (2, *)')
  deallocate (r)
  allocate (r(2, 3 * np + 1))
  call tcomm_all_gather(comm, a, r, 2, ierr)
  call expect(ierr, TCOMM_ERR_SHAPE, 'all_gather recvbuf extent', &
              'along dim 2 but the ranks'' extents add up to')
  call tcomm_reduce_scatter(comm, reshape([(1.0d0 * d, d = 1, 2 * np)], &
                            [2, np]), s, TCOMM_SUM, 2, ierr)
  call expect(ierr, TCOMM_ERR_SHAPE, 'reduce_scatter recvbuf (2, 3)', &
              'the result has shape (2, 1)')

  ! types: recvbuf differs, AVG of integers, complex and logical
  allocate (r4(2, 3 * np))
  call tcomm_all_gather(comm, a, r4, 2, ierr)
  call expect(ierr, TCOMM_ERR_DTYPE, 'all_gather real(4) recvbuf', &
              'recvbuf is real(4) but sendbuf is real(8)')
  ia = 1
  call tcomm_all_reduce(comm, ia, TCOMM_AVG, ierr)
  call expect(ierr, TCOMM_ERR_DTYPE, 'all_reduce avg integer(4)', &
              'TCOMM_AVG needs a real array but buf is integer(4)')
  call check(all(ia == 1), 'buf unchanged after a failure')
  z = (1.0d0, 2.0d0)
  call tcomm_all_reduce(comm, z, TCOMM_SUM, ierr)
  call expect(ierr, TCOMM_ERR_DTYPE, 'all_reduce complex(8)', 'complex(8)')
  flags = .true.
  call tcomm_broadcast(comm, flags, 0, ierr)
  call expect(ierr, TCOMM_ERR_DTYPE, 'broadcast logical', 'buf is logical(4)')
  call tcomm_all_reduce(comm, ia, 17, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'all_reduce op 17', 'op 17')

  ! not divisible by the world size
  if (np > 1) then
    call tcomm_reduce_scatter(comm, reshape([(1.0d0 * d, d = 1, 2 * np + 2)], &
                              [2, np + 1]), s, TCOMM_SUM, 2, ierr)
    call expect(ierr, TCOMM_ERR_SHAPE, 'reduce_scatter not divisible', &
                'is not divisible by the world size')
  end if

  ! rank 9 is more than tcomm takes; a communicator never created
  call tcomm_all_reduce(comm, big, TCOMM_SUM, ierr)
  call expect(ierr, TCOMM_ERR_SHAPE, 'all_reduce rank 9', 'rank 9')
  call tcomm_barrier(never, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'barrier on no comm', &
              'tcomm_barrier: comm is not a tcomm communicator')

  ! the communicator still works, and the texts are cleared
  x = me + 1
  call tcomm_all_reduce(comm, x, TCOMM_SUM, ierr)
  call expect(ierr, TCOMM_SUCCESS, 'all_reduce after errors', '')
  call check(x == np * (np + 1) / 2.0d0, 'all_reduce after errors: value')
  call check(len(tcomm_last_error()) == 0, 'no error text after success')
  call check(tcomm_status_string(TCOMM_ERR_SHAPE) /= '', 'status string')

  ! a split communicator from its `use mpi` handle
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), me, fsub, ierr)
  call tcomm_comm_create_mpi(sub, fsub, ierr)
  call expect(ierr, TCOMM_SUCCESS, 'create from a split', '')
  call tcomm_comm_info(sub, srank, ssize, ierr)
  call check(srank == me / 2 .and. ssize == (np + 1 - mod(me, 2)) / 2, &
             'split: rank and size')
  x = me
  call tcomm_all_reduce(sub, x, TCOMM_MAX, ierr)
  call check(ierr == TCOMM_SUCCESS .and. &
             nint(x) == mod(me, 2) + 2 * ((np - 1 - mod(me, 2)) / 2), &
             'split: all_reduce max')
  call tcomm_comm_destroy(sub, ierr)
  call expect(ierr, TCOMM_SUCCESS, 'destroy split', '')
  call MPI_Comm_free(fsub, ierr)

  call tcomm_comm_destroy(comm, ierr)
  call expect(ierr, TCOMM_SUCCESS, 'destroy', '')
  call tcomm_comm_destroy(comm, ierr)
  call expect(ierr, TCOMM_ERR_INVALID_ARG, 'destroy twice', 'not a tcomm')

  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (me == 0) write (*, '(a,i0,a,i0)') 'fortran_errors: ranks ', np, &
      ', failures ', total
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      fails = fails + 1
      write (*, '(a,i0,a,i0,2a)') 'rank ', me, ' of ', np, ': FAIL ', what
    end if
  end subroutine check

  ! The status, and (when text is given) a piece of the error text.
  subroutine expect(got, want, what, text)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what, text
    character(len=:), allocatable :: msg
    msg = tcomm_last_error()
    if (got /= want) then
      write (*, '(a,i0,a,i0,a)') '  status ', got, ', want ', want, &
          ': ' // msg
      call check(.false., what)
    else if (len(text) > 0 .and. index(msg, text) == 0) then
      write (*, '(4a)') '  text "', msg, '" lacks: ', text
      call check(.false., what // ': text')
    end if
  end subroutine expect

end program fortran_errors
