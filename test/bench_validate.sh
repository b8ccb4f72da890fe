#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A quick -c run of every osu_tcomm_* program: each output element checked
# against a reference on every rank, at 1 rank (a singleton) and 2 ranks,
# small sizes, the main dtypes and both dims; a few on 3 ranks; every
# collective with f32 and bf16 over --backend local at 1-4 threads and
# --backend gloo at 2 ranks (skipped without Gloo). Set BENCH_FULL=1 for
# every dtype of every collective and dim on 1-3 ranks.
set -u
. "$(dirname "$0")/bench_lib.sh"

sizes="1:4K"
quick="-c -i 5 -x 1 -m $sizes"

# validate N PROGRAM ARGS...: status 0, a Pass row per size, no Fail.
validate() {
    n=$1
    prog=$2
    shift 2
    # shellcheck disable=SC2086
    on_ranks "$n" "$prog" $quick "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    rows=$(grep -c "Pass$" "$tmp/out")
    if [ "$rc" -ne 0 ] || grep -q "Fail$" "$tmp/out" || [ "$rows" -eq 0 ]
    then
        fail "$n ranks: osu_tcomm_$prog $*: status $rc, $rows Pass rows"
        cat "$tmp/out" "$tmp/err"
    else
        echo "ok: $n ranks: osu_tcomm_$prog $*: $rows sizes pass"
    fi
}

# Every collective with f32 and bf16, both dims: validate_all N ARGS...
validate_all() {
    n=$1
    shift
    for t in f32 bf16; do
        validate "$n" allreduce -T "$t" "$@"
        validate "$n" bcast -T "$t" "$@"
        for d in 0 1; do
            validate "$n" allgather -T "$t" --dim "$d" "$@"
            validate "$n" reduce_scatter -T "$t" --dim "$d" "$@"
        done
    done
    validate "$n" barrier "$@"
}

# --backend local: 1-4 ranks as threads of one process (no mpirun); the
# JSON file names the backend.
local_part() {
    for k in 1 2 3 4; do
        validate_all 1 --backend local --threads "$k"
    done
    on_ranks 1 allreduce --backend local --threads 3 -m 4:64 -i 2 -x 0 \
        --json "$tmp/local.json" > /dev/null 2>&1
    grep -q '"backend": "local", "dtype"' "$tmp/local.json" 2>/dev/null ||
        fail "--backend local --json: no \"backend\": \"local\" in the file"
}

# --backend gloo on 2 ranks, skipped (not failed) where the build has no
# Gloo; the store directory is gone afterwards.
gloo_part() {
    mkdir -p "$tmp/gloo"
    saved_tmpdir=${TMPDIR-}
    export TMPDIR="$tmp/gloo"
    on_ranks 2 barrier --backend gloo -i 1 -x 0 > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "without Gloo" "$tmp/err"; then
        echo "SKIP: --backend gloo: this tcomm is built without Gloo"
    else
        [ "$rc" -eq 0 ] || { fail "--backend gloo: status $rc"; cat "$tmp/err"; }
        validate_all 2 --backend gloo
        validate 2 allreduce --backend gloo -T i32 --baseline
        left=$(ls "$tmp/gloo" | grep "^osu_tcomm-gloo-")
        [ -z "$left" ] || fail "--backend gloo left its store behind: $left"
    fi
    if [ -n "$saved_tmpdir" ]; then TMPDIR=$saved_tmpdir; else unset TMPDIR; fi
}

if [ "${BENCH_FULL:-0}" = 1 ]; then
    all="f32 f64 f16 bf16 i32 u32 i64 i8 u8"
    for n in 1 2 3; do
        for t in $all; do
            validate "$n" allreduce -T "$t"
            validate "$n" bcast -T "$t"
            for d in 0 1; do
                validate "$n" allgather -T "$t" --dim "$d"
                validate "$n" reduce_scatter -T "$t" --dim "$d"
            done
        done
        validate "$n" barrier
    done
    local_part
    gloo_part
    [ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
    exit 0
fi

validate 1 allreduce -T f32
validate 1 allreduce -T bf16
validate 1 bcast -T f32
for d in 0 1; do
    validate 1 allgather -T f32 --dim "$d"
    validate 1 reduce_scatter -T f32 --dim "$d"
done
validate 1 barrier

for t in f32 f64 f16 bf16 i32 i64 u8; do
    validate 2 allreduce -T "$t"
done
validate 2 allgather -T f32 --dim 0
validate 2 allgather -T f32 --dim 1
validate 2 allgather -T bf16 --dim 1
validate 2 reduce_scatter -T f32 --dim 0
validate 2 reduce_scatter -T f32 --dim 1
validate 2 reduce_scatter -T bf16 --dim 0
validate 2 reduce_scatter -T bf16 --dim 1
validate 2 reduce_scatter -T f16 --dim 1
validate 2 bcast -T f32
validate 2 bcast -T bf16
validate 2 barrier
# the allocating forms
validate 2 allreduce --alloc
validate 2 allgather --alloc --dim 1
validate 2 reduce_scatter --alloc --dim 1 -T bf16
validate 2 bcast --alloc
# uneven world size: 3 ranks
validate 3 allgather --dim 1
validate 3 reduce_scatter --dim 1
local_part
gloo_part

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
