#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The automake log compiler of *.mpitest: test/NAME-npN.mpitest runs the
# program test/NAME on N ranks under mpirun, bounded by a timeout so that
# a hang fails the test instead of the whole run.
#
# The launcher is $MPIRUN with $MPIRUN_FLAGS, both from configure (the
# launcher of CC's MPI: Open MPI's mpirun with --oversubscribe, or MPICH's
# mpiexec without flags). Run by hand, without them, it asks `mpirun
# --version` which it is. Extra options come from TCOMM_MPIRUN_FLAGS.
set -u
name=$(basename "$1" .mpitest)
dir=$(dirname "$1")
prog="$dir/${name%-np*}"
np="${name##*-np}"
case "$np" in
    ''|*[!0-9]*) echo "mpirun-test: cannot read N from $1" >&2; exit 99 ;;
esac
[ -x "$prog" ] || { echo "mpirun-test: no program $prog" >&2; exit 99; }

mpirun=${MPIRUN:-mpirun}
if [ "${MPIRUN_FLAGS+set}" != set ]; then
    MPIRUN_FLAGS=
    if "$mpirun" --version 2>&1 | grep -q -e "Open MPI" -e OpenRTE; then
        MPIRUN_FLAGS=--oversubscribe
    fi
fi

# MPICH's progress engine busy-polls and never yields: with more ranks
# than cores every message waits for a time slice (milliseconds, where
# Open MPI with --oversubscribe takes microseconds), and a suite takes
# many minutes. Under MPICH such a test skips (77) unless
# TCOMM_TEST_MAX_NP allows it; TCOMM_TEST_MAX_NP=N also caps Open MPI.
max=${TCOMM_TEST_MAX_NP:-}
if [ -z "$max" ] && "$mpirun" --version 2>&1 | grep -q HYDRA; then
    max=$(nproc 2>/dev/null || echo 1)
fi
if [ -n "$max" ] && [ "$np" -gt "$max" ]; then
    echo "mpirun-test: SKIP: $np ranks > TCOMM_TEST_MAX_NP or cores ($max)"
    exit 77
fi

# Root may run mpirun here (containers and CI run as root; Open MPI asks
# for these, MPICH does not care).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Check's fork mode does not mix with MPI.
export CK_FORK=no
# shellcheck disable=SC2086
exec timeout --kill-after=10 "${TCOMM_TEST_TIMEOUT:-300}" \
    "$mpirun" $MPIRUN_FLAGS -np "$np" ${TCOMM_MPIRUN_FLAGS:-} "$prog"
