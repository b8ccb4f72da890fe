#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtcomm_pmpi on unmodified MPI programs (test/pmpi/): each runs at 1-4
# ranks without the library, with it (its size thresholds), and with it
# taking every call it can (TCOMM_PMPI_MIN_BYTES=0, TCOMM_PMPI_REPORT=1);
# the outputs (a hash of every result, per rank) must be identical, and
# the report must show the calls were taken. The launcher is configure's
# ($MPIRUN $MPIRUN_FLAGS); the library goes to the ranks through `env`,
# the same way under Open MPI and MPICH, never into the launcher itself.
set -u
build=${TCOMM_BUILDDIR:-.}
lib=$build/.libs/libtcomm_pmpi.so
[ -f "$lib" ] || { echo "pmpi-check: no $lib (make first)" >&2; exit 99; }
mpirun=${MPIRUN:-mpirun}
flags=${MPIRUN_FLAGS---oversubscribe}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# As test/mpirun-test.sh: MPICH's busy polling wants no more ranks than
# cores.
max=${TCOMM_TEST_MAX_NP:-4}
if [ -z "${TCOMM_TEST_MAX_NP:-}" ] &&
    "$mpirun" --version 2>&1 | grep -q HYDRA; then
    max=$(nproc 2>/dev/null || echo 1)
fi
# What the environment preloads already stays first (the sanitizer build's
# dlclose shim: scripts/check-sanitize.sh).
preload=${LD_PRELOAD:+$LD_PRELOAD:}$lib
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmpi-check.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# run NP PROG TAG [VAR=VALUE...]: the sorted lines of every rank in
# $tmp/TAG, its stderr in $tmp/TAG.err
run() {
    r_np=$1 r_prog=$2 tag=$3
    shift 3
    rm -f "$tmp/$tag".*
    # shellcheck disable=SC2086
    if ! timeout --kill-after=10 "${TCOMM_TEST_TIMEOUT:-300}" \
        "$mpirun" $flags -np "$r_np" env "$@" "$r_prog" "$tmp/$tag.out" \
        >"$tmp/$tag.log" 2>"$tmp/$tag.err"; then
        echo "FAIL: $r_prog at $r_np ranks ($*) did not end well:"
        cat "$tmp/$tag.log" "$tmp/$tag.err"
        fail=1
    fi
    cat "$tmp/$tag".out.* 2>/dev/null | sort >"$tmp/$tag"
}

# check_counts FILE N: every function of the report in FILE has handled +
# passed = N.
check_counts() {
    c_lines=$(grep -c '^tcomm_pmpi: MPI_[A-Za-z_]* [0-9]* handled' "$1")
    [ "$c_lines" -ge 15 ] || { cat "$1"; return 1; }
    awk -v n="$2" '/^tcomm_pmpi: MPI_[A-Za-z_]* [0-9]+ handled/ {
        if ($3 + $5 != n) { print "  " $0; bad = 1 } }
        END { exit bad }' "$1"
}

# The Fortran programs where configure found Fortran (and mpi_f08).
# icolls runs under MPI_THREAD_MULTIPLE (its calls taken) and, as
# icolls@single, under MPI_THREAD_SINGLE (every call passed to MPI).
progs="test/pmpi/colls test/pmpi/nocoll test/pmpi/icolls test/pmpi/icolls@single
    test/pmpi/calls test/pmpi/threads"
for f in test/pmpi/fmpifh test/pmpi/fusempi test/pmpi/ff08; do
    if [ -x "$build/$f" ]; then progs="$progs $f"; else echo "SKIP: no $f"; fi
