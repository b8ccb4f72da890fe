#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Warm and varying side by side (issue 32): for every <name>_vary.dat of
# `make bench` (bench-sweep.sh) and its warm <name>.dat, per size from
# BENCH_VARY_FROM bytes (64 KiB): tcomm's and MPI's medians (us) on warm
# buffers (one input, every call) and with --vary (new input before every
# call of both sides), tcomm / MPI of each, and tcomm over the bound (the
# least time any algorithm needs to move the bytes it must at this node's
# streaming rate) with --vary. Warm rows lacking a varying one (or the
# reverse) are left out.
#
# usage: bench-summary-vary.sh OUTDIR
set -eu

outdir=${1:-bench/results}
from=${BENCH_VARY_FROM:-65536}

ls "$outdir"/*_vary.dat > /dev/null 2>&1 || exit 0
printf '%-25s %9s %9s %9s %9s %9s %6s %6s %7s\n' "# warm | varying" size \
    "tcomm" "tcomm v" "MPI" "MPI v" "ratio" "ratio v" "xbound v"
for v in "$outdir"/*_vary.dat; do
    w=${v%_vary.dat}.dat
    [ -f "$w" ] || continue
    name=$(basename "$w" .dat)
    awk -v name="$name" -v from="$from" '
        FNR == 1 { side++ }
        $3 == "nan" || $1 < from { next }
        side == 1 { wt[$1] = $2; wm[$1] = $3 }
        side == 2 && ($1 in wt) {
            x = NF >= 10 && $10 != "nan" && $10 > 0 ? \
                sprintf("%.2f", $2 / $10) : "-"
            printf "%-25s %9d %9.2f %9.2f %9.2f %9.2f %6.3f %6.3f %7s\n",
                   name, $1, wt[$1], $2, wm[$1], $3,
                   (wm[$1] > 0 ? wt[$1] / wm[$1] : 0), ($3 > 0 ? $2 / $3 : 0),
                   x
        }' "$w" "$v"
done
