# SPDX-License-Identifier: BSD-3-Clause
# Sourced by test/bench_*.sh: where the osu_tcomm_* programs are and how
# to start them on N ranks. TCOMM_BUILDDIR comes from `make check`.
bindir="${TCOMM_BUILDDIR:-$(pwd)}/bench"
mpirun="${MPIRUN:-mpirun}"
# Root may run mpirun here (containers and CI run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# MPIRUN_FLAGS comes from `make check` (configure's choice); run by hand,
# Open MPI needs --oversubscribe for more ranks than cores.
if [ "${MPIRUN_FLAGS+set}" = set ]; then
    mpiflags=$MPIRUN_FLAGS
elif "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
    mpiflags="--oversubscribe"
else
    mpiflags=""
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

for p in allreduce allgather reduce_scatter bcast barrier; do
    if [ ! -x "$bindir/osu_tcomm_$p" ]; then
        echo "bench test: $bindir/osu_tcomm_$p is not built" >&2
        exit 99
    fi
done

# on_ranks N PROGRAM ARGS...: run on N ranks (1: as a singleton).
on_ranks() {
    n=$1
    prog=$2
    shift 2
    if [ "$n" -eq 1 ]; then
        timeout 60 "$bindir/osu_tcomm_$prog" "$@"
    else
        # shellcheck disable=SC2086
        timeout 60 "$mpirun" $mpiflags -np "$n" \
            "$bindir/osu_tcomm_$prog" "$@"
    fi
}

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# verdict STATUS WHAT DETAIL: a run that exited STATUS and whose JSON
# check wrote its complaints to $tmp/why: FAIL with them and the run's
# $tmp/out and $tmp/err, or ok with DETAIL.
verdict() {
    if [ "$1" -ne 0 ] || [ -s "$tmp/why" ]; then
        fail "$2: status $1"
        cat "$tmp/why" "$tmp/out" "$tmp/err"
    else
        echo "ok: $2: $3"
    fi
}

# summary_has WANT RESULT ROW...: the summary (scripts/bench-summary.sh)
# of one crafted .dat row (bytes med mpi_med avg mpi_avg ratio diff best
# mpi_best [bound_us mpi_call]) has a line matching WANT, an extended
# regular expression.
summary="$(dirname "$0")/../scripts/bench-summary.sh"
summary_has() {
    want=$1 name=$2
    shift 2
    rm -rf "$tmp/sum"
    mkdir -p "$tmp/sum"
    echo "$*" > "$tmp/sum/$name.dat"
    sh "$summary" "$tmp/sum" > "$tmp/sum.txt" 2>&1
    if grep -Eq "$want" "$tmp/sum.txt"; then
        echo "ok: summary of $name $1: $(grep -E "$want" "$tmp/sum.txt" |
            head -1)"
    else
        fail "summary of $name $*: no line matching '$want'"
        cat "$tmp/sum.txt"
    fi
}