done
for entry in $progs; do
    prog=${entry%@*} level=multiple
    [ "$entry" = "$prog" ] || level=${entry#*@}
    [ -x "$build/$prog" ] || { echo "pmpi-check: no $build/$prog" >&2; exit 99; }
    for np in 1 2 3 4; do
        [ "$np" -le "$max" ] || { echo "SKIP: $entry at $np ranks (> $max)"; continue; }
        run "$np" "$build/$prog" plain TCOMM_PMPI_REPORT=0 \
            PMPI_TEST_LEVEL="$level"
        run "$np" "$build/$prog" pre LD_PRELOAD="$preload" TCOMM_PMPI_REPORT=1 \
            PMPI_TEST_LEVEL="$level"
        run "$np" "$build/$prog" all LD_PRELOAD="$preload" \
            TCOMM_PMPI_MIN_BYTES=0 TCOMM_PMPI_REPORT=1 PMPI_TEST_LEVEL="$level"
        [ -s "$tmp/plain" ] || { echo "FAIL: $prog at $np ranks printed nothing"; fail=1; }
        for tag in pre all; do
            if ! cmp -s "$tmp/plain" "$tmp/$tag"; then
                echo "FAIL: $prog at $np ranks: results differ ($tag):"
                diff "$tmp/plain" "$tmp/$tag" | head -20
                fail=1
            fi
        done
        # the report: one line per function, and the taken ones taken
        grep '^tcomm_pmpi: ' "$tmp/all.err"
        case $entry in */colls|*/f*)
            for fn in MPI_Allreduce MPI_Reduce_scatter_block \
                MPI_Reduce_scatter MPI_Allgather MPI_Allgatherv MPI_Bcast \
                MPI_Alltoall MPI_Alltoallv MPI_Barrier; do
                # Fortran passes MINLOC's allreduce and little else (a
                # barrier has nothing to pass: always taken)
                want="[1-9][0-9]* handled, [1-9]"
                case $prog:$fn in
                *:MPI_Barrier) want="[1-9][0-9]* handled, 0 passed" ;;
                */f*:MPI_Allreduce) ;;
                */f*:*) want="[1-9][0-9]* handled" ;;
                esac
                grep -q "^tcomm_pmpi: $fn $want" "$tmp/all.err" || {
                    echo "FAIL: $prog at $np ranks: the report's $fn is" \
                        "not \"$want\""
                    fail=1
                }
            done ;;
        esac
        # the Fortran programs' MPI_Alloc_mem blocks are the arena's
        case $entry in */f*)
            grep -q "^tcomm_pmpi: MPI_Alloc_mem $((2 * np)) handled, 0 passed" \
                "$tmp/pre.err" || { echo "FAIL: $prog at $np ranks: its" \
                    "MPI_Alloc_mem blocks are not the arena's"; fail=1; } ;;
        esac
        # calls: exactly 3 calls per rank of every function, whether
        # taken or passed (tcomm's own MPI calls are not the program's),
        # at the gates and with every call taken
        case $entry in */calls)
            for tag in pre all; do
                check_counts "$tmp/$tag.err" $((3 * np)) ||
                    { echo "FAIL: calls at $np ranks ($tag): the report" \
                        "does not count 3 calls per rank"; fail=1; }
            done
            grep -q "^tcomm_pmpi: MPI_Alloc_mem $((2 * np)) handled, $np passed" \
                "$tmp/pre.err" || { echo "FAIL: calls at $np ranks: MPI_Alloc_mem's" \
                    "two large blocks are not the arena's"; fail=1; } ;;
        esac
        # nonblocking: every call taken under MULTIPLE, none under SINGLE
        for fn in MPI_Iallreduce MPI_Iallgather MPI_Ireduce_scatter_block \
            MPI_Ibcast MPI_Ialltoall; do
            case $entry in
            */icolls) want="[1-9][0-9]* handled, 0 passed" ;;
            */icolls@single) want="0 handled, [1-9][0-9]* passed" ;;
            *) continue ;;
            esac
            grep -q "^tcomm_pmpi: $fn $want" "$tmp/all.err" || {
                echo "FAIL: $entry at $np ranks: the report's $fn is not" \
                    "\"$want\""
                fail=1
            }
        done
        echo "$entry at $np ranks: $(wc -l <"$tmp/plain") results the same"
    done
done
exit $fail
