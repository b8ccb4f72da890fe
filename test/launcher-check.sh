#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A launcher of another MPI (issue 27): mpiexec.mpich for a tcomm built
# with Open MPI, Open MPI's mpirun for one built with MPICH, starts N
# singletons that each run as a one-rank job and exit 0. tcomm must warn
# on stderr once per process, naming the launcher's job size and its
# own MPI, and tcomm_info must say it; under the right launcher, and
# run alone, neither says anything. Skips (77) where the other MPI's
# launcher is not installed.
set -u
b=${TCOMM_BUILDDIR:-.}
info=$b/src/tools/tcomm_info
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

impl=$("$info" --parsable | sed -n 's/^build\.mpi_impl: *//p')
case "$impl" in
    openmpi) other="mpiexec.mpich -n 2" ;;
    mpich) other="mpirun.openmpi --oversubscribe -np 2" ;;
    *) echo "SKIP: no other launcher known for MPI '$impl'"; exit 77 ;;
esac
command -v "${other%% *}" >/dev/null ||
    { echo "SKIP: ${other%% *} is not installed"; exit 77; }

# shellcheck disable=SC2086
timeout 60 $other "$info" >"$$.out" 2>"$$.err"
rc=$?
out=$(cat "$$.out"); err=$(cat "$$.err"); rm -f "$$.out" "$$.err"
echo "$ $other tcomm_info (exit $rc)"; echo "$err"
[ "$rc" -eq 0 ] || fail "tcomm_info under $other exited $rc"
n=$(echo "$err" | grep -c "tcomm WARN: this process was started as one of 2")
[ "$n" -eq 2 ] || fail "$n launcher warnings on stderr, wanted one per process (2)"
echo "$err" | grep "tcomm WARN" | grep -q "sees a world of 1 rank" ||
    fail "the warning does not name MPI's world size"
echo "$out" | grep -q "launcher: *WRONG: this process was started as one of 2" ||
    fail "tcomm_info does not report the launcher"

# The right launcher, and no launcher: no warning.
# shellcheck disable=SC2086
err=$(timeout 60 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 "$info" 2>&1 >/dev/null) ||
    fail "tcomm_info under ${MPIRUN:-mpirun}: $err"
echo "$err" | grep -q "launcher\|started as one of" &&
    fail "a warning under the right launcher: $err"
out=$("$info" 2>&1) || fail "tcomm_info alone failed"
echo "$out" | grep -q "launcher: *matches" || fail "tcomm_info alone: $out"
echo "launcher-check: passed"
