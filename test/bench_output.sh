#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What the harness prints can be read as it stands:
# - Ratio is Med / MPI Med of the same row (and the JSON's ratio and
#   diff_us are med_us / mpi_med_us and med_us - mpi_med_us), also on a
#   broadcast, where the root's and the receivers' own ratios differ;
# - summary.txt prints a judged figure with enough digits that it lies on
#   the side of the limit its verdict says (crafted .dat files);
# - sizes that the collective cannot run as asked are named in a comment
#   line, and a run with no size left exits 2 with one line on stderr;
# - the title names the TCOMM_CHECK mode that ran, and a Bound below the
#   timer's resolution reads "-".
set -u
. "$(dirname "$0")/bench_lib.sh"

# ratio_rows FILE: each row's Ratio against Med / MPI Med of the row, up
# to the rounding of the printed figures (2 decimals, Ratio 3).
ratio_rows() {
    awk '/^#/ || $0 == "" { next }
         { n = NF; r = $n; med = $(n - 2); mpi = $(n - 1)
           rows++
           lo = (med - 0.005) / (mpi + 0.005) - 0.0005
           hi = mpi > 0.005 ? (med + 0.005) / (mpi - 0.005) + 0.0005 : 1e9
           if (r < lo || r > hi) {
               printf "size %s: Ratio %s but Med %s / MPI Med %s\n",
                      $1, r, med, mpi; bad++ } }
         END { if (!rows) print "no rows"; exit (bad || !rows) }' "$1"
}

# json_rows FILE: ratio = med_us / mpi_med_us, diff_us = med_us -
# mpi_med_us, up to the rounding of the JSON's figures (3 decimals).
json_rows() {
    awk 'function num(key,   s) {
             if (!match($0, "\"" key "\": [-0-9.e+]+")) return "nan"
             s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s
         }
         /"bytes":/ { rows++
             # + 0: substr() gives strings, which awk would compare as
             # text ("2168.07" < "2168.08" whatever the numbers)
             med = num("med_us") + 0; mpi = num("mpi_med_us") + 0
             r = num("ratio") + 0; d = num("diff_us") + 0
             lo = (med - 0.0005) / (mpi + 0.0005) - 0.000001
             hi = (med + 0.0005) / (mpi - 0.0005) + 0.000001
             if (r < lo || r > hi || d - (med - mpi) > 0.0011 ||
                 (med - mpi) - d > 0.0011) {
                 printf "bytes %s: ratio %s diff_us %s but med_us %s " \
                        "mpi_med_us %s\n", num("bytes"), r, d, med, mpi
                 bad++ } }
         END { if (!rows) print "no rows"; exit (bad || !rows) }' "$1"
}

# consistent N PROGRAM ARGS...: the table's and the JSON's ratios.
consistent() {
    n=$1
    prog=$2
    shift 2
    on_ranks "$n" "$prog" --baseline -i 400 -x 20 --json "$tmp/r.json" \
        "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$n ranks: osu_tcomm_$prog $*: status $rc"
        cat "$tmp/out" "$tmp/err"
    elif ! ratio_rows "$tmp/out" > "$tmp/why" ||
         ! json_rows "$tmp/r.json" >> "$tmp/why"; then
        fail "$n ranks: osu_tcomm_$prog $*: Ratio is not Med / MPI Med"
        cat "$tmp/why" "$tmp/out"
    else
        echo "ok: $n ranks: osu_tcomm_$prog $*: Ratio = Med / MPI Med"
    fi
}

consistent 2 bcast -m 4:64
consistent 3 bcast -m 4:16
consistent 2 allreduce -m 4:64

# 1.1004 misses "<= 1.1": the figure must not read 1.100
summary_has ' 1\.1004 .* MISS ratio <= 1\.1 ' allreduce_bf16 \
    524288 100.04 90.91 100 91 1.1004 9.13 1.0 1.0
summary_has 'targets: 1 checked, 1 missed' allreduce_bf16 \
    524288 100.04 90.91 100 91 1.1004 9.13 1.0 1.0
# 1.0996 meets it: 1.100 is on the right side, 3 decimals are enough
summary_has ' 1\.100 .* ok   ratio <= 1\.1 ' allreduce_bf16 \
    65536 100 90.94 100 91 1.0996 9.06 1.0 1.0
# exactly at the limit is met, and prints as the limit
summary_has ' 1\.100 .* ok   ratio <= 1\.1 ' allreduce_bf16 \
    65536 100 90.91 100 91 1.1 9.09 1.0 1.0
# 1.03001 misses "<= 1.03" at 5 decimals, not before
summary_has ' 1\.03001 .* MISS ratio <= 1\.03$' bcast_f32 \
    65536 10.3 10 10 10 1.03001 0.3 1.0 1.0
# a difference: +0.304 misses "+0.3 us" (at 2 decimals it read +0.30)
summary_has ' \+0\.304 +[0-9.]+ +MISS \+0\.3 us' allreduce_f32_nocheck \
    64 0.804 0.5 0.8 0.5 1.608 0.304 1.0 1.0
