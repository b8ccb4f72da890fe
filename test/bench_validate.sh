#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A quick -c run of every osu_tcomm_* program: each output element checked
# against a reference on every rank, at 1 rank (a singleton) and 2 ranks,
# small sizes, the main dtypes and both dims; a few on 3 ranks. Set
# BENCH_FULL=1 for every dtype of every collective and dim on 1-3 ranks.
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

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
