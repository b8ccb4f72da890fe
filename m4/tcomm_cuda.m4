# SPDX-License-Identifier: BSD-3-Clause
# CUDA detection for the device transport (cuda/).
#
#   --with-cuda[=DIR]  require CUDA (DIR: the toolkit, default /usr/local/cuda)
#   --without-cuda     build without CUDA (CUDA graphs: TCOMM_ERR_UNSUPPORTED)
#   (no option)        CUDA if DIR/bin/nvcc is found at /usr/local/cuda
#
# An explicit --with-cuda that cannot be honoured stops configure.
# Defines: CUDA_DIR, NVCC, NVCC_GENCODE, NVCCFLAGS, CUDA_CPPFLAGS,
# CUDA_LIBS; AM_CONDITIONAL TCOMM_HAVE_CUDA; TCOMM_HAVE_CUDA in config.h.

AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [build the CUDA transport with the toolkit in DIR (default: if nvcc is found in /usr/local/cuda)])],
  [], [with_cuda=check])
AC_ARG_VAR([NVCC_GENCODE],
  [nvcc -gencode flags (default: sm_80 and sm_90 code plus compute_90 PTX)])
AC_ARG_VAR([NVCCFLAGS], [extra flags for nvcc])

tcomm_cuda_enabled=no
tcomm_cuda_why=""
AS_CASE([$with_cuda],
  [no], [tcomm_cuda_why="disabled (--without-cuda)"],
  [yes|check], [CUDA_DIR=/usr/local/cuda],
  [CUDA_DIR=$with_cuda])

AS_IF([test "x$with_cuda" != xno], [
  AC_MSG_CHECKING([for nvcc in $CUDA_DIR])
  AS_IF([test -x "$CUDA_DIR/bin/nvcc"],
        [NVCC="$CUDA_DIR/bin/nvcc"; AC_MSG_RESULT([$NVCC])],
        [AC_MSG_RESULT([no]); tcomm_cuda_why="no $CUDA_DIR/bin/nvcc"])
])

AS_IF([test -n "$NVCC" && test -z "$tcomm_cuda_why"], [
  tcomm_cuda_libdir=""
  for d in "$CUDA_DIR/lib64" "$CUDA_DIR/lib" "$CUDA_DIR/targets/x86_64-linux/lib"; do
    AS_IF([test -z "$tcomm_cuda_libdir" && test -f "$d/libcudart.so"],
          [tcomm_cuda_libdir="$d"])
  done
  AS_IF([test -z "$tcomm_cuda_libdir"],
        [tcomm_cuda_why="no libcudart.so under $CUDA_DIR"])
])

AS_IF([test -n "$NVCC" && test -z "$tcomm_cuda_why"], [
  CUDA_CPPFLAGS="-I$CUDA_DIR/include"
  CUDA_LIBS="-L$tcomm_cuda_libdir -R$tcomm_cuda_libdir -lcudart -lstdc++"
  tcomm_save_CPPFLAGS=$CPPFLAGS
  tcomm_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
  LIBS="-L$tcomm_cuda_libdir -Wl,-rpath,$tcomm_cuda_libdir -lcudart $LIBS"
  AC_MSG_CHECKING([whether $CC links against libcudart])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>]],
                   [[int n; return cudaGetDeviceCount(&n) == 12345;]])],
                 [AC_MSG_RESULT([yes])],
                 [AC_MSG_RESULT([no])
                  tcomm_cuda_why="$CC cannot link libcudart from $tcomm_cuda_libdir"])
  CPPFLAGS=$tcomm_save_CPPFLAGS
  LIBS=$tcomm_save_LIBS
])

AS_IF([test -z "$NVCC_GENCODE"],
      [NVCC_GENCODE="-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[[sm_90,compute_90]]"])

AS_IF([test -n "$NVCC" && test -z "$tcomm_cuda_why"], [
  AC_MSG_CHECKING([whether $NVCC compiles a kernel for $NVCC_GENCODE])
  cat > conftest.cu <<_TCOMM_EOF
__global__ void k(float *x) { x[[threadIdx.x]] += 1.0f; }
int main(void) { k<<<1, 1>>>(0); return 0; }
_TCOMM_EOF
  AS_IF([$NVCC $NVCC_GENCODE -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         tcomm_cuda_why="$NVCC cannot compile for $NVCC_GENCODE (see config.log)"])
  rm -f conftest.cu conftest.$OBJEXT
])

AS_IF([test "x$with_cuda" != xno && test -z "$tcomm_cuda_why"],
      [tcomm_cuda_enabled=yes])
AS_IF([test "x$tcomm_cuda_enabled" = xno && test "x$with_cuda" != xno &&
       test "x$with_cuda" != xcheck],
      [AC_MSG_ERROR([--with-cuda=$with_cuda cannot be honoured: $tcomm_cuda_why (pass the CUDA toolkit directory, or --without-cuda)])])

AS_IF([test "x$tcomm_cuda_enabled" = xyes], [
  AC_DEFINE([TCOMM_HAVE_CUDA], [1], [Define to 1 to build the CUDA transport.])
  tcomm_cuda_summary="yes ($CUDA_DIR; $NVCC_GENCODE)"
], [
  CUDA_DIR=""; NVCC=""; CUDA_CPPFLAGS=""; CUDA_LIBS=""
  AS_IF([test -z "$tcomm_cuda_why"], [tcomm_cuda_why="not found"])
  tcomm_cuda_summary="no ($tcomm_cuda_why)"
])
AC_SUBST([CUDA_DIR])
AC_SUBST([NVCC])
AC_SUBST([NVCC_GENCODE])
AC_SUBST([NVCCFLAGS])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LIBS])
AM_CONDITIONAL([TCOMM_HAVE_CUDA], [test "x$tcomm_cuda_enabled" = xyes])