summary_has ' \+0\.30 +[0-9.]+ +ok   \+0\.3 us' allreduce_f32_nocheck \
    64 0.8 0.5 0.8 0.5 1.6 0.2996 1.0 1.0

# expect_no_size N PROGRAM ARGS...: status 2, one line from the harness
# on stderr that says no size is left, no table.
expect_no_size() {
    n=$1
    prog=$2
    shift 2
    on_ranks "$n" "$prog" -i 2 -x 0 "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    lines=$(grep -c "^osu_tcomm_$prog: " "$tmp/err")
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] ||
       ! grep -q "no message size" "$tmp/err" || [ -s "$tmp/out" ]; then
        fail "$n ranks: osu_tcomm_$prog $*: status $rc, $lines lines" \
             "from the harness"
        cat "$tmp/out" "$tmp/err"
    else
        echo "ok: $n ranks: osu_tcomm_$prog $*: $(cat "$tmp/err")"
    fi
}

# expect_sizes N PROGRAM SIZES COMMENT ARGS...: status 0, the rows'
# sizes are SIZES (one line), and a comment line matches COMMENT.
expect_sizes() {
    n=$1
    prog=$2
    sizes=$3
    comment=$4
    shift 4
    on_ranks "$n" "$prog" -i 2 -x 0 "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    got=$(awk '!/^#/ { printf "%s%s", sep, $1; sep = " " }' "$tmp/out")
    if [ "$rc" -ne 0 ] || [ "$got" != "$sizes" ] ||
       ! grep -E "^#" "$tmp/out" | grep -Eq "$comment"; then
        fail "$n ranks: osu_tcomm_$prog $*: status $rc, sizes '$got'" \
             "(want '$sizes'), or no comment matching '$comment'"
        cat "$tmp/out" "$tmp/err"
    else
        echo "ok: $n ranks: osu_tcomm_$prog $*: $(grep -E "$comment" \
            "$tmp/out")"
    fi
}

expect_no_size 2 reduce_scatter -m 4:4
expect_no_size 3 reduce_scatter -m 4:8
expect_no_size 1 allreduce -m 5:6
expect_no_size 1 reduce_scatter --backend local --threads 2 -m 4:4
expect_sizes 3 reduce_scatter "12 24 60" \
    "16 -> 12, 32 -> 24, 64 -> 60 .*multiple of 3" -m 4:64
expect_sizes 3 reduce_scatter "12 24 60" "4, 8 .*skipped" -m 4:64
expect_sizes 1 reduce_scatter "12 24 60" \
    "16 -> 12, 32 -> 24, 64 -> 60 .*multiple of 3" \
    --backend local --threads 3 -m 4:64
expect_sizes 2 reduce_scatter "8 16" "4 .*skipped" -m 4:16
expect_sizes 1 allreduce "4 8" "1, 2 .*skipped.*f32" -m 1:8
expect_sizes 1 bcast "8 16" "4 .*skipped.*f64" -T f64 -m 4:16
# nothing adjusted: no comment about sizes
on_ranks 2 reduce_scatter -i 2 -x 0 -m 8:16 > "$tmp/out" 2>&1
if grep -Eq "^#.*(skipped|rounded)" "$tmp/out"; then
    fail "2 ranks: osu_tcomm_reduce_scatter -m 8:16: a comment about sizes"
    cat "$tmp/out"
fi

# The title and the JSON name the TCOMM_CHECK mode that ran: a value the
# library ignores (with a warning) runs checked (issue 27).
for m in bogus:1 0:0 1:1 on:1 :1; do
    TCOMM_CHECK=${m%%:*} on_ranks 1 allreduce -m 4 -i 2 -x 0 \
        --json "$tmp/c.json" > "$tmp/out" 2> "$tmp/err"
    if ! grep -q "^# ranks .*, TCOMM_CHECK=${m#*:}, " "$tmp/out" ||
       ! grep -q "\"check\": \"${m#*:}\"" "$tmp/c.json"; then
        fail "TCOMM_CHECK=${m%%:*}: the title and JSON do not say ${m#*:}"
        head -2 "$tmp/out"
    fi
done

# A bound below the timer's resolution (1 ns, 0.001 us) is noise: the
# Bound column shows "-" and the JSON has no bound_us (issue 27).
on_ranks 2 allreduce --baseline -m 4:64 -i 20 -x 2 --json "$tmp/b.json" \
    > "$tmp/out" 2> "$tmp/err"
if ! awk '/^#/ { next } $5 != "-" && $5 + 0 < 0.001 { bad++ }
          END { exit bad > 0 }' "$tmp/out" ||
   grep -Eq '"bound_us": 0\.000[0-9]*,' "$tmp/b.json"; then
    fail "a Bound below 0.001 us printed"
    cat "$tmp/out"
else
    echo "ok: Bound below the timer's resolution: $(awk '!/^#/ { printf "%s ", $5 }' "$tmp/out")"
fi

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
