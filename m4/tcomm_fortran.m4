# SPDX-License-Identifier: BSD-3-Clause
# Fortran bindings (src/fortran/): detected here, built by a later issue.
AC_ARG_ENABLE([fortran],
  [AS_HELP_STRING([--enable-fortran], [build the Fortran module (default: if gfortran is found)])],
  [], [enable_fortran=check])
AC_CHECK_PROGS([TCOMM_FC], [mpifort mpif90 gfortran], [])
AS_IF([test "x$enable_fortran" = xyes && test -z "$TCOMM_FC"],
      [AC_MSG_ERROR([--enable-fortran: no Fortran compiler found (install gfortran)])])
AS_IF([test "x$enable_fortran" != xno && test -n "$TCOMM_FC"],
      [tcomm_fortran_summary="compiler found ($TCOMM_FC); bindings not built yet"],
      [tcomm_fortran_summary="no"])
