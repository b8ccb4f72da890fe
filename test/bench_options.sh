#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every osu_tcomm_* program rejects a bad option or value with exactly one
# line on stderr and exit status 2 (never a crash), and -h exits 0.
set -u
. "$(dirname "$0")/bench_lib.sh"

# expect_usage PROGRAM ARGS...: status 2 and one line on stderr.
expect_usage() {
    prog=$1
    shift
    "$bindir/osu_tcomm_$prog" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ]; then
        fail "osu_tcomm_$prog $*: status $rc, $lines lines on stderr"
        cat "$tmp/err"
    else
        echo "ok: osu_tcomm_$prog $*: $(cat "$tmp/err")"
    fi
}

for p in allreduce allgather reduce_scatter bcast barrier; do
    expect_usage "$p" -m abc
    expect_usage "$p" -m 0
    expect_usage "$p" -m 8:4
    expect_usage "$p" -m :4
    expect_usage "$p" -m 4:
    expect_usage "$p" -m 2G
    expect_usage "$p" -m 1x
    expect_usage "$p" -i 0
    expect_usage "$p" -i 12abc
    expect_usage "$p" -i -5
    expect_usage "$p" -x -1
    expect_usage "$p" -T f128
    expect_usage "$p" -T ""
    expect_usage "$p" -d rocm
    expect_usage "$p" --dim 2
    expect_usage "$p" --max-time 0
    expect_usage "$p" --max-time nan
    expect_usage "$p" --bogus
    expect_usage "$p" -z
    expect_usage "$p" -fz
    expect_usage "$p" -m
    expect_usage "$p" --json
    expect_usage "$p" extra
    expect_usage "$p" -m 4 --json "$tmp/no/such/dir/x.json"
    "$bindir/osu_tcomm_$p" -h > "$tmp/out" 2>&1 ||
        fail "osu_tcomm_$p -h: status $?"
    grep -q "Usage:" "$tmp/out" || fail "osu_tcomm_$p -h: no usage text"
    # -d cuda: runs where tcomm has CUDA and a device, else status 2
    "$bindir/osu_tcomm_$p" -d cuda -m 4 -i 1 -x 0 > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ]; then
        [ "$(wc -l < "$tmp/err")" -eq 1 ] ||
            fail "osu_tcomm_$p -d cuda: more than one line on stderr"
    elif [ "$rc" -ne 0 ]; then
        fail "osu_tcomm_$p -d cuda: status $rc"
    fi
done
# --dim exists only where the collective has a dim
for p in allreduce bcast barrier; do
    expect_usage "$p" --dim 0
done
expect_usage allgather -m 2 -T f32

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
