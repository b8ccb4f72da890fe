#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check's driver of the Python package's tests (bindings/python/tests)
# against the build tree's package (bindings/python/stage).
#
#   python-check.sh        the tests over Communicator.local(n), n = 1..4,
#                          in one process (the local backend: threads)
#   python-check.sh mpi    the tests over MPI_COMM_WORLD; run by mpirun as
#                          bindings/python/python_tests-npN.mpitest
#
# Skips (77) where the extension was not built (no Python headers) or the
# interpreter lacks numpy or pytest; pytest's "no tests ran" (5) fails.
set -u
build=${TCOMM_BUILDDIR:-$(pwd)}
here=$(cd "$(dirname "$0")" && pwd)
py=${TCOMM_PYTHON:-python3}
stage=$build/bindings/python/stage
# Under the sanitizers (scripts/check-sanitize.sh sets TCOMM_SKIP_PYTHON=1)
# the extension's ASan runtime would be loaded by an uninstrumented
# interpreter, which ASan does not support: the package runs in the plain
# make check.
if [ "${TCOMM_SKIP_PYTHON:-0}" = 1 ]; then
    echo "bindings/python: SKIP: TCOMM_SKIP_PYTHON=1 (the sanitizer build)"
    exit 77
fi
if [ ! -f "$stage/tcomm/_tcomm.so" ]; then
    echo "bindings/python: SKIP: the extension was not built (configure's \"Python package\" line says why)"
    exit 77
fi
if ! "$py" -c 'import numpy, pytest' 2>/dev/null; then
    echo "bindings/python: SKIP: $py lacks numpy or pytest (apt-get install python3-numpy python3-pytest, or configure PYTHON=)"
    exit 77
fi
TCOMM_PY_MODE=${1:-local}
PYTHONPATH=$stage
# No bytecode or pytest cache in a (maybe read-only) source tree.
PYTHONDONTWRITEBYTECODE=1
export TCOMM_PY_MODE PYTHONPATH PYTHONDONTWRITEBYTECODE
"$py" -m pytest -q -p no:cacheprovider --color=no -rs "$here/tests"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "bindings/python: pytest ran no tests" >&2
    exit 1
fi
exit "$rc"
