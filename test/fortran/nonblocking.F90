! SPDX-License-Identifier: BSD-3-Clause
! The nonblocking calls of the module `tcomm` at any number of ranks, on
! an MPI of MPI_THREAD_MULTIPLE (the progress thread): all_reduce of
! every kind in place and from sendbuf into recvbuf (and on a
! non-contiguous section), all_gather along each dim, reduce_scatter,
! broadcast, all_to_all, barrier, several requests outstanding and waited
! in other orders than started, a tcomm_test loop, tcomm_wait_all; a bad
! dim on one rank ends with an error on every rank and nobody waits. The
! expected values come from every rank's inputs, regenerated from (rank,
! index). Exit status 1 on any failure.
program fortran_nonblocking
  use mpi
  use tcomm
  implicit none
  type(tcomm_comm_t) :: comm
  integer :: me, np, ierr, provided, fails, total

  fails = 0
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD)
  call tcomm_comm_info(comm, me, np)
  call t_all_reduce_kinds()
  call t_all_gather_dims()
  call t_mixed_wait_all()
  call t_test_loop()
  call t_errors()
  call tcomm_barrier(comm)
  call tcomm_comm_destroy(comm)
  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (me == 0) print '(a, i0, a, i0, a, i0)', 'nonblocking: ', np, &
      ' ranks, thread level ', provided, ', failures ', total
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  ! Rank r's input at linear index i: small, so that integer(1) sums
  ! and products of 4 ranks fit.
  integer function val(r, i)
    integer, intent(in) :: r, i
    val = mod(r * 7 + i * 3, 11) + 1
  end function val

  subroutine expect(what, got, want)
    character(len=*), intent(in) :: what
    real(8), intent(in) :: got, want
    if (got /= want) then
      if (fails < 10) print '(a, i0, 3a, g0, a, g0)', 'rank ', me, ': ', &
          what, ': got ', got, ', want ', want
      fails = fails + 1
    end if
  end subroutine expect

  subroutine check_status(what, st)
    character(len=*), intent(in) :: what
    integer, intent(in) :: st
    if (st /= TCOMM_SUCCESS) then
      print '(a, i0, 3a, i0, 2a)', 'rank ', me, ': ', what, ': ierr ', st, &
          ': ', tcomm_last_error()
      fails = fails + 1
    end if
  end subroutine check_status

  ! Every kind in place, real(8) also into recvbuf and on a section
  ! a(1:5:2, :), all outstanding at once and waited in reverse order.
  subroutine t_all_reduce_kinds()
    real(4), asynchronous, allocatable :: a4(:, :)
    real(8), asynchronous, allocatable :: a8(:, :), s8(:, :), r8(:, :), &
                                          w8(:, :)
    integer(1), asynchronous, allocatable :: b1(:, :)
    integer(4), asynchronous, allocatable :: b4(:, :)
    integer(8), asynchronous, allocatable :: b8(:, :)
    type(tcomm_request_t) :: req(7)
    integer :: i, j, k, st(7), r, lin
    real(8) :: sum_, prod_
    allocate (a4(3, 4), a8(3, 4), s8(3, 4), r8(3, 4), w8(5, 4), b1(3, 4), &
              b4(3, 4), b8(3, 4))
    do j = 1, 4
      do i = 1, 3
        lin = i + 3 * (j - 1)
        a4(i, j) = real(val(me, lin), 4)
        a8(i, j) = real(val(me, lin), 8)
        s8(i, j) = real(val(me, lin), 8)
        b1(i, j) = int(val(me, lin), 1)
        b4(i, j) = int(val(me, lin), 4)
        b8(i, j) = int(val(me, lin), 8)
      end do
      do i = 1, 5
        w8(i, j) = real(val(me, i + 5 * (j - 1)), 8)
      end do
    end do
    r8 = -1
    call tcomm_all_reduce_start(comm, a4, TCOMM_SUM, req(1), st(1))
    call tcomm_all_reduce_start(comm, a8, TCOMM_MAX, req(2), st(2))
    call tcomm_all_reduce_start(comm, b1, TCOMM_SUM, req(3), st(3))
    call tcomm_all_reduce_start(comm, b4, TCOMM_MIN, req(4), st(4))
    call tcomm_all_reduce_start(comm, b8, TCOMM_PROD, req(5), st(5))
    call tcomm_all_reduce_start(comm, s8, r8, TCOMM_AVG, req(6), st(6))
    call tcomm_all_reduce_start(comm, w8(1:5:2, :), TCOMM_SUM, req(7), st(7))
    do k = 1, 7
      call check_status('all_reduce_start', st(k))
    end do
    do k = 7, 1, -1
      call tcomm_wait(req(k), st(k))
      call check_status('all_reduce wait', st(k))
    end do
    do j = 1, 4
      do i = 1, 3
        lin = i + 3 * (j - 1)
        sum_ = 0
        prod_ = 1
        do r = 0, np - 1
          sum_ = sum_ + val(r, lin)
        end do
        call expect('all_reduce real(4) sum', real(a4(i, j), 8), sum_)
        call expect('all_reduce real(8) max', a8(i, j), &
                    real(maxval([(val(r, lin), r = 0, np - 1)]), 8))
        call expect('all_reduce integer(1) sum', real(b1(i, j), 8), sum_)
        call expect('all_reduce integer(4) min', real(b4(i, j), 8), &
                    real(minval([(val(r, lin), r = 0, np - 1)]), 8))
        call expect('all_reduce integer(8) prod', real(b8(i, j), 8), &
                    real(product([(int(val(r, lin), 8), r = 0, np - 1)]), 8))
        call expect('all_reduce sendbuf untouched', s8(i, j), &
                    real(val(me, lin), 8))
        call expect('all_reduce recvbuf avg', r8(i, j), sum_ / np)
      end do
      do i = 1, 5
        lin = i + 5 * (j - 1)
        sum_ = 0
        do r = 0, np - 1
          sum_ = sum_ + val(r, lin)
        end do
        if (mod(i, 2) == 0) sum_ = val(me, lin) ! outside the section
        call expect('all_reduce section', w8(i, j), sum_)
      end do
    end do
  end subroutine t_all_reduce_kinds

  ! Gathers along dims 1, 2 and 3 of a (2, 3, 2) integer(4) array, and
  ! along dim 1 from a section into a section, all outstanding, waited in
  ! the order 2, 4, 3, 1.
  subroutine t_all_gather_dims()
    integer(4), asynchronous :: s(2, 3, 2)
    integer(4), asynchronous, allocatable :: g1(:, :, :), g2(:, :, :), &
                                             g3(:, :, :), w(:, :, :), &
                                             gw(:, :, :)
    type(tcomm_request_t) :: req(4)
    integer :: i, j, k, st(4), ord(4), n
    allocate (g1(2 * np, 3, 2), g2(2, 3 * np, 2), g3(2, 3, 2 * np), &
              w(4, 3, 2), gw(4 * np, 3, 2))
    do k = 1, 2
      do j = 1, 3
        do i = 1, 2
          s(i, j, k) = val(me, lin3(i, j, k))
        end do
      end do
    end do
    w = -5
    w(2:4:2, :, :) = s
    g1 = -1
    g2 = -1
    g3 = -1
    gw = -1
    call tcomm_all_gather_start(comm, s, g1, 1, req(1), st(1))
    call tcomm_all_gather_start(comm, s, g2, 2, req(2), st(2))
    call tcomm_all_gather_start(comm, s, g3, 3, req(3), st(3))
    call tcomm_all_gather_start(comm, w(2:4:2, :, :), gw(1:4 * np:2, :, :), &
                                1, req(4), st(4))
    do n = 1, 4
      call check_status('all_gather_start', st(n))
    end do
    ord = [2, 4, 3, 1]
    do n = 1, 4
      call tcomm_wait(req(ord(n)), st(n))
      call check_status('all_gather wait', st(n))
    end do
    do k = 1, 2
      do j = 1, 3
        do i = 1, 2
          do n = 0, np - 1 ! rank n's block along the dim
            call expect('all_gather dim 1', real(g1(i + 2 * n, j, k), 8), &
                        real(val(n, lin3(i, j, k)), 8))
            call expect('all_gather dim 2', real(g2(i, j + 3 * n, k), 8), &
                        real(val(n, lin3(i, j, k)), 8))
            call expect('all_gather dim 3', real(g3(i, j, k + 2 * n), 8), &
                        real(val(n, lin3(i, j, k)), 8))
            call expect('all_gather sections', &
                        real(gw(2 * (i + 2 * n) - 1, j, k), 8), &
                        real(val(n, lin3(i, j, k)), 8))
            call expect('all_gather outside the section', &
                        real(gw(2 * (i + 2 * n), j, k), 8), -1.0d0)
          end do
        end do
      end do
    end do
  end subroutine t_all_gather_dims

  ! The linear index of (i, j, k) in a (2, 3, 2) array.
  integer function lin3(i, j, k)
    integer, intent(in) :: i, j, k
    lin3 = i + 2 * (j - 1) + 6 * (k - 1)
  end function lin3

  ! reduce_scatter along dims 1 and 2, broadcast, all_to_all (split 2
  ! concat 1, and split = concat = 1) and a barrier outstanding together,
  ! completed by one tcomm_wait_all (with a null entry).
  subroutine t_mixed_wait_all()
    real(8), asynchronous, allocatable :: rs1(:, :), rr1(:, :), &
                                          rs2(:, :), rr2(:, :)
    integer(8), asynchronous :: bc(5)
    real(4), asynchronous, allocatable :: as(:, :), ar(:, :), &
                                          bs(:, :), br(:, :)
    type(tcomm_request_t) :: req(8)
    integer :: i, c, r, st(8), root
    real(8) :: want
    allocate (rs1(2 * np, 3), rr1(2, 3), rs2(3, 2 * np), rr2(3, 2), &
              as(2, 3 * np), ar(2 * np, 3), bs(2 * np, 3), br(2 * np, 3))
    do c = 1, 3
      do i = 1, 2 * np
        rs1(i, c) = val(me, i + 2 * np * (c - 1))
        bs(i, c) = real(val(me, i + 2 * np * (c - 1)), 4)
      end do
    end do
    do c = 1, 2 * np
      do i = 1, 3
        rs2(i, c) = val(me, i + 3 * (c - 1))
      end do
    end do
    do c = 1, 3 * np
      do i = 1, 2
        as(i, c) = real(val(me, i + 2 * (c - 1)), 4)
      end do
    end do
    root = np - 1
    do i = 1, 5
      bc(i) = int(100 * me + i, 8)
    end do
    rr1 = -1
    rr2 = -1
    ar = -1
    br = -1
    call tcomm_reduce_scatter_start(comm, rs1, rr1, TCOMM_SUM, 1, req(1), &
                                    st(1))
    call tcomm_broadcast_start(comm, bc, root, req(2), st(2))
    call tcomm_reduce_scatter_start(comm, rs2, rr2, TCOMM_MAX, 2, req(3), &
                                    st(3))
    call tcomm_all_to_all_start(comm, as, ar, 2, 1, req(4), st(4))
    call tcomm_barrier_start(comm, req(5), st(5))
    call tcomm_all_to_all_start(comm, bs, br, 1, 1, req(7), st(7))
    st(6) = TCOMM_SUCCESS ! req(6) stays null: skipped
    st(8) = TCOMM_SUCCESS
    do i = 1, 7
      call check_status('mixed start', st(i))
    end do
    call tcomm_wait_all(req(1:7), st(8))
    call check_status('wait_all', st(8))
    do i = 1, 7
      if (c_assoc(req(i))) then
        print '(a, i0, a, i0, a)', 'rank ', me, ': req(', i, &
            ') not null after wait_all'
        fails = fails + 1
      end if
    end do
    do c = 1, 3
      do i = 1, 2
        want = 0
        do r = 0, np - 1
          want = want + val(r, 2 * me + i + 2 * np * (c - 1))
        end do
        call expect('reduce_scatter dim 1 sum', rr1(i, c), want)
      end do
    end do
    do c = 1, 2
      do i = 1, 3
        want = maxval([(val(r, i + 3 * (2 * me + c - 1)), r = 0, np - 1)])
        call expect('reduce_scatter dim 2 max', rr2(i, c), want)
      end do
    end do
    do i = 1, 5
      call expect('broadcast', real(bc(i), 8), real(100 * root + i, 8))
    end do
    do r = 0, np - 1 ! the block from rank r
      do c = 1, 3
        do i = 1, 2
          call expect('all_to_all split 2 concat 1', &
                      real(ar(i + 2 * r, c), 8), &
                      real(val(r, i + 2 * (3 * me + c - 1)), 8))
          call expect('all_to_all split 1 concat 1', &
                      real(br(i + 2 * r, c), 8), &
                      real(val(r, 2 * me + i + 2 * np * (c - 1)), 8))
        end do
      end do
    end do
  end subroutine t_mixed_wait_all

  logical function c_assoc(req)
    use, intrinsic :: iso_c_binding, only: c_associated
    type(tcomm_request_t), intent(in) :: req
    c_assoc = c_associated(req%handle)
  end function c_assoc

  ! Work between start and completion: tcomm_test until done, then the
  ! request is null and a wait on it is an invalid argument.
  subroutine t_test_loop()
    real(8), asynchronous, allocatable :: x(:)
    type(tcomm_request_t) :: req, breq
    logical :: done, bdone
    integer :: st, polls, i
    allocate (x(100000))
    x = me + 1
    call tcomm_all_reduce_start(comm, x, TCOMM_SUM, req, st)
    call check_status('test loop start', st)
    call tcomm_barrier_start(comm, breq, st)
    call check_status('barrier_start', st)
    polls = 0
    done = .false.
    bdone = .false.
    do while (.not. (done .and. bdone) .and. polls < 100000000)
      polls = polls + 1
      if (.not. done) call tcomm_test(req, done, st)
      call check_status('tcomm_test', st)
      if (.not. bdone) call tcomm_test(breq, bdone, st)
      call check_status('tcomm_test barrier', st)
    end do
    if (.not. (done .and. bdone) .or. c_assoc(req) .or. c_assoc(breq)) then
      print '(a, i0, a)', 'rank ', me, ': tcomm_test never completed'
      fails = fails + 1
    end if
    do i = 1, size(x), 997
      call expect('test loop sum', x(i), real(np * (np + 1) / 2, 8))
    end do
    call tcomm_wait(req, st)
    if (st /= TCOMM_ERR_INVALID_ARG) then
      print '(a, i0, a, i0)', 'rank ', me, ': wait on a null req: ', st
      fails = fails + 1
    end if
    call tcomm_test(req, done, st)
    if (st /= TCOMM_ERR_INVALID_ARG .or. done) then
      print '(a, i0, a, i0)', 'rank ', me, ': test on a null req: ', st
      fails = fails + 1
    end if
  end subroutine t_test_loop

  ! A bad dim on the last rank: its start fails (req null) and every
  ! other rank's request completes with an error; recvbuf untouched; the
  ! communicator works afterwards. Also a bad type on one rank.
  subroutine t_errors()
    real(8), asynchronous :: s(2, 3), g(2, 3 * np)
    complex(8), asynchronous :: z(2, 3)
    type(tcomm_request_t) :: req
    real(8), asynchronous :: ru(2 * np + 1, 3), rr(2, 3)
    character(len=160) :: want
    integer :: st, st2, bad, x(2)
    bad = np - 1
    ru = 1
    s = me
    g = -7
    if (me == bad) then
      call tcomm_all_gather_start(comm, s, g, 3, req, st)
    else
      call tcomm_all_gather_start(comm, s, g, 2, req, st)
    end if
    st2 = TCOMM_SUCCESS
    if (st == TCOMM_SUCCESS) call tcomm_wait(req, st2)
    if (me == bad .and. (st /= TCOMM_ERR_INVALID_ARG .or. c_assoc(req) &
        .or. index(tcomm_last_error(), &
        'tcomm_all_gather_start: dim 3 is out of range') /= 1)) then
      print '(a, i0, a, i0, 2a)', 'rank ', me, ': bad dim start: ', st, &
          ' ', tcomm_last_error()
      fails = fails + 1
    end if
    if (me /= bad .and. (st /= TCOMM_SUCCESS .or. &
        st2 == TCOMM_SUCCESS)) then
      print '(a, i0, a, i0, a, i0)', 'rank ', me, ': peer of a bad dim: ', &
          st, ' then ', st2
      fails = fails + 1
    end if
    if (any(g /= -7)) then
      print '(a, i0, a)', 'rank ', me, ': a failed gather wrote recvbuf'
      fails = fails + 1
    end if
    ! sendbuf's extent along dim not a multiple of the world size, on
    ! the last rank only (one rank has nothing to split wrongly)
    if (np > 1) then
      rr = -7
      if (me == bad) then
        call tcomm_reduce_scatter_start(comm, ru(1:2 * np + 1, :), rr, &
            TCOMM_SUM, 1, req, st)
      else
        call tcomm_reduce_scatter_start(comm, ru(1:2 * np, :), rr, &
            TCOMM_SUM, 1, req, st)
      end if
      st2 = TCOMM_SUCCESS
      if (st == TCOMM_SUCCESS) call tcomm_wait(req, st2)
      write (want, '(a, i0, a, i0)') 'tcomm_reduce_scatter_start: extent ', &
          2 * np + 1, ' of sendbuf along dim 1 is not divisible by the ' // &
          'world size ', np
      if (me == bad .and. (st /= TCOMM_ERR_SHAPE .or. c_assoc(req) &
          .or. index(tcomm_last_error(), trim(want)) /= 1)) then
        print '(a, i0, a, i0, 2a)', 'rank ', me, ': indivisible start: ', &
            st, ' ', tcomm_last_error()
        fails = fails + 1
      end if
      if (me /= bad .and. (st /= TCOMM_SUCCESS .or. &
          st2 == TCOMM_SUCCESS)) then
        print '(a, i0, a, i0, a, i0)', 'rank ', me, &
            ': peer of an indivisible start: ', st, ' then ', st2
        fails = fails + 1
      end if
      if (any(rr /= -7)) then
        print '(a, i0, a)', 'rank ', me, &
            ': a failed reduce_scatter wrote recvbuf'
        fails = fails + 1
      end if
    end if
    ! a type tcomm does not take, on rank 0 only
    x = 1
    if (me == 0) then
      call tcomm_all_reduce_start(comm, z, TCOMM_SUM, req, st)
    else
      call tcomm_all_reduce_start(comm, s, TCOMM_SUM, req, st)
    end if
    st2 = TCOMM_SUCCESS
    if (st == TCOMM_SUCCESS) call tcomm_wait(req, st2)
    if ((me == 0 .and. st /= TCOMM_ERR_DTYPE) .or. (me /= 0 .and. np > 1 &
        .and. st2 == TCOMM_SUCCESS)) then
      print '(a, i0, a, i0, a, i0, 2a)', 'rank ', me, ': bad type: ', st, &
          ' then ', st2, ' ', tcomm_last_error()
      fails = fails + 1
    end if
    ! still usable
    call tcomm_all_reduce(comm, x, TCOMM_SUM, st)
    call check_status('all_reduce after the errors', st)
    call expect('all_reduce after the errors', real(x(1), 8), real(np, 8))
  end subroutine t_errors

end program fortran_nonblocking
