#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make bench-multinode` (issue 31): the harness across "hosts" of the
# namespace bed (test/netns/bed.sh), with and without a rate limit on the
# links, against the fastest MPI formulation in the same run (--baseline).
# For each link setting and collective it writes the harness's text and
# JSON (with the bed's layout and rate in a "bed" header) under OUTDIR and
# prints one table: per size, tcomm's and MPI's mean and their ratio.
#
# usage: bench-multinode.sh BINDIR OUTDIR
# environment: MULTINODE_LAYOUT (ranks per host, "2,2"),
#   MULTINODE_RATES ("1gbit none"), MULTINODE_SIZES (4:16M),
#   MULTINODE_COLLS (allreduce reduce_scatter allgather bcast reduce
#   alltoall),
#   MULTINODE_MAX_TIME (seconds per size and side, 1), MPIRUN
set -u
bindir=$(cd "${1:?usage: bench-multinode.sh BINDIR OUTDIR}" && pwd)
outdir=${2:?usage: bench-multinode.sh BINDIR OUTDIR}
layout=${MULTINODE_LAYOUT:-2,2}
rates=${MULTINODE_RATES:-1gbit none}
sizes=${MULTINODE_SIZES:-4:16M}
colls=${MULTINODE_COLLS:-allreduce reduce_scatter allgather bcast reduce alltoall}
max_time=${MULTINODE_MAX_TIME:-1}
BED_DIR=$(cd "$(dirname "$0")/../test/netns" && pwd)
. "$BED_DIR/bed.sh"
trap bed_down EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

# json_with_bed IN OUT: the harness's JSON with the bed's header first.
json_with_bed() {
    sed "1s/^{/{\"bed\": {\"hosts\": $BED_HOSTS, \"ranks_per_host\": \"$layout\", \"ranks\": $BED_NP, \"link_rate\": \"$BED_RATE\", \"transport\": \"Open MPI btl tcp over veth and a bridge\"}, /" \
        "$1" >"$2"
}

# table JSON: size, tcomm Avg, MPI Avg, ratio, the MPI call.
table() {
    tr -d '{}"' <"$1" | awk -F', *' '/bytes:/ {
        for (i = 1; i <= NF; i++) {
            split($i, kv, ": "); sub(/^ +/, "", kv[1]); v[kv[1]] = kv[2]
        }
        printf "%10s %14s %14s %7.3f  %s\n", v["bytes"], v["avg_us"],
               v["mpi_avg_us"], v["avg_us"] / v["mpi_avg_us"], v["mpi_call"]
    }'
}

fails=0
for rate in $rates; do
    [ "$rate" = none ] && r="" || r=$rate
    bed_up "$layout" "$r"
    rc=$?
    [ $rc -eq 77 ] && { echo "bench-multinode: no bed on this machine"; exit 77; }
    [ $rc -eq 0 ] || exit 1
    echo "== $BED_HOSTS hosts, ranks per host $layout, links: $BED_RATE =="
    for c in $colls; do
        base=$outdir/$c-$BED_RATE
        # shellcheck disable=SC2086
        if bed_mpirun 1800 -np "$BED_NP" --map-by slot "$bindir/osu_tcomm_$c" --baseline \
            -m "$sizes" -x 2 --max-time "$max_time" --json "$base.raw.json" \
            >"$base.txt" 2>&1; then
            json_with_bed "$base.raw.json" "$base.json"
            rm -f "$base.raw.json"
            echo "-- $c ($base.json)"
            printf '%10s %14s %14s %7s  %s\n' bytes "tcomm avg us" "MPI avg us" \
                ratio "MPI call"
            table "$base.json"
        else
            echo "-- $c: FAILED (see $base.txt)"
            tail -5 "$base.txt"
            fails=$((fails + 1))
        fi
    done
    bed_down
done
exit $(( fails ? 1 : 0 ))
