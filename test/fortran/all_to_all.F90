! SPDX-License-Identifier: BSD-3-Clause
! tcomm_all_to_all, tcomm_all_to_all_v and tcomm_reduce_scatter_v of the
! module `tcomm` for one kind (TK, from -DTK_R4, TK_R8, TK_I4, TK_I8 or
! TK_I1), at any number of ranks: every (split_dim, concat_dim) pair of
! rank-1 to rank-3 arrays; the _v form as a token exchange (split ==
! concat, send_sizes differ per rank, zeros among them) and as a
! transpose (the same send_sizes everywhere, the ranks' extents along
! concat_dim differ); reduce_scatter_v with every op along each dim.
! Every expected value is computed from the inputs all ranks regenerate
! from (rank, index). Sections and errors: all_to_all_errors.f90. Exit
! status 1 on any failure.
#if defined(TK_R4)
#define TK real(4)
#define CV(x) real(x, 4)
#define IS_REAL .true.
#elif defined(TK_R8)
#define TK real(8)
#define CV(x) real(x, 8)
#define IS_REAL .true.
#elif defined(TK_I4)
#define TK integer(4)
#define CV(x) int(x, 4)
#define IS_REAL .false.
#elif defined(TK_I8)
#define TK integer(8)
#define CV(x) int(x, 8)
#define IS_REAL .false.
#elif defined(TK_I1)
#define TK integer(1)
#define CV(x) int(x, 1)
#define IS_REAL .false.
#endif
program fortran_all_to_all
  use mpi
  use tcomm
  implicit none
  type(tcomm_comm_t) :: comm
  integer :: me, np, ierr, nrank, a, b, op, fails, total
  character(len=*), parameter :: opname(0:4) = &
      ['sum ', 'prod', 'min ', 'max ', 'avg ']
  integer, parameter :: KA2A = 1, KV = 2, KRS = 3

  fails = 0
  call MPI_Init(ierr)
  call tcomm_comm_create_mpi(comm, MPI_COMM_WORLD)
  call tcomm_comm_info(comm, me, np)
  do nrank = 1, 3
    do a = 1, nrank
      do b = 1, nrank
        call t_even(nrank, a, b)
        if (a == b) call t_tokens(nrank, a)
        if (a /= b) call t_transpose(nrank, a, b)
      end do
      do op = TCOMM_SUM, TCOMM_AVG
        call t_reduce_scatter_v(nrank, a, op)
      end do
    end do
  end do
  call tcomm_barrier(comm)
  call tcomm_comm_destroy(comm)
  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (me == 0) write (*, '(a,i0,a,i0)') 'fortran_all_to_all: ranks ', np, &
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

  ! Exact in every kind: the values are small integers.
  subroutine check_vals(got, want, what)
    real(8), intent(in) :: got(:), want(:)
    character(len=*), intent(in) :: what
    integer :: i
    logical :: ok
    ok = size(got) == size(want)
    if (ok) ok = all(got == want)
    if (.not. ok .and. size(got) == size(want)) then
      do i = 1, size(got)
        if (got(i) /= want(i)) exit
      end do
      write (*, '(a,i0,a,g0,a,g0)') '  first difference at ', i, ': got ', &
          got(i), ', want ', want(i)
    end if
    call check(ok, what)
  end subroutine check_vals

  ! The extents of a rank-r array (padded with 1).
  function base_shape(r) result(sh)
    integer, intent(in) :: r
    integer :: sh(3)
    sh = 1
    select case (r)
    case (1)
      sh(1) = 3
    case (2)
      sh(1:2) = [3, 2]
    case (3)
      sh = [2, 3, 2]
    end select
  end function base_shape

  function lin_of(i, sh) result(lin)
    integer, intent(in) :: i(3), sh(3)
    integer :: lin
    lin = i(1) + sh(1) * (i(2) - 1 + sh(2) * (i(3) - 1))
  end function lin_of

  ! Payload of rank q at element i: in -120..120 (integer(1) too).
  real(8) function gv(q, i)
    integer, intent(in) :: q, i(3)
    gv = mod(31 * q + 3 * i(1) + 7 * i(2) + 13 * i(3), 241) - 120
  end function gv

  ! Reduction inputs of rank q at element lin, exact at up to 4 ranks.
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

  ! Rank q's payload of extents sh, column-major.
  function payload(q, sh) result(vals)
    integer, intent(in) :: q, sh(3)
    real(8), allocatable :: vals(:)
    integer :: i1, i2, i3
    allocate (vals(product(sh)))
    do i3 = 1, sh(3)
      do i2 = 1, sh(2)
        do i1 = 1, sh(1)
          vals(lin_of([i1, i2, i3], sh)) = gv(q, [i1, i2, i3])
        end do
      end do
    end do
  end function payload

  ! Send sizes of the token exchange: rank q sends tok(q, j) to rank j
  ! (zeros among them from 2 ranks on).
  integer function tok(q, j)
    integer, intent(in) :: q, j
    tok = mod(q + 2 * j + 1, 3)
  end function tok

  ! Send sizes of the transpose, the same on every rank.
  integer function tsz(j)
    integer, intent(in) :: j
    tsz = mod(j + 1, 3)
  end function tsz

  ! One call of kind KA2A (all_to_all, a = split, b = concat), KV
  ! (all_to_all_v, a = split, b = concat, sizes) or KRS (reduce_scatter_v,
  ! a = op, b = dim, sizes) from a rank-r array of extents ss holding
  ! vals into one of extents rs (first filled with -99).
  subroutine run(kind, r, ss, rs, vals, a, b, sizes, got, ierr)
    integer, intent(in) :: kind, r, ss(3), rs(3), a, b, sizes(:)
    real(8), intent(in) :: vals(:)
    real(8), allocatable, intent(out) :: got(:)
    integer, intent(out) :: ierr
    TK, allocatable :: s1(:), s2(:, :), s3(:, :, :)
    TK, allocatable :: r1(:), r2(:, :), r3(:, :, :)
    select case (r)
    case (1)
      s1 = reshape(CV(vals), ss(1:1))
      allocate (r1(rs(1)))
      r1 = CV(-99.0d0)
      if (kind == KA2A) call tcomm_all_to_all(comm, s1, r1, a, b, ierr)
      if (kind == KV) call tcomm_all_to_all_v(comm, s1, r1, a, sizes, b, ierr)
      if (kind == KRS) &
          call tcomm_reduce_scatter_v(comm, s1, r1, a, b, sizes, ierr)
      got = real(pack(r1, .true.), 8)
    case (2)
      s2 = reshape(CV(vals), ss(1:2))
      allocate (r2(rs(1), rs(2)))
      r2 = CV(-99.0d0)
      if (kind == KA2A) call tcomm_all_to_all(comm, s2, r2, a, b, ierr)
      if (kind == KV) call tcomm_all_to_all_v(comm, s2, r2, a, sizes, b, ierr)
      if (kind == KRS) &
          call tcomm_reduce_scatter_v(comm, s2, r2, a, b, sizes, ierr)
      got = real(pack(r2, .true.), 8)
    case (3)
      s3 = reshape(CV(vals), ss)
      allocate (r3(rs(1), rs(2), rs(3)))
      r3 = CV(-99.0d0)
      if (kind == KA2A) call tcomm_all_to_all(comm, s3, r3, a, b, ierr)
      if (kind == KV) call tcomm_all_to_all_v(comm, s3, r3, a, sizes, b, ierr)
      if (kind == KRS) &
          call tcomm_reduce_scatter_v(comm, s3, r3, a, b, sizes, ierr)
      got = real(pack(r3, .true.), 8)
    end select
  end subroutine run

  ! Even: chunks of c = 2 along split; the chunk from rank q lands at
  ! q * ss(concat) along concat (q * c when split == concat).
  subroutine t_even(r, split, concat)
    integer, intent(in) :: r, split, concat
    integer, parameter :: c = 2
    integer :: ss(3), rs(3), i(3), j(3), j1, j2, j3, q, ierr
    real(8), allocatable :: want(:), got(:)
    character(len=64) :: what
    ss = base_shape(r)
    ss(split) = c * np
    rs = ss
    rs(split) = c
    rs(concat) = rs(concat) * np
    allocate (want(product(rs)))
    do j3 = 1, rs(3)
      do j2 = 1, rs(2)
        do j1 = 1, rs(1)
          j = [j1, j2, j3]
          i = j
          if (split == concat) then
            q = (j(concat) - 1) / c
            i(split) = me * c + j(concat) - q * c
          else
            q = (j(concat) - 1) / ss(concat)
            i(concat) = j(concat) - q * ss(concat)
            i(split) = me * c + j(split)
          end if
          want(lin_of(j, rs)) = gv(q, i)
        end do
      end do
    end do
    write (what, '(a,i0,a,i0,a,i0)') 'all_to_all rank-', r, ' split ', &
        split, ' concat ', concat
    call run(KA2A, r, ss, rs, payload(me, ss), split, concat, [0], got, ierr)
    call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
    call check_vals(got, want, trim(what))
  end subroutine t_even

  ! Token exchange along d: rank q sends tok(q, j) to rank j, so rank q
  ! has sum_j tok(q, j) along d and receives sum_q tok(q, me).
  subroutine t_tokens(r, d)
    integer, intent(in) :: r, d
    integer :: ss(3), rs(3), i(3), j(3), j1, j2, j3, q, off, p, ierr, k
    real(8), allocatable :: want(:), got(:)
    character(len=64) :: what
    ss = base_shape(r)
    ss(d) = sum([(tok(me, k), k = 0, np - 1)])
    rs = ss
    rs(d) = sum([(tok(k, me), k = 0, np - 1)])
    allocate (want(product(rs)))
    do j3 = 1, rs(3)
      do j2 = 1, rs(2)
        do j1 = 1, rs(1)
          j = [j1, j2, j3]
          q = 0
          off = 0
          do while (j(d) > off + tok(q, me))
            off = off + tok(q, me)
            q = q + 1
          end do
          p = j(d) - off
          i = j
          i(d) = sum([(tok(q, k), k = 0, me - 1)]) + p
          want(lin_of(j, rs)) = gv(q, i)
        end do
      end do
    end do
    write (what, '(a,i0,a,i0)') 'all_to_all_v tokens rank-', r, ' dim ', d
    call run(KV, r, ss, rs, payload(me, ss), d, d, &
             [(tok(me, k), k = 0, np - 1)], got, ierr)
    call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
    call check_vals(got, want, trim(what))
  end subroutine t_tokens

  ! Transpose: tsz(j) along split to rank j, the same on every rank;
  ! rank q has q + 1 along concat.
  subroutine t_transpose(r, split, concat)
    integer, intent(in) :: r, split, concat
    integer :: ss(3), rs(3), i(3), j(3), j1, j2, j3, q, off, ierr, k
    real(8), allocatable :: want(:), got(:)
    character(len=64) :: what
    ss = base_shape(r)
    ss(split) = sum([(tsz(k), k = 0, np - 1)])
    ss(concat) = me + 1
    rs = ss
    rs(split) = tsz(me)
    rs(concat) = np * (np + 1) / 2
    allocate (want(product(rs)))
    do j3 = 1, rs(3)
      do j2 = 1, rs(2)
        do j1 = 1, rs(1)
          j = [j1, j2, j3]
          q = 0
          off = 0
          do while (j(concat) > off + q + 1)
            off = off + q + 1
            q = q + 1
          end do
          i = j
          i(concat) = j(concat) - off
          i(split) = sum([(tsz(k), k = 0, me - 1)]) + j(split)
          want(lin_of(j, rs)) = gv(q, i)
        end do
      end do
    end do
    write (what, '(a,i0,a,i0,a,i0)') 'all_to_all_v transpose rank-', r, &
        ' split ', split, ' concat ', concat
    call run(KV, r, ss, rs, payload(me, ss), split, concat, &
             [(tsz(k), k = 0, np - 1)], got, ierr)
    call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
    call check_vals(got, want, trim(what))
  end subroutine t_transpose

  ! reduce_scatter_v along d with chunks tsz(q) (zeros from 3 ranks on).
  subroutine t_reduce_scatter_v(r, d, op)
    integer, intent(in) :: r, d, op
    integer :: ss(3), rs(3), i(3), j(3), i1, i2, i3, j1, j2, j3, ierr, k
    real(8), allocatable :: vals(:), want(:), got(:)
    character(len=64) :: what
    ss = base_shape(r)
    ss(d) = sum([(tsz(k), k = 0, np - 1)])
    rs = ss
    rs(d) = tsz(me)
    allocate (vals(product(ss)), want(product(rs)))
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
          i(d) = j(d) + sum([(tsz(k), k = 0, me - 1)])
          ! rounded to TK: AVG's quotient at 3 ranks is inexact
          want(lin_of(j, rs)) = real(CV(reduced(lin_of(i, ss), op)), 8)
        end do
      end do
    end do
    write (what, '(a,i0,a,i0,2a)') 'reduce_scatter_v rank-', r, ' dim ', d, &
        ' ', opname(op)
    call run(KRS, r, ss, rs, vals, op, d, [(tsz(k), k = 0, np - 1)], got, &
             ierr)
    if (op == TCOMM_AVG .and. .not. IS_REAL) then
      call expect(ierr, TCOMM_ERR_DTYPE, trim(what) // ': status', &
                  'tcomm_reduce_scatter_v: TCOMM_AVG needs a real array')
      call check(all(got == -99.0d0), trim(what) // ': recvbuf unchanged')
    else
      call check(ierr == TCOMM_SUCCESS, trim(what) // ': status')
      call check_vals(got, want, trim(what))
    end if
  end subroutine t_reduce_scatter_v

end program fortran_all_to_all
