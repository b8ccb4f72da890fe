#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtcomm_pmpi's speed on unmodified MPI programs: each collective's
# latency per size with the library preloaded against the same program
# without it, in alternating rounds (plain, preloaded, plain, ...), the
# best of the rounds each side, printed as a table of ratios (preloaded /
# plain: below 1 the library is faster). The programs are the OSU
# Micro-Benchmarks' (7.x) where OSU_DIR names their build, else this
# build's harness programs (bench/osu_tcomm_*) whose --baseline column
# times the MPI call (preloaded, that call is the library's). `make
# bench` runs it; nothing is fetched.
#
# usage: pmpi-bench.sh [LIB]   (default: the build tree's
#        .libs/libtcomm_pmpi.so)
# environment: OSU_DIR, PMPI_BENCH_NP (2), PMPI_BENCH_ROUNDS (3),
#   PMPI_BENCH_SIZES (4:16777216), PMPI_BENCH_COLLS (allreduce
#   reduce_scatter bcast allgather alltoall alltoallv barrier),
#   PMPI_BENCH_ITERS (OSU's -i; its default if unset), MPIRUN,
#   MPIRUN_FLAGS
set -u
build=${TCOMM_BUILDDIR:-.}
lib=${1:-$build/.libs/libtcomm_pmpi.so}
np=${PMPI_BENCH_NP:-2}
rounds=${PMPI_BENCH_ROUNDS:-3}
sizes=${PMPI_BENCH_SIZES:-4:16777216}
colls=${PMPI_BENCH_COLLS:-allreduce reduce_scatter bcast allgather alltoall alltoallv barrier}
mpirun=${MPIRUN:-mpirun}
flags=${MPIRUN_FLAGS---oversubscribe}
osu=${OSU_DIR:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$lib" ] || { echo "pmpi-bench: no $lib (make first)" >&2; exit 1; }
case $lib in /*) ;; *) lib=$(pwd)/$lib ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmpi-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# the program of collective $1 and how to read it: "osu" or "harness"
prog_of() {
    if [ -n "$osu" ]; then
        for d in "$osu" "$osu/c/mpi/collective/blocking"; do
            [ -x "$d/osu_$1" ] && { echo "osu $d/osu_$1"; return 0; }
        done
        return 1
    fi
    [ -x "$build/bench/osu_tcomm_$1" ] &&
        echo "harness $build/bench/osu_tcomm_$1"
}

# run KIND PROG PRELOAD OUT: "size us" lines (barrier: size 0)
run() {
    r_args="-m $sizes"
    [ "${2##*/}" = osu_barrier ] || [ "${2##*/}" = osu_tcomm_barrier ] &&
        r_args=""
    [ -n "${PMPI_BENCH_ITERS:-}" ] && r_args="$r_args -i $PMPI_BENCH_ITERS"
    [ "$1" = harness ] && r_args="$r_args --baseline"
    # OSU 7 reduces MPI_CHAR by default, which tcomm has no sum for
    case $1:${2##*/} in osu:osu_allreduce|osu:osu_reduce_scatter*)
        r_args="$r_args -T mpi_float" ;;
    esac
    # shellcheck disable=SC2086
    if ! timeout 900 "$mpirun" $flags -np "$np" env $3 "$2" $r_args \
        >"$tmp/raw" 2>"$tmp/err"; then
        echo "pmpi-bench: $2 failed:" >&2
        cat "$tmp/err" >&2
        return 1
    fi
    # OSU: size and latency; the harness: size and the MPI call's median
    # (the column before the ratio); barrier lines have no size
    r_bar=0
    case ${2##*/} in *barrier) r_bar=1 ;; esac
    awk -v kind="$1" -v bar="$r_bar" '/^#/ || NF < 1 { next }
        bar && kind == "osu" { print 0, $NF; next }
        bar { print 0, $(NF - 1); next }
        kind == "osu" { print $1, $2; next }
        { print $1, $(NF - 1) }' "$tmp/raw" >"$4"
}

echo "# libtcomm_pmpi: preloaded / plain latency, $np ranks, best of" \
    "$rounds alternating rounds ($(uptime | sed 's/.*load/load/'))"
printf '%-16s %10s %12s %12s %8s\n' collective size plain_us preloaded_us ratio
status=0
for c in $colls; do
    found=$(prog_of "$c") || { echo "# $c: no program (skipped)"; continue; }
    kind=${found%% *} prog=${found#* }
    : >"$tmp/plain.all"
    : >"$tmp/pre.all"
    for _ in $(seq "$rounds"); do
        run "$kind" "$prog" "TCOMM_PMPI=0" "$tmp/one" &&
            cat "$tmp/one" >>"$tmp/plain.all" || status=1
        run "$kind" "$prog" "LD_PRELOAD=$lib" "$tmp/one" &&
            cat "$tmp/one" >>"$tmp/pre.all" || status=1
    done
    # the best of the rounds, per size and side
    awk -v c="$c" 'FNR == 1 { side++ }
        { k = $1
          if (!((side, k) in best) || $2 < best[side, k]) best[side, k] = $2
          if (side == 1 && !(k in order)) { order[k] = ++n; idx[n] = k } }
        END { for (i = 1; i <= n; i++) { k = idx[i]
                if (!((2, k) in best)) continue
                p = best[1, k]; q = best[2, k]
                printf "%-16s %10s %12.2f %12.2f %8.3f\n", c, k, p, q,
                       (p > 0 ? q / p : 0) } }' \
        "$tmp/plain.all" "$tmp/pre.all"
done
exit $status
