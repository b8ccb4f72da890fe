# SPDX-License-Identifier: BSD-3-Clause
# Fortran bindings (src/fortran/): the module `tcomm` over TS 29113
# assumed-type, assumed-rank arrays, read in C through ISO_Fortran_binding.h.
#
#   --enable-fortran     required: an error if it cannot be built
#   --disable-fortran    never built
#   (default)            built when a capable Fortran compiler is found
#
# Sets: FC (AC_PROG_FC, so that libtool learns the FC tag), FC_MODINC and
# FC_MODOUT (module search / output flags), TCOMM_FC_DEFS (preprocessor
# flags of src/fortran/tcomm.F90), AM_CONDITIONAL TCOMM_HAVE_FORTRAN and
# TCOMM_HAVE_FORTRAN_F08, AC_DEFINE TCOMM_HAVE_FORTRAN, and
# tcomm_fortran_summary. This file comes after LT_INIT, which redefines
# AC_PROG_FC to also configure libtool's FC tag.
AC_ARG_ENABLE([fortran],
  [AS_HELP_STRING([--enable-fortran],
    [build the Fortran module and libtcomm_f (default: if a Fortran compiler
     with TS 29113 support is found)])],
  [], [enable_fortran=check])

# The MPI wrapper first: the tests and examples `use mpi`.
AC_PROG_FC([mpifort mpif90 mpifort.openmpi mpif90.openmpi mpifort.mpich gfortran])

tcomm_fortran_ok=no
tcomm_fortran_why=
tcomm_fortran_f08=no
TCOMM_FC_DEFS=
AS_IF([test "x$enable_fortran" = xno],
      [tcomm_fortran_why="disabled (--disable-fortran)"],
      [test -z "$FC" || test "x$FC" = xno],
      [tcomm_fortran_why="no Fortran compiler found (install gfortran)"],
[
  tcomm_fortran_ok=yes
  AC_LANG_PUSH([Fortran])
  dnl free-form .f90 for the tests below (and FCFLAGS_f90 if needed)
  AC_FC_SRCEXT([f90], [],
    [tcomm_fortran_ok=no
     tcomm_fortran_why="$FC does not compile .f90 files"])
  AC_MSG_CHECKING([whether $FC compiles TS 29113 assumed-type, assumed-rank arrays])
  AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
module tcomm_conftest
  use, intrinsic :: iso_c_binding
  implicit none
  interface
    integer(c_int) function probe(buf) bind(C, name="probe")
      import :: c_int
      type(*), dimension(..), intent(inout) :: buf
    end function probe
  end interface
contains
  subroutine wrap(buf, ierr)
    type(*), dimension(..), intent(inout) :: buf
    integer, intent(out), optional :: ierr
    integer :: st
    st = probe(buf)
    if (present(ierr)) ierr = st
  end subroutine wrap
end module tcomm_conftest
]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     tcomm_fortran_ok=no
     tcomm_fortran_why="$FC lacks TS 29113 (type(*), dimension(..)): use gfortran >= 9"])
  AS_IF([test $tcomm_fortran_ok = yes], [
    AC_MSG_CHECKING([whether $FC compiles `use mpi'])
    AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
program conftest
  use mpi
  implicit none
  integer :: c
  c = MPI_COMM_WORLD
end program conftest
]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       tcomm_fortran_ok=no
       tcomm_fortran_why="$FC cannot \`use mpi' (pass FC=mpifort)"])
  ])
  AS_IF([test $tcomm_fortran_ok = yes], [
    AC_MSG_CHECKING([whether $FC compiles `use mpi_f08'])
    AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
program conftest
  use mpi_f08
  implicit none
  type(MPI_Comm) :: c
  integer :: v
  c = MPI_COMM_WORLD
  v = c%MPI_VAL
end program conftest
]])],
      [AC_MSG_RESULT([yes])
       tcomm_fortran_f08=yes
       TCOMM_FC_DEFS="-DTCOMM_HAVE_MPI_F08=1"],
      [AC_MSG_RESULT([no])])
    AC_FC_MODULE_FLAG([],
      [tcomm_fortran_ok=no
       tcomm_fortran_why="no module search flag known for $FC"])
    AC_FC_MODULE_OUTPUT_FLAG([],
      [tcomm_fortran_ok=no
       tcomm_fortran_why="no module output flag known for $FC"])
    # mpif.h's buffers are untyped: gfortran 10 and later reject
    # calls with different types without this flag (test/pmpi/).
    tcomm_save_FCFLAGS=$FCFLAGS
    FCFLAGS="$FCFLAGS -fallow-argument-mismatch"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [TCOMM_FC_MISMATCH=-fallow-argument-mismatch])
    FCFLAGS=$tcomm_save_FCFLAGS
  ])
  AC_LANG_POP([Fortran])
  AC_SUBST([TCOMM_FC_MISMATCH])
  AS_IF([test $tcomm_fortran_ok = yes], [
    AC_MSG_CHECKING([whether $CC finds ISO_Fortran_binding.h])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <ISO_Fortran_binding.h>]],
        [[CFI_cdesc_t *d = 0; return d ? (int)d->rank : CFI_type_float;]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       tcomm_fortran_ok=no
       tcomm_fortran_why="$CC does not find ISO_Fortran_binding.h (use the gcc that matches $FC)"])
  ])
])

AS_IF([test "x$enable_fortran" = xyes && test $tcomm_fortran_ok != yes],
      [AC_MSG_ERROR([--enable-fortran: $tcomm_fortran_why])])
AS_IF([test $tcomm_fortran_ok = yes],
      [AC_DEFINE([TCOMM_HAVE_FORTRAN], [1],
                 [Define to 1 if the Fortran module and libtcomm_f are built.])
       AS_IF([test $tcomm_fortran_f08 = yes],
             [tcomm_fortran_summary="yes ($FC; use mpi and use mpi_f08)"],
             [tcomm_fortran_summary="yes ($FC; use mpi, no mpi_f08)"])],
      [AS_IF([test "x$enable_fortran" != xno],
             [AC_MSG_NOTICE([Fortran bindings skipped: $tcomm_fortran_why])])
       tcomm_fortran_summary="no: $tcomm_fortran_why"])
AC_SUBST([TCOMM_FC_DEFS])
AM_CONDITIONAL([TCOMM_HAVE_FORTRAN], [test $tcomm_fortran_ok = yes])
AM_CONDITIONAL([TCOMM_HAVE_FORTRAN_F08],
               [test $tcomm_fortran_ok = yes && test $tcomm_fortran_f08 = yes])
