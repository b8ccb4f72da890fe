! SPDX-License-Identifier: BSD-3-Clause
! The Fortran module of tcomm (Fortran 2008 + TS 29113).
!
!   use tcomm
!   type(tcomm_comm_t) :: comm
!   call tcomm_comm_create_mpi(comm, fcomm, ierr)   ! integer or type(MPI_Comm)
!   call tcomm_comm_info(comm, rank, world_size, ierr)
!   call tcomm_all_reduce(comm, buf, op, ierr)               ! in place
!   call tcomm_all_gather(comm, sendbuf, recvbuf, dim, ierr)
!   call tcomm_reduce_scatter(comm, sendbuf, recvbuf, op, dim, ierr)
!   call tcomm_reduce_scatter_v(comm, sendbuf, recvbuf, op, dim, sizes, ierr)
!   call tcomm_all_to_all(comm, sendbuf, recvbuf, split_dim, concat_dim, ierr)
!   call tcomm_all_to_all_v(comm, sendbuf, recvbuf, split_dim, send_sizes, &
!                           concat_dim, ierr)
!   call tcomm_broadcast(comm, buf, root, ierr)              ! in place
!   call tcomm_reduce(comm, sendbuf, recvbuf, op, root, ierr) ! on root
!   call tcomm_barrier(comm, ierr)
!   call tcomm_comm_destroy(comm, ierr)
!
! Nonblocking (tcomm_nb_spec.inc, tcomm_nb_body.inc): tcomm_*_start with
! the blocking call's arguments and a type(tcomm_request_t) req before
! ierr; tcomm_wait(req, ierr), tcomm_test(req, done, ierr),
! tcomm_wait_all(reqs, ierr). The buffers are `asynchronous`.
!
! Buffers are real(4), real(8), integer(1), integer(4) or integer(8)
! arrays of any rank up to 8 (or scalars), contiguous or not. dim is a
! Fortran dimension (1-based); root and ranks are 0-based, as in MPI;
! sizes and send_sizes are default integer arrays of one entry per rank.
! ierr is optional: without it, a failure prints the message and stops
! the program (error stop). The work is done in C (tcomm_f*.c) through
! the ISO_Fortran_binding.h descriptors of the arrays.
module tcomm
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_ptr, &
                                         c_null_ptr, c_char
  use, intrinsic :: iso_fortran_env, only: error_unit
#ifdef TCOMM_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  implicit none
  private

  !> A tcomm communicator: wraps the C handle (null until created).
  type, public :: tcomm_comm_t
    type(c_ptr) :: handle = c_null_ptr
  end type tcomm_comm_t

  ! Status codes: the values of tcomm_status_t.
  integer, parameter, public :: TCOMM_SUCCESS = 0
  integer, parameter, public :: TCOMM_ERR_INVALID_ARG = -1
  integer, parameter, public :: TCOMM_ERR_SHAPE = -2
  integer, parameter, public :: TCOMM_ERR_DTYPE = -3
  integer, parameter, public :: TCOMM_ERR_GRAPH_MISMATCH = -4
  integer, parameter, public :: TCOMM_ERR_MISMATCH = -5
  integer, parameter, public :: TCOMM_ERR_TIMEOUT = -6
  integer, parameter, public :: TCOMM_ERR_UNSUPPORTED = -7
  integer, parameter, public :: TCOMM_ERR_NO_MEMORY = -8
  integer, parameter, public :: TCOMM_ERR_MPI = -9
  integer, parameter, public :: TCOMM_ERR_CUDA = -10
  integer, parameter, public :: TCOMM_ERR_COMM_FAILED = -11
  integer, parameter, public :: TCOMM_ERR_INTERNAL = -12

  ! Reductions: the values of tcomm_op_t.
  integer, parameter, public :: TCOMM_SUM = 0
  integer, parameter, public :: TCOMM_PROD = 1
  integer, parameter, public :: TCOMM_MIN = 2
  integer, parameter, public :: TCOMM_MAX = 3
  integer, parameter, public :: TCOMM_AVG = 4

  public :: tcomm_comm_create_mpi, tcomm_comm_info, tcomm_comm_destroy
  public :: tcomm_all_reduce, tcomm_all_gather, tcomm_reduce_scatter
  public :: tcomm_broadcast, tcomm_barrier, tcomm_reduce
  public :: tcomm_all_to_all, tcomm_all_to_all_v, tcomm_reduce_scatter_v
  public :: tcomm_last_error, tcomm_status_string

  !> From a `use mpi` integer handle or an mpi_f08 type(MPI_Comm).
  interface tcomm_comm_create_mpi
    module procedure tcomm_comm_create_mpi_int
#ifdef TCOMM_HAVE_MPI_F08
    module procedure tcomm_comm_create_mpi_f08
