#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A failure without ierr: test/fortran_nostat makes good calls without
# ierr, then a bad one (dim 3 of a rank-2 array). Every rank must print
# the message and stop with a non-zero status, at 1 and 2 ranks.
set -u
build=${TCOMM_BUILDDIR:?run through make check}
prog="$build/test/fortran_nostat"
[ -x "$prog" ] || { echo "no $prog" >&2; exit 99; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
for np in 1 2; do
    out=$(timeout --kill-after=10 120 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} \
        -np "$np" "$prog" 2>&1)
    rc=$?
    echo "$out"
    want="tcomm: error invalid argument: tcomm_all_gather: dim 3 is out"
    want="$want of range for this sendbuf (use 1..2)"
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "FAIL np=$np: exit status $rc, want an error stop"; status=1
    elif ! echo "$out" | grep -qF "the good calls passed"; then
        echo "FAIL np=$np: the calls before the bad one failed"; status=1
    elif [ "$(echo "$out" | grep -cF "$want")" -ne "$np" ]; then
        echo "FAIL np=$np: want on every rank: $want"; status=1
    elif echo "$out" | grep -q "still running"; then
        echo "FAIL np=$np: the program went on"; status=1
    else
        echo "PASS np=$np: exit status $rc, message on every rank"
    fi
done
exit $status
