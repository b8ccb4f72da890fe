! SPDX-License-Identifier: BSD-3-Clause
! Every collective of the module `tcomm` for one kind (TK, chosen by
! -DTK_R4, TK_R8, TK_I4, TK_I8 or TK_I1), at any number of ranks:
! all_reduce with every op, all_gather (ranks' extents differ) and
! reduce_scatter with every op along each dim, broadcast from each root,
! reduce with every op to each root (recvbuf of size 0 off the root),
! for rank-1 to rank-3 arrays; sections (strided, negative strides,
! rank 3), scalars; and calls without ierr. Exit status 1 on any failure.
#if defined(TK_R4)
#define TK real(4)
#define CV(x) real(x, 4)
#define IS_REAL .true.
#define TOL 1.0d-6
#elif defined(TK_R8)
#define TK real(8)
#define CV(x) real(x, 8)
#define IS_REAL .true.
#define TOL 1.0d-14
#elif defined(TK_I4)
#define TK integer(4)
#define CV(x) int(x, 4)
#define IS_REAL .false.
#define TOL 0.0d0
#elif defined(TK_I8)
#define TK integer(8)
#define CV(x) int(x, 8)
#define IS_REAL .false.
#define TOL 0.0d0
#elif defined(TK_I1)
#define TK integer(1)
#define CV(x) int(x, 1)
#define IS_REAL .false.
#define TOL 0.0d0
#endif
program fortran_colls
  use mpi
  use tcomm
  implicit none
  type(tcomm_comm_t) :: comm
  integer :: me, np, ierr, nrank, k, op, root, fails, total
  character(len=*), parameter :: opname(0:4) = &
      ['sum ', 'prod', 'min ', 'max ', 'avg ']

  fails = 0
  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD)   ! without ierr
  call tcomm_comm_info(comm, me, np)
  do nrank = 1, 3
    do op = TCOMM_SUM, TCOMM_AVG
      call t_all_reduce(nrank, op)
    end do
    do k = 1, nrank
      call t_all_gather(nrank, k)
      do op = TCOMM_SUM, TCOMM_AVG
        call t_reduce_scatter(nrank, k, op)
      end do
    end do
    do root = 0, np - 1
      call t_broadcast(nrank, root)
    end do
  end do
  do op = TCOMM_SUM, TCOMM_AVG
    do root = 0, np - 1
      call t_reduce(op, root)
    end do
  end do
  call t_sections()
  call t_scalars()
  call tcomm_barrier(comm)
  call tcomm_comm_destroy(comm)
  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (me == 0) write (*, '(a,i0,a,i0)') 'fortran_colls: ranks ', np, &
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

  subroutine check_vals(got, want, what)
    real(8), intent(in) :: got(:), want(:)
    character(len=*), intent(in) :: what
    integer :: i
    logical :: ok
    ok = size(got) == size(want)
    if (ok) ok = all(abs(got - want) <= TOL * max(1.0d0, abs(want)))
    if (.not. ok .and. size(got) == size(want)) then
      do i = 1, size(got)
        if (abs(got(i) - want(i)) > TOL * max(1.0d0, abs(want(i)))) exit
      end do
      write (*, '(a,i0,a,g0,a,g0)') '  first difference at ', i, ': got ', &
          got(i), ', want ', want(i)
    end if
    call check(ok, what)
  end subroutine check_vals

  ! The extents used for a rank-r array (padded with 1).
  function base_shape(r) result(sh)
    integer, intent(in) :: r
    integer :: sh(3)
    sh = 1
    select case (r)
    case (1)
      sh(1) = 5
    case (2)
      sh(1:2) = [3, 4]
    case (3)
      sh = [3, 2, 4]
    end select
  end function base_shape

  ! Reduction inputs: rank q, element lin (column-major, 1-based).
  real(8) function rv(q, lin, op)
    integer, intent(in) :: q, lin, op
    if (op == TCOMM_PROD) then
      rv = 1 + mod(q + lin, 2)
    else
      rv = mod(7 * q + 3 * lin, 11) - 5
    end if
  end function rv

  real(8) function reduced(lin, op)
    integer, intent(in) :: lin, op
    integer :: q
    reduced = rv(0, lin, op)
    do q = 1, np - 1
      select case (op)
      case (TCOMM_SUM, TCOMM_AVG)
        reduced = reduced + rv(q, lin, op)
      case (TCOMM_PROD)
        reduced = reduced * rv(q, lin, op)
      case (TCOMM_MIN)
        reduced = min(reduced, rv(q, lin, op))
      case (TCOMM_MAX)
        reduced = max(reduced, rv(q, lin, op))
      end select
    end do
    if (op == TCOMM_AVG) reduced = reduced / np
  end function reduced

  ! Gather and broadcast inputs: rank q, element (i1, i2, i3).
  real(8) function gv(q, i1, i2, i3)
    integer, intent(in) :: q, i1, i2, i3
    gv = mod(5 * q + 3 * i1 + 7 * i2 + 11 * i3, 23) - 11
  end function gv

  function lin_of(i, sh) result(lin)
    integer, intent(in) :: i(3), sh(3)
    integer :: lin
    lin = i(1) + sh(1) * (i(2) - 1 + sh(2) * (i(3) - 1))
  end function lin_of

  ! Run one in-place call (1: all_reduce, 2: broadcast) on a rank-r
  ! array holding vals; returns its values afterwards.
  subroutine run_inplace(kind, r, sh, vals, arg, got, ierr)
    integer, intent(in) :: kind, r, sh(3), arg
    real(8), intent(in) :: vals(:)
    real(8), intent(out) :: got(:)
    integer, intent(out) :: ierr
    TK, allocatable :: a1(:), a2(:, :), a3(:, :, :)
    select case (r)
    case (1)
      a1 = reshape(CV(vals), sh(1:1))
      if (kind == 1) call tcomm_all_reduce(comm, a1, arg, ierr)
      if (kind == 2) call tcomm_broadcast(comm, a1, arg, ierr)
      got = real(pack(a1, .true.), 8)
    case (2)
      a2 = reshape(CV(vals), sh(1:2))
      if (kind == 1) call tcomm_all_reduce(comm, a2, arg, ierr)
      if (kind == 2) call tcomm_broadcast(comm, a2, arg, ierr)
      got = real(pack(a2, .true.), 8)
    case (3)
      a3 = reshape(CV(vals), sh)
      if (kind == 1) call tcomm_all_reduce(comm, a3, arg, ierr)
      if (kind == 2) call tcomm_broadcast(comm, a3, arg, ierr)
      got = real(pack(a3, .true.), 8)
    end select
  end subroutine run_inplace

  ! Run all_gather (kind 1) or reduce_scatter (kind 2, op) along dim k
  ! from a rank-r array of extents ss holding vals into one of rs.
  subroutine run_pair(kind, r, ss, rs, vals, op, k, got, ierr)
    integer, intent(in) :: kind, r, ss(3), rs(3), op, k
    real(8), intent(in) :: vals(:)
    real(8), intent(out) :: got(:)
    integer, intent(out) :: ierr
    TK, allocatable :: s1(:), s2(:, :), s3(:, :, :)
    TK, allocatable :: r1(:), r2(:, :), r3(:, :, :)
    select case (r)
    case (1)
      s1 = reshape(CV(vals), ss(1:1))
      allocate (r1(rs(1)))
      r1 = CV(-99.0d0)
      if (kind == 1) call tcomm_all_gather(comm, s1, r1, k, ierr)
      if (kind == 2) call tcomm_reduce_scatter(comm, s1, r1, op, k, ierr)
      got = real(pack(r1, .true.), 8)
    case (2)
      s2 = reshape(CV(vals), ss(1:2))
      allocate (r2(rs(1), rs(2)))
      r2 = CV(-99.0d0)
      if (kind == 1) call tcomm_all_gather(comm, s2, r2, k, ierr)
      if (kind == 2) call tcomm_reduce_scatter(comm, s2, r2, op, k, ierr)
      got = real(pack(r2, .true.), 8)
    case (3)
      s3 = reshape(CV(vals), ss)
      allocate (r3(rs(1), rs(2), rs(3)))
      r3 = CV(-99.0d0)
      if (kind == 1) call tcomm_all_gather(comm, s3, r3, k, ierr)
      if (kind == 2) call tcomm_reduce_scatter(comm, s3, r3, op, k, ierr)
      got = real(pack(r3, .true.), 8)
    end select
  end subroutine run_pair

  subroutine t_all_reduce(r, op)
    integer, intent(in) :: r, op
    integer :: sh(3), n, i, ierr
    real(8), allocatable :: vals(:), want(:), got(:)
    character(len=64) :: what
    sh = base_shape(r)
    n = product(sh)
    vals = [(rv(me, i, op), i = 1, n)]
    want = [(reduced(i, op), i = 1, n)]
    allocate (got(n))
    write (what, '(a,i0,2a)') 'all_reduce rank-', r, ' ', opname(op)
    call run_inplace(1, r, sh, vals, op, got, ierr)
    if (op == TCOMM_AVG .and. .not. IS_REAL) then
      call check(ierr == TCOMM_ERR_DTYPE, trim(what) // ': status')
      call check_vals(got, vals, trim(what) // ': buf unchanged')
    else
      call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
      call check_vals(got, want, trim(what))
    end if
  end subroutine t_all_reduce

  ! reduce of a (3, 4) array to root; elsewhere recvbuf has size 0.
  subroutine t_reduce(op, root)
    integer, intent(in) :: op, root
    integer :: i, ierr
    TK :: a(3, 4), b(3, 4), none(0)
    real(8) :: vals(12), want(12), got(12)
    character(len=64) :: what
    vals = [(rv(me, i, op), i = 1, 12)]
    want = [(reduced(i, op), i = 1, 12)]
    a = reshape([(CV(vals(i)), i = 1, 12)], [3, 4])
    b = CV(-3)
    write (what, '(a,2a,i0)') 'reduce ', trim(opname(op)), ' to ', root
    if (me == root) then
      call tcomm_reduce(comm, a, b, op, root, ierr)
    else
      call tcomm_reduce(comm, a, none, op, root, ierr)
    end if
    got = real(reshape(b, [12]), 8)
    if (op == TCOMM_AVG .and. .not. IS_REAL) then
      call check(ierr == TCOMM_ERR_DTYPE, trim(what) // ': status')
    else
      call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
      if (me == root) call check_vals(got, want, trim(what))
    end if
    if (me /= root .or. ierr /= TCOMM_SUCCESS) &
      call check(all(b == CV(-3)), trim(what) // ': recvbuf unchanged')
  end subroutine t_reduce

  subroutine t_all_gather(r, k)
    integer, intent(in) :: r, k
    integer :: ss(3), rs(3), i(3), j(3), i1, i2, i3, j1, j2, j3, q, off, ierr
    real(8), allocatable :: vals(:), want(:), got(:)
    character(len=64) :: what
    ss = base_shape(r)
    ss(k) = me + 1           ! the ranks' extents along k differ
    rs = base_shape(r)
    rs(k) = np * (np + 1) / 2
    allocate (vals(product(ss)), want(product(rs)), got(product(rs)))
    do i3 = 1, ss(3)
      do i2 = 1, ss(2)
        do i1 = 1, ss(1)
          i = [i1, i2, i3]
          vals(lin_of(i, ss)) = gv(me, i(1), i(2), i(3))
        end do
      end do
    end do
    do j3 = 1, rs(3)
      do j2 = 1, rs(2)
        do j1 = 1, rs(1)
          j = [j1, j2, j3]
          ! rank q owns positions off+1 .. off+q+1 along k
          q = 0
          off = 0
          do while (j(k) > off + q + 1)
            off = off + q + 1
            q = q + 1
          end do
          i = j
          i(k) = j(k) - off
          want(lin_of(j, rs)) = gv(q, i(1), i(2), i(3))
        end do
      end do
    end do
    write (what, '(a,i0,a,i0)') 'all_gather rank-', r, ' dim ', k
    call run_pair(1, r, ss, rs, vals, 0, k, got, ierr)
    call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
    call check_vals(got, want, trim(what))
  end subroutine t_all_gather

  subroutine t_reduce_scatter(r, k, op)
    integer, intent(in) :: r, k, op
    integer :: ss(3), rs(3), i(3), j(3), i1, i2, i3, j1, j2, j3, ierr
    real(8), allocatable :: vals(:), want(:), got(:)
    character(len=64) :: what
    ss = base_shape(r)
    ss(k) = 2 * np
    rs = ss
    rs(k) = 2
    allocate (vals(product(ss)), want(product(rs)), got(product(rs)))
    do i3 = 1, ss(3)
      do i2 = 1, ss(2)
        do i1 = 1, ss(1)
          i = [i1, i2, i3]
          vals(lin_of(i, ss)) = rv(me, lin_of(i, ss), op)
        end do
      end do
    end do
    do j3 = 1, rs(3)
      do j2 = 1, rs(2)
        do j1 = 1, rs(1)
          j = [j1, j2, j3]
          i = j
          i(k) = j(k) + 2 * me
          want(lin_of(j, rs)) = reduced(lin_of(i, ss), op)
        end do
      end do
    end do
    write (what, '(a,i0,a,i0,2a)') 'reduce_scatter rank-', r, ' dim ', k, &
        ' ', opname(op)
    call run_pair(2, r, ss, rs, vals, op, k, got, ierr)
    if (op == TCOMM_AVG .and. .not. IS_REAL) then
      call check(ierr == TCOMM_ERR_DTYPE, trim(what) // ': status')
      call check(all(got == -99.0d0), trim(what) // ': recvbuf unchanged')
    else
      call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
      call check_vals(got, want, trim(what))
    end if
  end subroutine t_reduce_scatter

  subroutine t_broadcast(r, root)
    integer, intent(in) :: r, root
    integer :: sh(3), i(3), i1, i2, i3, ierr
    real(8), allocatable :: vals(:), want(:), got(:)
    character(len=64) :: what
    sh = base_shape(r)
    allocate (vals(product(sh)), want(product(sh)), got(product(sh)))
    do i3 = 1, sh(3)
      do i2 = 1, sh(2)
        do i1 = 1, sh(1)
          i = [i1, i2, i3]
          want(lin_of(i, sh)) = gv(root, i(1), i(2), i(3))
        end do
      end do
    end do
    vals = want
    if (me /= root) vals = -7
    write (what, '(a,i0,a,i0)') 'broadcast rank-', r, ' root ', root
    call run_inplace(2, r, sh, vals, root, got, ierr)
    call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
    call check_vals(got, want, trim(what))
  end subroutine t_broadcast

  subroutine t_sections()
    TK :: b(6, 5), s(4, 4), rb(4, 3 * np + 1), c(5, 2 * np), rr(6, 2)
    TK :: row(3, 4), v(5), g(5 * np), t(4, 3, 7)
    TK, allocatable :: keep(:, :), keep3(:, :, :)
    integer :: i, j, q, l, ierr
    real(8) :: w
    logical :: ok

    ! all_reduce in place on b(1:6:2, 2:4): the rest of b is untouched
    b = CV(99.0d0)
    do j = 2, 4
      do i = 1, 6, 2
        b(i, j) = CV(rv(me, (i + 1) / 2 + 3 * (j - 2), TCOMM_SUM))
      end do
    end do
    keep = b
    call tcomm_all_reduce(comm, b(1:6:2, 2:4), TCOMM_SUM, ierr)
    call check(ierr == TCOMM_SUCCESS, 'section all_reduce: status')
    ok = .true.
    do j = 1, 5
      do i = 1, 6
        if (mod(i, 2) == 1 .and. j >= 2 .and. j <= 4) then
          ok = ok .and. real(b(i, j), 8) == &
              reduced((i + 1) / 2 + 3 * (j - 2), TCOMM_SUM)
        else
          ok = ok .and. b(i, j) == keep(i, j)
        end if
      end do
    end do
    call check(ok, 'section all_reduce b(1:6:2, 2:4)')

    ! the contract's example: gather dim 2 of a(2,3) gives (2, 3*nranks);
    ! here both a and the result are sections
    do j = 1, 4
      do i = 1, 4
        s(i, j) = CV(gv(me, i, j, 0))
      end do
    end do
    rb = CV(-1.0d0)
    call tcomm_all_gather(comm, s(2:3, 1:3), rb(1:4:2, 2:3 * np + 1), 2, ierr)
    call check(ierr == TCOMM_SUCCESS, 'section all_gather: status')
    ok = all(rb(:, 1) == CV(-1.0d0)) .and. all(rb(2:4:2, :) == CV(-1.0d0))
    do q = 0, np - 1
      do j = 1, 3
        do i = 1, 2
          ok = ok .and. real(rb(2 * i - 1, 1 + 3 * q + j), 8) == &
              gv(q, i + 1, j, 0)
        end do
      end do
    end do
    call check(ok, 'section all_gather s(2:3, 1:3) into rb(1:4:2, 2:)')

    ! reduce_scatter from c(2:4, :) into rr(1:6:2, :) along dim 2
    do j = 1, 2 * np
      do i = 1, 5
        c(i, j) = CV(rv(me, i + 5 * j, TCOMM_SUM))
      end do
    end do
    rr = CV(-1.0d0)
    call tcomm_reduce_scatter(comm, c(2:4, :), rr(1:6:2, :), TCOMM_SUM, 2, &
                              ierr)
    call check(ierr == TCOMM_SUCCESS, 'section reduce_scatter: status')
    ok = all(rr(2:6:2, :) == CV(-1.0d0))
    do j = 1, 2
      do i = 1, 3
        ok = ok .and. real(rr(2 * i - 1, j), 8) == &
            reduced(i + 1 + 5 * (j + 2 * me), TCOMM_SUM)
      end do
    end do
    call check(ok, 'section reduce_scatter c(2:4, :) into rr(1:6:2, :)')

    ! broadcast a row (stride 3) from the last rank
    row = CV(real(me, 8))
    if (me == np - 1) row(2, :) = CV([(gv(np - 1, j, 0, 0), j = 1, 4)])
    call tcomm_broadcast(comm, row(2, :), np - 1, ierr)
    call check(ierr == TCOMM_SUCCESS, 'section broadcast: status')
    ok = all(row(1, :) == CV(real(me, 8))) .and. &
        all(row(3, :) == CV(real(me, 8)))
    do j = 1, 4
      ok = ok .and. real(row(2, j), 8) == gv(np - 1, j, 0, 0)
    end do
    call check(ok, 'section broadcast row(2, :)')

    ! a negative stride: gather v(5:1:-1)
    v = CV([(gv(me, l, 1, 1), l = 1, 5)])
    call tcomm_all_gather(comm, v(5:1:-1), g, 1, ierr)
    call check(ierr == TCOMM_SUCCESS, 'reversed all_gather: status')
    ok = .true.
    do q = 0, np - 1
      do l = 1, 5
        ok = ok .and. real(g(5 * q + l), 8) == gv(q, 6 - l, 1, 1)
      end do
    end do
    call check(ok, 'all_gather of v(5:1:-1)')

    ! a rank-3 section, in place
    t = CV(50.0d0)
    do l = 1, 7, 3
      do j = 1, 3
        do i = 2, 3
          t(i, j, l) = CV(rv(me, i + 4 * j + 12 * l, TCOMM_MAX))
        end do
      end do
    end do
    keep3 = t
    call tcomm_all_reduce(comm, t(2:3, :, 1:7:3), TCOMM_MAX, ierr)
    call check(ierr == TCOMM_SUCCESS, 'rank-3 section all_reduce: status')
    ok = .true.
    do l = 1, 7
      do j = 1, 3
        do i = 1, 4
          if (i >= 2 .and. i <= 3 .and. mod(l - 1, 3) == 0) then
            w = reduced(i + 4 * j + 12 * l, TCOMM_MAX)
            ok = ok .and. real(t(i, j, l), 8) == w
          else
            ok = ok .and. t(i, j, l) == keep3(i, j, l)
          end if
        end do
      end do
    end do
    call check(ok, 'rank-3 section all_reduce t(2:3, :, 1:7:3)')
  end subroutine t_sections

  ! Scalars, and every collective without ierr (these succeed).
  subroutine t_scalars()
    TK :: x, y, every(np), part(3 * np), mine(3)
    integer :: q
    x = CV(real(me + 1, 8))
    call tcomm_all_reduce(comm, x, TCOMM_SUM)
    call check(real(x, 8) == np * (np + 1) / 2.0d0, 'scalar all_reduce')
    y = CV(real(me, 8))
    call tcomm_broadcast(comm, y, np - 1)
    call check(real(y, 8) == np - 1, 'scalar broadcast')
    x = CV(real(10 + me, 8))
    call tcomm_all_gather(comm, x, every, 1)
    call check(all(real(every, 8) == [(10.0d0 + q, q = 0, np - 1)]), &
               'scalar all_gather')
    part = CV([(real(q, 8), q = 1, 3 * np)])
    call tcomm_reduce_scatter(comm, part, mine, TCOMM_MAX, 1)
    call check(all(real(mine, 8) == [(real(3 * me + q, 8), q = 1, 3)]), &
               'reduce_scatter without ierr')
    call tcomm_barrier(comm)
  end subroutine t_scalars

end program fortran_colls
