#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The summary table of `make bench` from bench/results/*.dat (written by
# bench-sweep.sh): size, tcomm and raw MPI latency (medians of the
# interleaved block means, mean over ranks, us), the ratio and difference
# tcomm vs MPI (of those two medians, from the JSON's ratio and diff_us),
# the ratio of the fastest blocks (best: the closest to an undisturbed
# machine, for reference only), and the speed target of issue 4 (issue
# 16 for alltoall) that applies at that size, judged on the ratio and difference. The judged
# figure gets more digits where fewer would round it onto the other side
# of its limit (1.1004 prints as 1.1004 against "<= 1.1", not 1.100), so
# that the verdict can be read from it. Rows at the sizes of BENCH_SHOW
# and every missed target are printed.
#
# usage: bench-summary.sh OUTDIR
set -eu

outdir=${1:-bench/results}
show=${BENCH_SHOW:-"4 64 1024 65536 1048576 16777216"}

awk -v show="$show" '
function check(ok, what) {
    checks++
    if (ok) return "ok   " what
    misses++
    return "MISS " what
}
# v printed with at least `dec` decimals, and with more (up to 9) while
# the printed figure would read on the other side of `lim` than v.
function fig(v, dec, lim, sign,   f, s) {
    for (;; dec++) {
        f = "%" sign "." dec "f"
        s = sprintf(f, v)
        if (lim == "" || dec >= 9 || ((s + 0 <= lim) == (v <= lim)))
            return s
    }
}
# The target at this size for result set `name`, "" where none applies;
# sets rlim or dlim, the limit of the ratio or the difference judged.
function judge(b, r, d) {
    rlim = dlim = ""
    if (name == "allreduce_f32_nocheck") {
        if (b >= 65536) return ratio(r, 1.03, "")
        if (b <= 1024) return diff(d, 0.3, "+0.3 us")
    } else if (name == "allreduce_f32") {
        if (b >= 65536) return ratio(r, 1.05, "")
        if (b < 1024) return diff(d, 1.0, "+1 us")
    } else if (name ~ /^allreduce_b?f16/) {
        if (b >= 65536) return ratio(r, 1.10, " (MPI f32)")
    } else if (name ~ /^(allgather|reduce_scatter)_.*_dim1$/) {
        if (b >= 1048576) return ratio(r, 1.15, " (dim 0)")
    } else if (name ~ /^bcast/) { # bcast_f32_nocheck: the same targets
        if (b >= 65536) return ratio(r, 1.03, "")
        if (b <= 1024) return diff(d, 0.5, "+0.5 us")
    } else if (name ~ /^barrier/) {
        return diff(d, 0.5, "+0.5 us")
    } else if (name ~ /^alltoall_(f32|bf16)_s0c0(_nocheck)?$/) {
        # one MPI_Alltoall; the issue names no mode: both are judged
        if (b >= 65536) return ratio(r, 1.03, "")
        return diff(d, 0.3, "+0.3 us")
    } else if (name ~ /^alltoall_.*_(s1c0|s0c1)$/) {  # split != concat
        if (b >= 1048576) return ratio(r, 1.2, "")
    } else if (name ~ /^alltoall_v_.*_dim0$/) {   # one MPI_Alltoallv
        if (b >= 65536) return ratio(r, 1.05, " (MPI_Alltoallv)")
    }
    return ""
}
function ratio(r, lim, note) {
    rlim = lim
    return check(r <= lim, "ratio <= " lim note)
}
function diff(d, lim, what) {
    dlim = lim
    return check(d <= lim, what)
}
BEGIN {
    n = split(show, s, " ")
    for (i = 1; i <= n; i++) wanted[s[i]] = 1
    printf "%-25s %9s %9s %9s %6s %7s %5s  %s\n", "# result", "size",
           "tcomm us", "MPI us", "ratio", "diff us", "best", "target"
}
FNR == 1 {
    name = FILENAME
    sub(/.*\//, "", name)
    sub(/\.dat$/, "", name)
}
{
    b = $1; t = $2; m = $3; r = $6; d = $7
    if (m == "nan") next
    best = $9 > 0 ? $8 / $9 : 0
    verdict = judge(b, r, d)
    if ((b in wanted) || name ~ /^barrier/ || verdict ~ /^MISS/)
        printf "%-25s %9d %9.2f %9.2f %6s %7s %5.2f  %s\n", name, b,
               t, m, fig(r, 3, rlim, ""), fig(d, 2, dlim, "+"), best,
               verdict
}
END {
    printf "# targets: %d checked, %d missed\n", checks, misses
}
' "$outdir"/*.dat
