! SPDX-License-Identifier: BSD-3-Clause
! tcomm_all_to_all, tcomm_all_to_all_v and tcomm_reduce_scatter_v of the
! module `tcomm` on sections (non-contiguous sendbuf and recvbuf, the rest
! of the arrays untouched) and their errors: the status codes, the texts
! in Fortran terms, what the other ranks read, and recvbuf unchanged; the
! communicator works afterwards. The kinds: all_to_all.F90. Exit status 1
! on any failure.
program fortran_a2a_errors
  use mpi
  use tcomm
  implicit none
  type(tcomm_comm_t) :: comm
  integer :: me, np, ierr, fails, total

  fails = 0
  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD)
  call tcomm_comm_info(comm, me, np)
  call t_sections()
  call t_errors()
  call tcomm_barrier(comm)
  call tcomm_comm_destroy(comm)
  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (me == 0) write (*, '(a,i0,a,i0)') 'fortran_a2a_errors: ranks ', np, &
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

  ! Payload of rank q at element i.
  real(8) function gv(q, i)
    integer, intent(in) :: q, i(3)
    gv = mod(31 * q + 3 * i(1) + 7 * i(2) + 13 * i(3), 241) - 120
  end function gv

  ! Non-contiguous sendbuf and recvbuf: the rest stays as it was.
  subroutine t_sections()
    real(8) :: big(5, 2 * np), rb(4, 2 * np), res(6 * np, 3)
    real(8), allocatable :: tb(:, :), c(:, :), rr(:, :)
    integer :: i, j, q, k, w, col, ierr
    logical :: ok
    ! big(2:4, :) split along 2 (2 columns per rank), concatenated along
    ! 1 into the (3*np, 2) section res(1:6*np:2, 2:3)
    do j = 1, 2 * np
      do i = 1, 5
        big(i, j) = gv(me, [i, j, 1])
      end do
    end do
    res = -1.0d0
    call tcomm_all_to_all(comm, big(2:4, :), res(1:6 * np:2, 2:3), 2, 1, ierr)
    call check(ierr == TCOMM_SUCCESS, 'section all_to_all: status')
    ok = all(res(:, 1) == -1.0d0) .and. all(res(2:6 * np:2, :) == -1.0d0)
    do q = 0, np - 1
      do j = 1, 2
        do i = 1, 3
          ok = ok .and. res(2 * (3 * q + i) - 1, 1 + j) == &
              gv(q, [i + 1, 2 * me + j, 1])
        end do
      end do
    end do
    call check(ok, 'all_to_all big(2:4, :) into res(1:6*np:2, 2:3)')

    ! tokens along 2 from rb(1:4:2, 1:np+1): one column to every rank,
    ! two to the last, which so receives 2 per rank; into tb(2:3, 2:w*np+1)
    do j = 1, 2 * np
      do i = 1, 4
        rb(i, j) = gv(me, [i, j, 2])
      end do
    end do
    w = 1
    if (me == np - 1) w = 2
    allocate (tb(3, w * np + 2))
    tb = -1.0d0
    call tcomm_all_to_all_v(comm, rb(1:4:2, 1:np + 1), tb(2:3, 2:w * np + 1), &
                            2, [(1, k = 1, np - 1), 2], 2, ierr)
    call check(ierr == TCOMM_SUCCESS, 'section all_to_all_v: status')
    ok = all(tb(1, :) == -1.0d0) .and. all(tb(:, 1) == -1.0d0) &
        .and. all(tb(:, w * np + 2) == -1.0d0)
    do q = 0, np - 1
      do k = 1, w
        col = me + 1
        if (w == 2) col = np - 1 + k
        do i = 1, 2
          ok = ok .and. tb(1 + i, 1 + w * q + k) == &
              gv(q, [2 * i - 1, col, 2])
        end do
      end do
    end do
    call check(ok, 'all_to_all_v rb(1:4:2, 1:np+1) into tb(2:3, 2:w*np+1)')

    ! reduce_scatter_v of c(2:4, :) along 2, rank q's chunk q + 1 columns,
    ! into rr(1:6:2, :)
    allocate (c(5, np * (np + 1) / 2), rr(6, me + 1))
    do j = 1, size(c, 2)
      do i = 1, 5
        c(i, j) = gv(me, [i, j, 3])
      end do
    end do
    rr = -1.0d0
    call tcomm_reduce_scatter_v(comm, c(2:4, :), rr(1:6:2, :), TCOMM_SUM, 2, &
                                [(k, k = 1, np)], ierr)
    call check(ierr == TCOMM_SUCCESS, 'section reduce_scatter_v: status')
    ok = all(rr(2:6:2, :) == -1.0d0)
    do j = 1, me + 1
      do i = 1, 3
        ok = ok .and. rr(2 * i - 1, j) == &
            sum([(gv(q, [i + 1, me * (me + 1) / 2 + j, 3]), q = 0, np - 1)])
      end do
    end do
    call check(ok, 'reduce_scatter_v c(2:4, :) into rr(1:6:2, :)')
  end subroutine t_sections

  ! Errors with the texts in Fortran terms; the ranks stay in step.
  subroutine t_errors()
    real(8) :: a(3, 2 * np), r(3, 2 * np), bad(4, 2 * np), wide(3, 2 * np + 1)
    real(8) :: x, y, odd(np + 1, 2), odd2(np + 1, 2)
    integer :: ierr, want, k
    a = 1.0d0
    x = 1.0d0
    odd = 1.0d0
    r = -1.0d0
    call tcomm_all_to_all(comm, a, r, 3, 1, ierr)
    call expect(ierr, TCOMM_ERR_INVALID_ARG, 'all_to_all split_dim 3', &
                'tcomm_all_to_all: split_dim 3 is out of range for this ' // &
                'sendbuf (use 1..2)')
    call tcomm_all_to_all(comm, a, r, 2, 0, ierr)
    call expect(ierr, TCOMM_ERR_INVALID_ARG, 'all_to_all concat_dim 0', &
                'concat_dim 0 is out of range')
    call tcomm_all_to_all(comm, x, y, 1, 1, ierr)
    call expect(ierr, TCOMM_ERR_SHAPE, 'all_to_all scalar', &
                'sendbuf is a scalar')
    if (np > 1) then
      call tcomm_all_to_all(comm, odd, odd2, 1, 1, ierr)
      call expect(ierr, TCOMM_ERR_SHAPE, 'all_to_all np+1 rows', &
                  'extent ' // trim(itoa(np + 1)) // ' of sendbuf along ' // &
                  'split_dim 1 is not divisible by the world size')
    end if
    ! one rank's recvbuf is wrong: its own error, a mismatch elsewhere
    want = TCOMM_ERR_MISMATCH
    if (me == 0) want = TCOMM_ERR_SHAPE
    if (np == 1) want = TCOMM_ERR_SHAPE
    if (me == 0) then
      call tcomm_all_to_all(comm, a, bad, 2, 2, ierr)
    else
      call tcomm_all_to_all(comm, a, r, 2, 2, ierr)
    end if
    call expect(ierr, want, 'all_to_all rank 0 recvbuf (4, *)', &
                'tcomm_all_to_all')
    if (me == 0) call expect(ierr, want, 'all_to_all recvbuf text', &
                             'recvbuf has shape (4, ')
    call check(all(r == -1.0d0), 'all_to_all: recvbuf unchanged')

    ! the _v forms: send_sizes of the wrong length, negative, wrong sum
    call tcomm_all_to_all_v(comm, a, r, 2, [(2, k = 1, np + 1)], 2, ierr)
    call expect(ierr, TCOMM_ERR_INVALID_ARG, 'all_to_all_v np+1 sizes', &
                'tcomm_all_to_all_v: send_sizes has ')
    call tcomm_all_to_all_v(comm, a, r, 2, [(2, k = 1, np - 1), -1], 2, &
                            ierr)
    call expect(ierr, TCOMM_ERR_INVALID_ARG, 'all_to_all_v size -1', &
                ') is -1 (sizes are 0 or more)')
    call tcomm_all_to_all_v(comm, a, r, 2, [(1, k = 1, np)], 2, ierr)
    call expect(ierr, TCOMM_ERR_SHAPE, 'all_to_all_v sum', &
                'send_sizes add up to ')
    call tcomm_reduce_scatter_v(comm, a, bad, TCOMM_SUM, 2, &
                                [(2, k = 1, np)], ierr)
    call expect(ierr, TCOMM_ERR_SHAPE, 'reduce_scatter_v recvbuf', &
                'tcomm_reduce_scatter_v: recvbuf has shape ')
    call tcomm_reduce_scatter_v(comm, a, r, TCOMM_SUM, 3, [(2, k = 1, np)], &
                                ierr)
    call expect(ierr, TCOMM_ERR_INVALID_ARG, 'reduce_scatter_v dim 3', &
                'dim 3 is out of range')
    call check(all(r == -1.0d0), 'the _v forms: recvbuf unchanged')

    ! rank 0's recvbuf has the wrong rank: its own error there, and on
    ! the others a mismatch that points to it
    if (np > 1) then
      want = TCOMM_ERR_MISMATCH
      if (me == 0) want = TCOMM_ERR_SHAPE
      if (me == 0) then
        call tcomm_all_to_all_v(comm, a, x, 2, [(2, k = 1, np)], 2, ierr)
        call expect(ierr, want, 'all_to_all_v scalar recvbuf on rank 0', &
                    'recvbuf has shape scalar but the result has shape (3, *)')
      else
        call tcomm_all_to_all_v(comm, a, r, 2, [(2, k = 1, np)], 2, ierr)
        call expect(ierr, want, 'all_to_all_v beside a scalar recvbuf', &
                    'rank 0 rejected the call: its Fortran arguments are wrong')
      end if
    end if

    ! rank 0's recvbuf has one column too many, which only the result
    ! shows: its own error there, the others succeed
    wide = -1.0d0
    if (me == 0) then
      call tcomm_all_to_all_v(comm, a, wide, 2, [(2, k = 1, np)], 2, ierr)
      call expect(ierr, TCOMM_ERR_SHAPE, 'all_to_all_v wide recvbuf', &
                  'tcomm_all_to_all_v: recvbuf has shape (3, ' // &
                  trim(itoa(2 * np + 1)) // ') but the result has shape (3, ' &
                  // trim(itoa(2 * np)) // ')')
      call check(all(wide == -1.0d0), 'wide recvbuf unchanged')
    else
      call tcomm_all_to_all_v(comm, a, r, 2, [(2, k = 1, np)], 2, ierr)
      call expect(ierr, TCOMM_SUCCESS, 'all_to_all_v beside a wide one', '')
    end if

    ! and the communicator still works, here without ierr
    r = -1.0d0
    call tcomm_all_to_all_v(comm, a, r, 2, [(2, k = 1, np)], 2)
    call check(all(r == 1.0d0), 'all_to_all_v after the errors')
  end subroutine t_errors

  function itoa(i) result(text)
    integer, intent(in) :: i
    character(len=12) :: text
    write (text, '(i0)') i
  end function itoa

end program fortran_a2a_errors
