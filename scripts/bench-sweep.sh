#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The `make bench` sweep: every osu_tcomm_* program on BENCH_NP ranks with
# --baseline -c -f, f32 and bf16 (and f16, and TCOMM_CHECK=0 for
# allreduce), dims 0 and 1 for allgather and reduce_scatter, the four
# (split, concat) pairs and the uneven dim-0 form of alltoall, 4 B to
# 16 MiB (alltoall: per rank and peer, as OSU's osu_alltoall), the main
# f32 ones (and allreduce bf16) again with --vary (<name>_vary); then the
# nonblocking osu_tcomm_i* programs in both compute modes (issue 17).
# Leaves bench/results/<name>.txt, .json, .dat, two PNGs per collective
# (latency; tcomm / MPI and tcomm / bound) and summary.txt, and prints
# the summary with the speed targets of issues 4, 16 and 18.
#
# usage: bench-sweep.sh BINDIR OUTDIR PLOT_GP
# environment: MPIRUN, BENCH_NP (2), BENCH_SIZES (4:16M),
#              BENCH_MAX_TIME (0.15 s per size and side), BENCH_ONLY (a
#              regular expression on the result names), BENCH_NICE (a
#              nice increment for the runs, e.g. -5 as root on a shared
#              machine; default none)
set -eu

bindir=${1:-bench}
outdir=${2:-bench/results}
plotgp=${3:-$(dirname "$0")/../bench/plot.gp}
np=${BENCH_NP:-2}
sizes=${BENCH_SIZES:-4:16M}
maxtime=${BENCH_MAX_TIME:-0.15}
only=${BENCH_ONLY:-.}
mpirun=${MPIRUN:-mpirun}
nice=""
[ -n "${BENCH_NICE:-}" ] && nice="nice -n $BENCH_NICE"

# Open MPI refuses root and more ranks than cores without these flags.
mpiflags=""
if "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
    mpiflags="--oversubscribe"
    [ "$(id -u)" -eq 0 ] && mpiflags="$mpiflags --allow-run-as-root"
fi

mkdir -p "$outdir"
start=$(date +%s)
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
{
    echo "# tcomm bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $np ranks," \
        "$(nproc 2>/dev/null || echo '?') cores, $("$mpirun" --version 2>&1 |
        head -1)"
    echo "# load average before: $(load)"
} > "$outdir/environment.txt"

# run NAME PROGRAM [ENV=VALUE] -- OPTIONS...
run() {
    name=$1 prog=$2
    shift 2
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    echo "$name" | grep -Eq "$only" || return 0
    printf 'bench: %s' "$name" >&2
    t0=$(date +%s)
    # shellcheck disable=SC2086
    env $envs $nice "$mpirun" $mpiflags -np "$np" "$bindir/osu_tcomm_$prog" \
        -m "$sizes" -f -c --baseline -i 5000 --max-time "$maxtime" \
        --json "$outdir/$name.json" "$@" > "$outdir/$name.txt"
    tojdat < "$outdir/$name.json" > "$outdir/$name.dat"
    echo " ($(($(date +%s) - t0)) s)" >&2
}