#endif
  end interface tcomm_comm_create_mpi

  ! The C side (src/fortran/tcomm_f.c, tcomm_f_colls.c,
  ! tcomm_f_all_to_all.c).
  interface
    integer(c_int) function c_comm_create_mpi(fcomm, handle) &
        bind(C, name="tcomm_f_comm_create_mpi")
      import :: c_int, c_ptr
      integer(c_int), value :: fcomm
      type(c_ptr), intent(out) :: handle
    end function c_comm_create_mpi

    integer(c_int) function c_comm_info(handle, rank, world_size) &
        bind(C, name="tcomm_f_comm_info")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: rank, world_size
    end function c_comm_info

    integer(c_int) function c_comm_destroy(handle) &
        bind(C, name="tcomm_f_comm_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: handle
    end function c_comm_destroy

    integer(c_int) function c_barrier(handle) bind(C, name="tcomm_f_barrier")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function c_barrier

    integer(c_int) function c_all_reduce(handle, buf, op) &
        bind(C, name="tcomm_f_all_reduce")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int), value :: op
    end function c_all_reduce

    integer(c_int) function c_broadcast(handle, buf, root) &
        bind(C, name="tcomm_f_broadcast")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(inout) :: buf
      integer(c_int), value :: root
    end function c_broadcast

    integer(c_int) function c_reduce(handle, sendbuf, recvbuf, op, root) &
        bind(C, name="tcomm_f_reduce")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: op, root
    end function c_reduce

    integer(c_int) function c_all_gather(handle, sendbuf, recvbuf, dim) &
        bind(C, name="tcomm_f_all_gather")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: dim
    end function c_all_gather

    integer(c_int) function c_reduce_scatter(handle, sendbuf, recvbuf, op, &
        dim) bind(C, name="tcomm_f_reduce_scatter")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: op, dim
    end function c_reduce_scatter

    integer(c_int) function c_all_to_all(handle, sendbuf, recvbuf, split, &
        concat) bind(C, name="tcomm_f_all_to_all")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: split, concat
    end function c_all_to_all

    integer(c_int) function c_all_to_all_v(handle, sendbuf, recvbuf, split, &
        sizes, nsizes, concat) bind(C, name="tcomm_f_all_to_all_v")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: split, nsizes, concat
      integer(c_int64_t), intent(in) :: sizes(*)
    end function c_all_to_all_v

    integer(c_int) function c_reduce_scatter_v(handle, sendbuf, recvbuf, op, &
        dim, sizes, nsizes) bind(C, name="tcomm_f_reduce_scatter_v")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..), intent(inout) :: recvbuf
      integer(c_int), value :: op, dim, nsizes
      integer(c_int64_t), intent(in) :: sizes(*)
    end function c_reduce_scatter_v

    integer(c_int) function c_error_text(buf, len) &
        bind(C, name="tcomm_f_error_text")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(out) :: buf
      integer(c_int), value :: len
    end function c_error_text

    integer(c_int) function c_status_text(status, buf, len) &
        bind(C, name="tcomm_f_status_text")
      import :: c_int, c_char
      integer(c_int), value :: status
      character(kind=c_char), dimension(*), intent(out) :: buf
      integer(c_int), value :: len
    end function c_status_text
  end interface

#include "tcomm_nb_spec.inc"

contains

  !> The sentence about this thread's last failure ("" if none): the
  !> call, the problem and the fix.
  function tcomm_last_error() result(text)
    character(len=:), allocatable :: text
    character(kind=c_char, len=1024) :: buf
    integer :: n
    n = c_error_text(buf, len(buf, kind=c_int))
    text = buf(1:n)
  end function tcomm_last_error

  !> The constant text of a status code, e.g. "invalid argument".
  function tcomm_status_string(status) result(text)
    integer, intent(in) :: status
    character(len=:), allocatable :: text
    character(kind=c_char, len=128) :: buf
    integer :: n
    n = c_status_text(int(status, c_int), buf, len(buf, kind=c_int))
    text = buf(1:n)
  end function tcomm_status_string

  ! ierr present: hand the status back. Absent: stop on failure.
  subroutine finish(status, ierr)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: ierr
    if (present(ierr)) then
      ierr = int(status)
    else if (status /= TCOMM_SUCCESS) then
      write (error_unit, '(a)') 'tcomm: error ' // tcomm_status_string( &
          int(status)) // ': ' // tcomm_last_error()
      flush (error_unit)
      error stop 1
    end if
  end subroutine finish

  subroutine tcomm_comm_create_mpi_int(comm, fcomm, ierr)
    type(tcomm_comm_t), intent(out) :: comm
    integer, intent(in) :: fcomm
    integer, intent(out), optional :: ierr
    call finish(c_comm_create_mpi(int(fcomm, c_int), comm%handle), ierr)
  end subroutine tcomm_comm_create_mpi_int

#ifdef TCOMM_HAVE_MPI_F08
  subroutine tcomm_comm_create_mpi_f08(comm, fcomm, ierr)
    type(tcomm_comm_t), intent(out) :: comm
    type(MPI_Comm), intent(in) :: fcomm
    integer, intent(out), optional :: ierr
    call finish(c_comm_create_mpi(int(fcomm%MPI_VAL, c_int), comm%handle), &
                ierr)
  end subroutine tcomm_comm_create_mpi_f08
