#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtcomm_pmpi under a peer's validating suite: the OSU Micro-Benchmarks'
# collective programs (7.x: `-c` checks every result) run with the library
# preloaded, taking every call it can (TCOMM_PMPI_MIN_BYTES=0), at
# PMPI_VALIDATE_NP ranks (2). Every size must print Pass, and the report
# must show the calls handled. OSU is not part of tcomm and nothing is
# fetched here: build OSU 7.x anywhere outside this tree and set OSU_DIR to
# the directory that holds its programs (or its build tree). Without it
# the script skips (exit 77).
#
# usage: pmpi-validate.sh [LIB]   (LIB: libtcomm_pmpi.so; default the
#        build tree's .libs/libtcomm_pmpi.so)
# environment: OSU_DIR, MPIRUN, MPIRUN_FLAGS, PMPI_VALIDATE_NP,
#              PMPI_VALIDATE_SIZES (4:4194304)
set -u
osu=${OSU_DIR:-}
lib=${1:-${TCOMM_BUILDDIR:-.}/.libs/libtcomm_pmpi.so}
np=${PMPI_VALIDATE_NP:-2}
sizes=${PMPI_VALIDATE_SIZES:-4:4194304}
mpirun=${MPIRUN:-mpirun}
flags=${MPIRUN_FLAGS---oversubscribe}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# OSU's program, wherever its build put it (the directory itself or the
# 7.x tree).
osu_prog() {
    for d in "$osu" "$osu/c/mpi/collective/blocking" \
        "$osu/c/mpi/collective/non_blocking"; do
        [ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
    done
    return 1
}
if [ -z "$osu" ] || ! osu_prog osu_allreduce >/dev/null; then
    echo "SKIP: OSU not present (set OSU_DIR)"
    exit 77
fi
if ! "$(osu_prog osu_allreduce)" -h 2>&1 | grep -q -- '--validation'; then
    echo "SKIP: OSU at $osu has no -c (validation needs OSU 7.x)"
    exit 77
fi
[ -f "$lib" ] || { echo "pmpi-validate: no $lib" >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmpi-validate.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# check PROG FN [OSU options]: every size passes, FN is handled
check() {
    c_prog=$1 c_fn=$2
    shift 2
    path=$(osu_prog "$c_prog") || { echo "SKIP: no $c_prog in $osu"; return; }
    # shellcheck disable=SC2086
    timeout --kill-after=10 "${TCOMM_TEST_TIMEOUT:-300}" \
        "$mpirun" $flags -np "$np" env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$lib" \
        TCOMM_PMPI_MIN_BYTES=0 TCOMM_PMPI_REPORT=1 \
        "$path" -c -m "$sizes" -i 20 -x 5 "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    passes=$(grep -c ' Pass$' "$tmp/out")
    if [ $rc -ne 0 ] || grep -q ' Fail$' "$tmp/out" || [ "$passes" -eq 0 ]; then
        echo "FAIL: $c_prog $* at $np ranks (exit $rc):"
        cat "$tmp/out" "$tmp/err" | tail -20
        fail=1
        return
    fi
    line=$(grep "^tcomm_pmpi: $c_fn " "$tmp/err")
    case $line in
    *" 0 handled"*) echo "FAIL: $c_prog $*: nothing handled: $line"; fail=1 ;;
    *) echo "$c_prog $*: $passes sizes Pass; ${line#tcomm_pmpi: }" ;;
    esac
}

# The reductions over types tcomm reduces (OSU's MPI_CHAR sums overflow
# its own check under MPI alone).
for t in mpi_int mpi_float; do
    check osu_allreduce MPI_Allreduce -T $t
    check osu_reduce_scatter MPI_Reduce_scatter -T $t
    check osu_reduce_scatter_block MPI_Reduce_scatter_block -T $t
done
check osu_allgather MPI_Allgather
check osu_allgatherv MPI_Allgatherv
check osu_bcast MPI_Bcast
check osu_alltoall MPI_Alltoall
check osu_alltoallv MPI_Alltoallv
exit $fail