# One line per result in the JSON:
# bytes med_us mpi_med_us avg_us mpi_avg_us ratio diff_us best_us
# mpi_best_us bound_us mpi_call
tojdat() {
    awk 'function num(key,   s) {
             if (!match($0, "\"" key "\": [-0-9.e+]+")) return "nan"
             s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s
         }
         function str(key,   s) {
             if (!match($0, "\"" key "\": \"[^\"]*\"")) return "-"
             s = substr($0, RSTART, RLENGTH); sub(/.*: "/, "", s)
             sub(/"$/, "", s); return s
         }
         /"bytes":/ { print num("bytes"), num("med_us"), num("mpi_med_us"),
                            num("avg_us"), num("mpi_avg_us"), num("ratio"),
                            num("diff_us"), num("best_us"),
                            num("mpi_best_us"), num("bound_us"),
                            str("mpi_call") }'
}

run allreduce_f32 allreduce -- -T f32
run allreduce_f32_nocheck allreduce TCOMM_CHECK=0 -- -T f32
run allreduce_bf16 allreduce -- -T bf16 --baseline-dtype f32
run allreduce_f16 allreduce -- -T f16 --baseline-dtype f32
for c in allgather reduce_scatter; do
    for t in f32 bf16; do
        for d in 0 1; do
            run "${c}_${t}_dim$d" "$c" -- -T "$t" --dim "$d"
        done
    done
done
run bcast_f32 bcast -- -T f32
run bcast_f32_nocheck bcast TCOMM_CHECK=0 -- -T f32
run bcast_bf16 bcast -- -T bf16
run barrier barrier --
run barrier_nocheck barrier TCOMM_CHECK=0 --
for sc in 00 10 01 11; do
    s=${sc%?} c=${sc#?}
    run "alltoall_f32_s${s}c$c" alltoall -- -T f32 --split-dim "$s" \
        --concat-dim "$c"
done
run alltoall_f32_s0c0_nocheck alltoall TCOMM_CHECK=0 -- -T f32
run alltoall_bf16_s0c0 alltoall -- -T bf16
run alltoall_v_f32_dim0 alltoall -- -T f32 --uneven
# The same with --vary (issue 32): every call of both sides on new input,
# written outside the timed region, the outputs checked; beside the warm
# runs above in the summary's "warm and varying" table.
run allreduce_f32_vary allreduce -- -T f32 --vary
run allreduce_bf16_vary allreduce -- -T bf16 --baseline-dtype f32 --vary
for c in allgather reduce_scatter; do
    for d in 0 1; do
        run "${c}_f32_dim${d}_vary" "$c" -- -T f32 --dim "$d" --vary
    done
done
run bcast_f32_vary bcast -- -T f32 --vary
run alltoall_f32_s0c0_vary alltoall -- -T f32 --split-dim 0 \
    --concat-dim 0 --vary

# The nonblocking programs (issue 17): OSU's nonblocking layout, both
# compute modes, MPI_I* and the blocking call in the same run; sizes
# BENCH_NB_SIZES (4:4M), each size and side capped at BENCH_NB_MAX_TIME s.
nbsizes=${BENCH_NB_SIZES:-4:4M}
nbmaxtime=${BENCH_NB_MAX_TIME:-0.05}
# nbrun NAME PROGRAM COMPUTE
nbrun() {
    echo "$1" | grep -Eq "$only" || return 0
    printf 'bench: %s' "$1" >&2
    t0=$(date +%s)
    # shellcheck disable=SC2086
    $nice "$mpirun" $mpiflags -np "$np" "$bindir/osu_tcomm_$2" \
        -m "$nbsizes" -c --baseline --blocking-ref --compute "$3" \
        -i 2000 --max-time "$nbmaxtime" --json "$outdir/$1.json" \
        > "$outdir/$1.txt"
    nbdat < "$outdir/$1.json" > "$outdir/$1.nbdat"
    echo " ($(($(date +%s) - t0)) s)" >&2
}
# bytes overall compute pure overlap blocking mpi_overall mpi_compute
# mpi_pure mpi_overlap
nbdat() {
    awk 'function num(key,   s) {
             if (!match($0, "\"" key "\": [-0-9.e+]+")) return "nan"
             s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s
         }
         /"bytes":/ { print num("bytes"), num("overall_us"),
                            num("compute_us"), num("pure_us"),
                            num("overlap_pct"), num("blocking_us"),
                            num("mpi_overall_us"), num("mpi_compute_us"),
                            num("mpi_pure_us"), num("mpi_overlap_pct") }'
}
for c in iallreduce iallgather ireduce_scatter ibcast ialltoall; do
    for m in busy sleep; do
        nbrun "${c}_$m" "$c" "$m"
    done
done

# PNGs per collective: latency against size, tcomm and MPI; tcomm / MPI
# and tcomm / bound (<coll>_ratio.png).
if command -v gnuplot > /dev/null 2>&1; then
    for c in allreduce allgather reduce_scatter bcast barrier alltoall; do
        files="" titles=""
        for f in "$outdir/${c}"_*.dat "$outdir/${c}.dat"; do
            [ -f "$f" ] || continue
            t=$(basename "$f" .dat)
            t=${t#"${c}"}
            t=${t#_}
            files="$files $f" titles="$titles ${t:-default}"
        done
        [ -n "$files" ] || continue
        gnuplot -e "coll='$c'; files='$files'; titles='$titles'; \
                    out='$outdir/$c.png'; np=$np" "$plotgp"
        # tcomm / MPI and tcomm / bound (no sizes: not the barrier)
        [ "$c" = barrier ] ||
            gnuplot -e "coll='$c'; files='$files'; titles='$titles'; \
                        out='$outdir/${c}_ratio.png'; np=$np; \
                        mode='ratio'" "$plotgp"
    done
else
    echo "bench: gnuplot not found: no plots (scripts/install-deps)" >&2
fi

# The summary, with the targets of issues 4, 16 and 18.
echo "# load average after: $(load)" >> "$outdir/environment.txt"
{
    cat "$outdir/environment.txt"
    if ls "$outdir"/*.dat > /dev/null 2>&1; then # none with BENCH_ONLY=^i
        sh "$(dirname "$0")/bench-summary.sh" "$outdir"
        sh "$(dirname "$0")/bench-summary-vary.sh" "$outdir"
    fi
    sh "$(dirname "$0")/bench-summary-nb.sh" "$outdir"
    echo "# make bench: $(($(date +%s) - start)) s"
} | tee "$outdir/summary.txt"
echo "bench: results in $outdir"
