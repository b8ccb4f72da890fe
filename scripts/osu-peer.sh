#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tcomm side by side with the OSU Micro-Benchmarks (issue 18): for each of
# allreduce, reduce_scatter, allgather, bcast, alltoall and alltoallv,
# OSU's osu_<coll> and tcomm's osu_tcomm_<coll> (alltoallv:
# osu_tcomm_alltoall --uneven, the same bytes per peer on average as
# OSU's equal counts) alternate, OSU_ROUNDS rounds each, on the same
# sizes and ranks with the same iteration counts, and the table gives per
# size the best Avg latency (us; both print OSU's Avg: the mean of calls
# that each start after a barrier) of each over the rounds and tcomm /
# OSU. OSU is not part of tcomm: build it anywhere outside this tree
# (./configure CC=mpicc && make, or mpicc its mpi/collective sources) and
# pass the directory that holds its programs.
# OSU's loop reuses one buffer every call (its data stays in the caches
# and a peer's input stays in a rank's cache), and OSU 7.4 has no option
# to vary it: the table's OSU column is warm only. tcomm runs both ways,
# warm ("tcomm us", the same loop as OSU's) and with --vary ("tcomm v
# us": new input before every call, outside the timed region), so that
# "ratio v" sets tcomm's varying time against OSU's warm one: a ratio
# against a peer that keeps its cache advantage (issue 32).
#
# usage: osu-peer.sh OSU_DIR [BINDIR]
# environment: MPIRUN, BENCH_NP (2), OSU_SIZES (1048576:16777216),
#              OSU_ROUNDS (2), OSU_ITERS (100), OSU_WARMUP (10)
set -eu

osu=${1:?usage: osu-peer.sh OSU_DIR [BINDIR]}
bindir=${2:-bench}
np=${BENCH_NP:-2}
sizes=${OSU_SIZES:-1048576:16777216}
rounds=${OSU_ROUNDS:-2}
iters=${OSU_ITERS:-100}
warmup=${OSU_WARMUP:-10}
mpirun=${MPIRUN:-mpirun}
mpiflags=""
if "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
    mpiflags="--oversubscribe"
    [ "$(id -u)" -eq 0 ] && mpiflags="$mpiflags --allow-run-as-root"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-osu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The OSU program, wherever its build put it (the directory itself, the
# 5.x tree or the 7.x tree).
osu_prog() {
    for d in "$osu" "$osu/mpi/collective" "$osu/c/mpi/collective/blocking"; do
        if [ -x "$d/osu_$1" ]; then
            echo "$d/osu_$1"
            return 0
        fi
    done
    echo "osu-peer.sh: no osu_$1 under $osu" >&2
    return 1
}

# rows FILE: "size avg" of an OSU-layout table
rows() {
    awk '!/^#/ && NF >= 2 && $1 ~ /^[0-9]+$/ { print $1, $2 }' "$1"
}

echo "# tcomm / OSU, $np ranks, best Avg of $rounds alternating rounds," \
    "$(uptime | sed 's/.*load/load/')"
printf '%-15s %9s %11s %11s %11s %7s %7s\n' "# collective" size \
    "OSU us" "tcomm us" "tcomm v us" ratio "ratio v"
for c in allreduce reduce_scatter allgather bcast alltoall alltoallv; do
    prog=$(osu_prog "$c")
    tprog=$c extra=""
    [ "$c" = alltoallv ] && tprog=alltoall extra=--uneven
    : > "$tmp/osu" && : > "$tmp/tcomm" && : > "$tmp/vary"
    for r in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        "$mpirun" $mpiflags -np "$np" "$prog" -m "$sizes" -i "$iters" \
            -x "$warmup" > "$tmp/out" 2>&1
        rows "$tmp/out" >> "$tmp/osu"
        # shellcheck disable=SC2086
        "$mpirun" $mpiflags -np "$np" "$bindir/osu_tcomm_$tprog" $extra \
            -m "$sizes" -i "$iters" -x "$warmup" > "$tmp/out" 2>&1
        rows "$tmp/out" >> "$tmp/tcomm"
        # shellcheck disable=SC2086
        "$mpirun" $mpiflags -np "$np" "$bindir/osu_tcomm_$tprog" $extra \
            --vary -m "$sizes" -i "$iters" -x "$warmup" > "$tmp/out" 2>&1
        rows "$tmp/out" >> "$tmp/vary"
    done
    awk -v c="$c" 'FNR == 1 { side++ }
        { if (!(($1, side) in best) || $2 < best[$1, side])
              best[$1, side] = $2
          if (side == 1 && !($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
        END { for (i = 1; i <= n; i++) {
                  s = order[i]; o = best[s, 1]; t = best[s, 2]
                  v = best[s, 3]
                  printf "%-15s %9d %11.2f %11.2f %11.2f %7.3f %7.3f\n", c,
                         s, o, t, v, (o > 0 ? t / o : 0),
                         (o > 0 ? v / o : 0) } }' \
        "$tmp/osu" "$tmp/tcomm" "$tmp/vary"
done
