#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The automake log compiler of *.mpitest: test/NAME-npN.mpitest runs the
# program test/NAME on N ranks under mpirun, bounded by a timeout so that
# a hang fails the test instead of the whole run. Extra mpirun options
# come from TCOMM_MPIRUN_FLAGS.
set -u
name=$(basename "$1" .mpitest)
dir=$(dirname "$1")
prog="$dir/${name%-np*}"
np="${name##*-np}"
case "$np" in
    ''|*[!0-9]*) echo "mpirun-test: cannot read N from $1" >&2; exit 99 ;;
esac
[ -x "$prog" ] || { echo "mpirun-test: no program $prog" >&2; exit 99; }

# Root may run mpirun here (containers and CI run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Check's fork mode does not mix with MPI.
export CK_FORK=no
exec timeout --kill-after=10 "${TCOMM_TEST_TIMEOUT:-300}" \
    mpirun --oversubscribe -np "$np" ${TCOMM_MPIRUN_FLAGS:-} "$prog"