#endif

  subroutine tcomm_comm_info(comm, rank, world_size, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    integer, intent(out) :: rank, world_size
    integer, intent(out), optional :: ierr
    integer(c_int) :: r, n, st
    r = -1
    n = 0
    st = c_comm_info(comm%handle, r, n)
    rank = int(r)
    world_size = int(n)
    call finish(st, ierr)
  end subroutine tcomm_comm_info

  subroutine tcomm_comm_destroy(comm, ierr)
    type(tcomm_comm_t), intent(inout) :: comm
    integer, intent(out), optional :: ierr
    call finish(c_comm_destroy(comm%handle), ierr)
  end subroutine tcomm_comm_destroy

  subroutine tcomm_barrier(comm, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    integer, intent(out), optional :: ierr
    call finish(c_barrier(comm%handle), ierr)
  end subroutine tcomm_barrier

  !> Element-wise reduction of buf over the ranks, in place.
  subroutine tcomm_all_reduce(comm, buf, op, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(inout) :: buf
    integer, intent(in) :: op
    integer, intent(out), optional :: ierr
    call finish(c_all_reduce(comm%handle, buf, int(op, c_int)), ierr)
  end subroutine tcomm_all_reduce

  !> Root's buf on every rank, in place.
  subroutine tcomm_broadcast(comm, buf, root, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(inout) :: buf
    integer, intent(in) :: root
    integer, intent(out), optional :: ierr
    call finish(c_broadcast(comm%handle, buf, int(root, c_int)), ierr)
  end subroutine tcomm_broadcast

  !> MPI_Reduce: the reduction of sendbuf over the ranks in recvbuf on
  !> rank root (sendbuf's shape and type); elsewhere recvbuf is not used.
  subroutine tcomm_reduce(comm, sendbuf, recvbuf, op, root, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: op, root
    integer, intent(out), optional :: ierr
    call finish(c_reduce(comm%handle, sendbuf, recvbuf, int(op, c_int), &
                         int(root, c_int)), ierr)
  end subroutine tcomm_reduce

  !> Every rank's sendbuf concatenated along Fortran dimension dim, in
  !> rank order; extents along dim may differ between ranks.
  subroutine tcomm_all_gather(comm, sendbuf, recvbuf, dim, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: dim
    integer, intent(out), optional :: ierr
    call finish(c_all_gather(comm%handle, sendbuf, recvbuf, &
                             int(dim, c_int)), ierr)
  end subroutine tcomm_all_gather

  !> Reduce sendbuf over the ranks; rank r receives the r-th of
  !> world_size equal chunks along Fortran dimension dim.
  subroutine tcomm_reduce_scatter(comm, sendbuf, recvbuf, op, dim, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: op, dim
    integer, intent(out), optional :: ierr
    call finish(c_reduce_scatter(comm%handle, sendbuf, recvbuf, &
                                 int(op, c_int), int(dim, c_int)), ierr)
  end subroutine tcomm_reduce_scatter

  !> Like tcomm_reduce_scatter, with chunks of sizes(r+1) along dim for
  !> rank r (the same sizes on every rank, adding up to the extent).
  subroutine tcomm_reduce_scatter_v(comm, sendbuf, recvbuf, op, dim, sizes, &
                                    ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: op, dim, sizes(:)
    integer, intent(out), optional :: ierr
    call finish(c_reduce_scatter_v(comm%handle, sendbuf, recvbuf, &
                                   int(op, c_int), int(dim, c_int), &
                                   int(sizes, c_int64_t), &
                                   int(size(sizes), c_int)), ierr)
  end subroutine tcomm_reduce_scatter_v

  !> Cut sendbuf into world_size equal chunks along split_dim, chunk j
  !> to rank j; the chunks received are concatenated in rank order along
  !> concat_dim (Fortran dimensions, 1-based).
  subroutine tcomm_all_to_all(comm, sendbuf, recvbuf, split_dim, &
                              concat_dim, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: split_dim, concat_dim
    integer, intent(out), optional :: ierr
    call finish(c_all_to_all(comm%handle, sendbuf, recvbuf, &
                             int(split_dim, c_int), int(concat_dim, c_int)), &
                ierr)
  end subroutine tcomm_all_to_all

  !> Uneven all_to_all: send_sizes(j+1) along split_dim goes to rank j.
  !> split_dim == concat_dim: a token exchange (send_sizes may differ
  !> between ranks); otherwise a transpose (the same send_sizes on every
  !> rank).
  subroutine tcomm_all_to_all_v(comm, sendbuf, recvbuf, split_dim, &
                                send_sizes, concat_dim, ierr)
    type(tcomm_comm_t), intent(in) :: comm
    type(*), dimension(..), intent(in) :: sendbuf
    type(*), dimension(..), intent(inout) :: recvbuf
    integer, intent(in) :: split_dim, send_sizes(:), concat_dim
    integer, intent(out), optional :: ierr
    call finish(c_all_to_all_v(comm%handle, sendbuf, recvbuf, &
                               int(split_dim, c_int), &
                               int(send_sizes, c_int64_t), &
                               int(size(send_sizes), c_int), &
                               int(concat_dim, c_int)), ierr)
  end subroutine tcomm_all_to_all_v

#include "tcomm_nb_body.inc"

end module tcomm
