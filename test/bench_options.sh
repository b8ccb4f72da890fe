#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every osu_tcomm_* program rejects a bad option or value with exactly one
# line on stderr and exit status 2 (never a crash), and -h exits 0; so do
# the backends a launch or build cannot run (--backend local on 2 ranks,
# --backend gloo without Gloo).
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
    # the line says why (the man page's EXIT STATUS promises the reason)
    grep -q 'No such file or directory' "$tmp/err" ||
        fail "osu_tcomm_$p --json into no directory: no reason given"
    expect_usage "$p" --backend nccl
    expect_usage "$p" --backend ""
    expect_usage "$p" --backend MPI
    expect_usage "$p" --backend
    expect_usage "$p" --threads 2
    expect_usage "$p" --backend gloo --threads 2
    expect_usage "$p" --backend local --threads 0
    expect_usage "$p" --backend local --threads -1
    expect_usage "$p" --backend local --threads 2x
    expect_usage "$p" --backend local --threads 1025
    expect_usage "$p" --backend local --threads
    expect_usage "$p" --backend local --baseline
    expect_usage "$p" --baseline --backend local
    expect_usage "$p" --backend gloo -d cuda
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
# --backend local on several MPI ranks: status 2 and one line from the
# harness (the launcher may add its own lines about the exit status)
on_ranks 2 allreduce --backend local -m 4 > "$tmp/out" 2> "$tmp/err"
rc=$?
lines=$(grep -c "^osu_tcomm_allreduce: " "$tmp/err")
if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ]; then
    fail "2 ranks: osu_tcomm_allreduce --backend local: status $rc," \
         "$lines lines from the harness"
    cat "$tmp/err"
else
    echo "ok: 2 ranks: --backend local: $(grep "^osu_tcomm_" "$tmp/err")"
fi
# --backend gloo in a build without Gloo: status 2 and one line
"$bindir/osu_tcomm_barrier" --backend gloo -i 1 -x 0 > "$tmp/out" \
    2> "$tmp/err"
rc=$?
if [ "$rc" -eq 2 ]; then
    if [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -q "without Gloo" "$tmp/err"
    then
        fail "--backend gloo: status 2 but not the one line about Gloo"
        cat "$tmp/err"
    fi
elif [ "$rc" -ne 0 ]; then
    fail "osu_tcomm_barrier --backend gloo: status $rc"
    cat "$tmp/err"
fi
# --dim exists only where the collective has a dim
for p in allreduce bcast barrier; do
    expect_usage "$p" --dim 0
done
expect_usage allgather -m 2 -T f32
# --baseline-dtype: only the reductions, and only a dtype MPI can sum
for p in allgather bcast barrier; do
    expect_usage "$p" --baseline-dtype f32
done
for p in allreduce reduce_scatter; do
    expect_usage "$p" --baseline-dtype bf16
    expect_usage "$p" --baseline-dtype f16
    expect_usage "$p" --baseline-dtype f128
    expect_usage "$p" --baseline-dtype
done

# -h lists exactly the options each program takes (issue 27): an option
# is taken when `PROGRAM OPTION [VALUE] -h` exits 0 (-h comes after it).
value() {
    case $1 in
    --message-size) echo 4 ;; --iterations) echo 1 ;; --warmup) echo 0 ;;
    --type | --baseline-dtype) echo f32 ;; --accelerator) echo host ;;
    --dim | --split-dim | --concat-dim) echo 0 ;; --json) echo "$tmp/h.json" ;;
    --max-time) echo 1 ;; --backend) echo mpi ;; --threads) echo 2 ;;
    --compute) echo busy ;;
    esac
}
progs="allreduce allgather reduce_scatter bcast barrier alltoall iallreduce
    iallgather ireduce_scatter ibcast ialltoall"
for p in $progs; do
    "$bindir/osu_tcomm_$p" -h | grep -oE -- '--[a-z][a-z-]*' | sort -u \
        > "$tmp/listed.$p"
done
cat "$tmp"/listed.* | sort -u > "$tmp/all"
for p in $progs; do
    for o in $(cat "$tmp/all"); do
        v=$(value "$o")
        # shellcheck disable=SC2086
        if "$bindir/osu_tcomm_$p" "$o" $v -h > /dev/null 2>&1; then
            took=yes
        else
            took=no
        fi
        listed=no
        grep -qx -- "$o" "$tmp/listed.$p" && listed=yes
        [ "$took" = "$listed" ] ||
            fail "osu_tcomm_$p $o: -h lists it: $listed; takes it: $took"
    done
done
echo "ok: -h lists what each program takes ($(wc -l < "$tmp/all") options)"
# the version: -v, -V and --version alike, like tcomm_info
for p in $progs; do
    for v in -v -V --version; do
        out=$("$bindir/osu_tcomm_$p" "$v" 2>&1) &&
            echo "$out" | grep -qx "osu_tcomm_$p (tcomm [0-9.]*)" ||
            fail "osu_tcomm_$p $v: $out"
    done
done

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
