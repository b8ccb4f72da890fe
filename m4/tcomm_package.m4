# SPDX-License-Identifier: BSD-3-Clause
# What outside programs need to use tcomm, computed from what was built
# (after the CUDA, Fortran, Gloo and NCCL checks):
#
#   TCOMM_PRIVATE_LIBS  a static link of libtcomm.a beyond -ltcomm: NCCL,
#                       the CUDA runtime, Gloo and libstdc++ (Gloo's C++,
#                       nvcc's objects), and LIBS (-lm, -lpthread where
#                       needed); tcomm.pc's Libs.private
#   TCOMM_INSTALL_DIRS  prefix, libdir and includedir, expanded: those
#                       `make install` must keep (Makefile.am)
#   TCOMM_CMAKE_*       the CMake package config (cmake/): the private
#                       libraries as a list, includedir relative to libdir,
#                       whether Fortran was built, the MPI compiler wrappers
#
# Outputs tcomm-uninstalled.pc (and tcomm-fortran-uninstalled.pc with
# Fortran) for the build tree, and cmake/tcommConfig.cmake and
# cmake/tcommConfigVersion.cmake for $(libdir)/cmake/tcomm.

# libtool's -R DIR is an rpath; pkg-config's users call the compiler.
tcomm_private="$NCCL_LIBS $CUDA_LIBS $GLOO_LIBS $LIBS"
tcomm_private=`echo "$tcomm_private" | sed 's/-R\(@<:@^ @:>@*\)/-Wl,-rpath,\1/g'`
# Each flag once, in first-seen order (none of them depends on a later one).
TCOMM_PRIVATE_LIBS=
for tcomm_flag in $tcomm_private; do
  AS_CASE([" $TCOMM_PRIVATE_LIBS "], [*" $tcomm_flag "*], [],
          [TCOMM_PRIVATE_LIBS="${TCOMM_PRIVATE_LIBS:+$TCOMM_PRIVATE_LIBS }$tcomm_flag"])
done
AC_SUBST([TCOMM_PRIVATE_LIBS])
TCOMM_CMAKE_PRIVATE_LIBS=`echo "$TCOMM_PRIVATE_LIBS" | sed 's/ /;/g'`
AC_SUBST([TCOMM_CMAKE_PRIVATE_LIBS])

# The config file lives in LIBDIR/cmake/tcomm and finds the rest from
# there: includedir as a path relative to libdir when both are under the
# prefix (a staged or moved install still works), else absolute.
tcomm_save_prefix=$prefix
tcomm_save_exec_prefix=$exec_prefix
test "x$prefix" = xNONE && prefix=$ac_default_prefix
test "x$exec_prefix" = xNONE && exec_prefix=$prefix
tcomm_expand() {
  tcomm_v=$[1]
  while :; do
    AS_CASE([$tcomm_v], [*'${'*], [eval tcomm_v=\"$tcomm_v\"], [break])
  done
  echo "$tcomm_v"
}
tcomm_lib=`tcomm_expand "$libdir"`
tcomm_inc=`tcomm_expand "$includedir"`
tcomm_pfx=`tcomm_expand "$prefix"`
prefix=$tcomm_save_prefix
exec_prefix=$tcomm_save_exec_prefix
# Where `make install` puts what names these directories (tcomm.pc, the
# libraries libtool relinks): Makefile.am stops an install elsewhere.
TCOMM_INSTALL_DIRS="$tcomm_pfx $tcomm_lib $tcomm_inc"
AC_SUBST([TCOMM_INSTALL_DIRS])
TCOMM_CMAKE_INCLUDEDIR=$tcomm_inc
AS_CASE([$tcomm_lib], ["$tcomm_pfx"/*], [
  AS_CASE([$tcomm_inc], ["$tcomm_pfx"/*], [
    tcomm_up=`echo "${tcomm_lib#$tcomm_pfx/}" | sed 's|@<:@^/@:>@@<:@^/@:>@*|..|g'`
    TCOMM_CMAKE_INCLUDEDIR="$tcomm_up/${tcomm_inc#$tcomm_pfx/}"
  ])
])
AC_SUBST([TCOMM_CMAKE_INCLUDEDIR])
AS_IF([test "x$tcomm_fortran_ok" = xyes],
      [TCOMM_CMAKE_FORTRAN=ON], [TCOMM_CMAKE_FORTRAN=OFF])
AC_SUBST([TCOMM_CMAKE_FORTRAN])
# The wrappers tcomm was built with: FindMPI's default, so that a CMake
# project finds the same MPI.
TCOMM_CMAKE_MPICC=$tcomm_cc_path
AS_CASE([$FC], [/*], [TCOMM_CMAKE_MPIFC=$FC],
        [TCOMM_CMAKE_MPIFC=`command -v "${FC%% *}" 2>/dev/null`])
AC_CHECK_SIZEOF([void *])
AC_SUBST([TCOMM_SIZEOF_VOID_P], [$ac_cv_sizeof_void_p])
AC_SUBST([TCOMM_CMAKE_MPICC])
AC_SUBST([TCOMM_CMAKE_MPIFC])

AC_CONFIG_FILES([tcomm-uninstalled.pc
                 cmake/tcommConfig.cmake cmake/tcommConfigVersion.cmake])
AS_IF([test "x$tcomm_fortran_ok" = xyes],
      [AC_CONFIG_FILES([tcomm-fortran-uninstalled.pc])])
