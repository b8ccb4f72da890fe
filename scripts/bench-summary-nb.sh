#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The nonblocking part of the `make bench` summary, from
# bench/results/i*_{busy,sleep}.nbdat (bench-sweep.sh): per size, tcomm's
# Overall, Pure Comm. and Overlap beside MPI's and the blocking call's,
# and the speed targets of issue 17 that measure what tcomm controls
# (issue 32; doc/performance.md, "Nonblocking collectives"):
#   --compute sleep: Overlap >= 80% from 1 MiB (the progress thread runs
#                    the call while the core is free);
#                    Pure Comm. <= 1.05 x the blocking call from 64 KiB,
#                    <= blocking + 1 us below (the cost of the handoff);
#   --compute busy:  Overall <= 1.05 x MPI's from 64 KiB, <= MPI's + 2 us
#                    below (the collective's own cost while the compute
#                    holds a core: the handoff's +1 us counts twice, once
#                    in the call and once in the compute as long).
# Not judged: Overlap with busy compute (with as many ranks as cores no
# free core is left to overlap on, for tcomm and MPI alike: the figure is
# which thread the scheduler ran), and the pure loop of the busy runs (the
# same loop as the sleep runs', judged there once).
# Rows at the sizes of BENCH_SHOW and every missed target are printed.
#
# usage: bench-summary-nb.sh OUTDIR
set -eu

outdir=${1:-bench/results}
show=${BENCH_SHOW:-"4 64 1024 65536 1048576 4194304"}
ls "$outdir"/i*.nbdat > /dev/null 2>&1 || exit 0

awk -v show="$show" '
function check(ok, what) {
    checks++
    if (ok) return what
    misses++
    return "MISS:" what
}
BEGIN {
    n = split(show, s, " ")
    for (i = 1; i <= n; i++) wanted[s[i]] = 1
    printf "%-23s %8s %9s %9s %7s %7s %8s %9s  %s\n", "# nonblocking",
           "size", "overall", "MPI ovr", "ovl%", "MPI %", "pure",
           "blocking", "targets"
}
FNR == 1 {
    name = FILENAME
    sub(/.*\//, "", name)
    sub(/\.nbdat$/, "", name)
    busy = name ~ /_busy$/
}
# bytes overall compute pure overlap blocking mpi_overall mpi_compute
# mpi_pure mpi_overlap
{
    b = $1; ov = $2; pure = $4; ovl = $5; blk = $6; mov = $7; movl = $10
    v = ""
    if (!busy && b >= 1048576)
        v = v " " check(ovl >= 80, "ovl>=80")
    if (busy && mov != "nan" && b >= 65536)
        v = v " " check(ov <= 1.05 * mov, "ovr<=1.05xMPI")
    else if (busy && mov != "nan")
        v = v " " check(ov <= mov + 2.0, "ovr<=MPI+2us")
    if (!busy && blk != "nan" && b >= 65536)
        v = v " " check(pure <= 1.05 * blk, "pure<=1.05xblk")
    else if (!busy && blk != "nan")
        v = v " " check(pure <= blk + 1.0, "pure<=blk+1us")
    if ((b in wanted) || v ~ /MISS/)
        printf "%-23s %8d %9.2f %9.2f %7.2f %7.2f %8.2f %9.2f %s\n", name,
               b, ov, mov, ovl, movl, pure, blk, v
}
END {
    printf "# nonblocking targets: %d checked, %d missed\n", checks, misses
}
' "$outdir"/i*.nbdat
