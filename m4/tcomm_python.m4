# SPDX-License-Identifier: BSD-3-Clause
# The Python package (bindings/python): an interpreter with numpy and the
# headers to build its C extension against.
#
#   PYTHON=PROG   the interpreter (default: python3 on PATH if it imports
#                 numpy, else Debian's /usr/bin/python3 if that does, else
#                 python3 on PATH)
#
# Defines PYTHON, PYTHON_CPPFLAGS, pythondir (where `make install' puts
# the package: prefix/lib/pythonX.Y/dist-packages where the interpreter
# searches there, as Debian's does under /usr/local, else site-packages);
# AM_CONDITIONAL TCOMM_HAVE_PYTHON, or tcomm_python_summary saying why not.
AC_ARG_VAR([PYTHON], [Python 3 of the tcomm package (default: python3 on PATH, else /usr/bin/python3, whichever imports numpy first)])
AS_IF([test -z "$PYTHON"], [
  for tcomm_py in python3 /usr/bin/python3; do
    AS_IF([$tcomm_py -c 'import numpy' >/dev/null 2>&1],
          [PYTHON=$tcomm_py; break])
  done
  AS_IF([test -z "$PYTHON"], [PYTHON=python3])])
AC_MSG_CHECKING([for the Python package's headers])
PYTHON_CPPFLAGS=""
tcomm_python_summary=""
tcomm_py_inc=`$PYTHON -c 'import sysconfig; print(sysconfig.get_paths()[["include"]])' 2>/dev/null`
AS_IF([test -z "$tcomm_py_inc"],
      [tcomm_python_summary="no: $PYTHON does not run (pass PYTHON=)"],
      [test ! -f "$tcomm_py_inc/Python.h"],
      [tcomm_python_summary="no: no Python.h in $tcomm_py_inc (apt-get install python3-dev)"],
      [PYTHON_CPPFLAGS="-I$tcomm_py_inc"])
AC_MSG_RESULT([${tcomm_python_summary:-$tcomm_py_inc}])
AS_IF([test -n "$tcomm_python_summary"], [AC_MSG_WARN([the Python package is not built: $tcomm_python_summary])])
tcomm_py_ver=`$PYTHON -c 'import sys; print("%d.%d" % sys.version_info[[:2]])' 2>/dev/null`
tcomm_py_prefix=$prefix
AS_IF([test "x$tcomm_py_prefix" = xNONE], [tcomm_py_prefix=$ac_default_prefix])
tcomm_py_site=site-packages
AS_IF([$PYTHON -c "import sys; sys.exit('$tcomm_py_prefix/lib/python$tcomm_py_ver/dist-packages' not in sys.path)" 2>/dev/null],
      [tcomm_py_site=dist-packages])
AC_SUBST([pythondir], ['${prefix}/lib/python'"$tcomm_py_ver/$tcomm_py_site"])
AC_SUBST([PYTHON_CPPFLAGS])
AS_IF([test -z "$tcomm_python_summary"], [tcomm_python_summary="yes ($PYTHON, installs into $tcomm_py_prefix/lib/python$tcomm_py_ver/$tcomm_py_site)"])
AM_CONDITIONAL([TCOMM_HAVE_PYTHON], [test -n "$PYTHON_CPPFLAGS"])
