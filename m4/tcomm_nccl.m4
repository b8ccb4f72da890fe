# SPDX-License-Identifier: BSD-3-Clause
# NCCL detection for the NCCL backend (cuda/backend_nccl.c). Needs the
# CUDA transport (m4/tcomm_cuda.m4, included before this file).
#
#   --with-nccl[=DIR]  require NCCL (DIR: its prefix; default: the CUDA
#                      toolkit directory, where these machines keep it)
#   --without-nccl     build without the NCCL backend
#   (no option)        the NCCL backend if CUDA is enabled and nccl.h and
#                      libnccl are found in the CUDA toolkit directory
#
# An explicit --with-nccl that cannot be honoured stops configure.
# Defines: NCCL_CPPFLAGS, NCCL_LIBS; AM_CONDITIONAL TCOMM_HAVE_NCCL;
# TCOMM_HAVE_NCCL in config.h.

AC_ARG_WITH([nccl],
  [AS_HELP_STRING([--with-nccl@<:@=DIR@:>@],
    [build the NCCL backend against NCCL in DIR (default: if CUDA is enabled and NCCL is in its toolkit)])],
  [], [with_nccl=check])

tcomm_nccl_enabled=no
tcomm_nccl_why=""
NCCL_CPPFLAGS=""
NCCL_LIBS=""
AS_CASE([$with_nccl],
  [no], [tcomm_nccl_why="disabled by --without-nccl"],
  [yes|check], [tcomm_nccl_dir=$CUDA_DIR],
  [tcomm_nccl_dir=$with_nccl])

AS_IF([test "x$with_nccl" != xno && test "x$tcomm_cuda_enabled" != xyes],
      [tcomm_nccl_why="the CUDA transport is not enabled (--with-cuda)"])

AS_IF([test "x$with_nccl" != xno && test -z "$tcomm_nccl_why"], [
  tcomm_nccl_libdir=""
  for d in "$tcomm_nccl_dir/lib64" "$tcomm_nccl_dir/lib" \
           "$tcomm_nccl_dir/targets/x86_64-linux/lib"; do
    AS_IF([test -z "$tcomm_nccl_libdir" && test -f "$d/libnccl.so"],
          [tcomm_nccl_libdir="$d"])
  done
  AS_IF([test -z "$tcomm_nccl_libdir"],
        [tcomm_nccl_why="no libnccl.so under $tcomm_nccl_dir"])
])

AS_IF([test "x$with_nccl" != xno && test -z "$tcomm_nccl_why"], [
  NCCL_CPPFLAGS="-I$tcomm_nccl_dir/include"
  NCCL_LIBS="-L$tcomm_nccl_libdir -Wl,-rpath,$tcomm_nccl_libdir -lnccl"
  tcomm_save_CPPFLAGS=$CPPFLAGS
  tcomm_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS $NCCL_CPPFLAGS"
  LIBS="$NCCL_LIBS $LIBS"
  AC_MSG_CHECKING([whether $CC builds against NCCL 2.10 or later])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <nccl.h>
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 10, 0)
#error NCCL before 2.10 has no bfloat16
#endif]],
                   [[ncclUniqueId id; return ncclGetUniqueId(&id) == 12345;]])],
                 [AC_MSG_RESULT([yes]); tcomm_nccl_enabled=yes],
                 [AC_MSG_RESULT([no])
                  tcomm_nccl_why="$CC cannot build against NCCL >= 2.10 in $tcomm_nccl_dir"])
  CPPFLAGS=$tcomm_save_CPPFLAGS
  LIBS=$tcomm_save_LIBS
])

AS_IF([test "x$tcomm_nccl_enabled" = xyes], [
  AC_DEFINE([TCOMM_HAVE_NCCL], [1], [Define to 1 to build the NCCL backend.])
  tcomm_nccl_summary="yes ($tcomm_nccl_libdir)"
], [
  AS_IF([test "x$with_nccl" != xno && test "x$with_nccl" != xcheck],
        [AC_MSG_ERROR([--with-nccl was given but $tcomm_nccl_why])])
  NCCL_CPPFLAGS=""; NCCL_LIBS=""
  tcomm_nccl_summary="no: $tcomm_nccl_why"
])
AC_SUBST([NCCL_CPPFLAGS])
AC_SUBST([NCCL_LIBS])
AM_CONDITIONAL([TCOMM_HAVE_NCCL], [test "x$tcomm_nccl_enabled" = xyes])
AC_MSG_NOTICE([NCCL backend: $tcomm_nccl_summary])
