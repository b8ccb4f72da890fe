# SPDX-License-Identifier: BSD-3-Clause
# Gloo detection for the Gloo backend (src/backend_gloo.cc).
#
#   --with-gloo[=DIR]  require Gloo (DIR: its prefix; default: the system's,
#                      Debian's libgloo-dev)
#   --without-gloo     build without the Gloo backend
#   (no option)        the Gloo backend if gloo/rendezvous/file_store.h and
#                      libgloo are found
#
# An explicit --with-gloo that cannot be honoured stops configure.
# Defines: GLOO_CPPFLAGS, GLOO_LIBS; AM_CONDITIONAL TCOMM_HAVE_GLOO;
# TCOMM_HAVE_GLOO in config.h, or tcomm_gloo_why (turned off, or why not
# found) for configure.ac's TCOMM_GLOO_WHY.

# The backend is one C++ file; libtool learns the C++ tag here.
AC_PROG_CXX

AC_ARG_WITH([gloo],
  [AS_HELP_STRING([--with-gloo@<:@=DIR@:>@],
    [build the Gloo backend against Gloo in DIR (default: if Gloo is found)])],
  [], [with_gloo=check])

tcomm_gloo_enabled=no
tcomm_gloo_why=""
GLOO_CPPFLAGS=""
GLOO_LIBS=""
AS_CASE([$with_gloo],
  [no], [tcomm_gloo_why="disabled by --without-gloo"],
  [yes|check], [],
  [GLOO_CPPFLAGS="-I$with_gloo/include"
   GLOO_LIBS="-L$with_gloo/lib -Wl,-rpath,$with_gloo/lib"
   AS_IF([test ! -f "$with_gloo/include/gloo/context.h"],
         [tcomm_gloo_why="no gloo/context.h under $with_gloo/include"])])

AS_IF([test "x$with_gloo" != xno && test -z "$tcomm_gloo_why"], [
  AC_LANG_PUSH([C++])
  tcomm_save_CPPFLAGS=$CPPFLAGS
  tcomm_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $GLOO_CPPFLAGS"
  LIBS="$GLOO_LIBS -lgloo $LIBS"
  AC_MSG_CHECKING([whether $CXX builds against Gloo (file store, TCP)])
  AC_LINK_IFELSE([AC_LANG_PROGRAM(
      [[#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>]],
      [[gloo::transport::tcp::attr a("127.0.0.1");
gloo::rendezvous::FileStore store("/nonexistent");
auto dev = gloo::transport::tcp::CreateDevice(a);
return dev ? 0 : 1;]])],
    [AC_MSG_RESULT([yes]); tcomm_gloo_enabled=yes],
    [AC_MSG_RESULT([no])
     tcomm_gloo_why="$CXX cannot build against Gloo: install libgloo-dev, or pass --with-gloo=DIR"])
  CPPFLAGS=$tcomm_save_CPPFLAGS
  LIBS=$tcomm_save_LIBS
  AC_LANG_POP([C++])
])

AS_IF([test "x$tcomm_gloo_enabled" = xyes], [
  GLOO_LIBS="$GLOO_LIBS -lgloo -lstdc++"
  AC_DEFINE([TCOMM_HAVE_GLOO], [1], [Define to 1 to build the Gloo backend.])
  tcomm_gloo_summary="yes"
], [
  AS_IF([test "x$with_gloo" != xno && test "x$with_gloo" != xcheck],
        [AC_MSG_ERROR([--with-gloo was given but $tcomm_gloo_why])])
  tcomm_gloo_summary="no: $tcomm_gloo_why"
])
AC_SUBST([GLOO_CPPFLAGS])
AC_SUBST([GLOO_LIBS])
AM_CONDITIONAL([TCOMM_HAVE_GLOO], [test "x$tcomm_gloo_enabled" = xyes])
AC_MSG_NOTICE([Gloo backend: $tcomm_gloo_summary])
