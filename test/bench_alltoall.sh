#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# osu_tcomm_alltoall: its own options rejected with one line and status 2
# where they do not apply (and the other programs reject them); a quick
# -c run (every output element against the reference on every rank) of
# the four (split, concat) pairs, equal and --uneven (both modes of
# tcomm_all_to_all_v), at 1-4 ranks; a few dtypes, --alloc, the JSON's
# settings, and the local and Gloo backends (Gloo skipped, saying so,
# where it is not built).
set -u
. "$(dirname "$0")/bench_lib.sh"

prog=alltoall
[ -x "$bindir/osu_tcomm_$prog" ] ||
    { echo "bench test: $bindir/osu_tcomm_$prog is not built" >&2; exit 99; }

# expect_usage PROGRAM ARGS...: status 2 and one line on stderr.
expect_usage() {
    p=$1
    shift
    "$bindir/osu_tcomm_$p" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ]; then
        fail "osu_tcomm_$p $*: status $rc, $lines lines on stderr"
        cat "$tmp/err"
    else
        echo "ok: osu_tcomm_$p $*: $(cat "$tmp/err")"
    fi
}

expect_usage alltoall --split-dim 2
expect_usage alltoall --concat-dim x
expect_usage alltoall --concat-dim
expect_usage alltoall --dim 1
expect_usage alltoall -m 1x
expect_usage alltoall --split-dim 0 --split-dim 3
expect_usage allgather --split-dim 0
expect_usage reduce_scatter --concat-dim 1
expect_usage bcast --uneven
"$bindir/osu_tcomm_alltoall" -h > "$tmp/out" 2>&1 || fail "-h: status $?"
for o in --split-dim --concat-dim --uneven; do
    grep -q -e "$o" "$tmp/out" || fail "-h does not list $o"
done

# validate N ARGS...: status 0, a Pass row per size, no Fail.
quick="-c -i 3 -x 1 -m 1:4K"
validate() {
    n=$1
    shift
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

for n in 1 2 3 4; do
    for s in 0 1; do
        for c in 0 1; do
            validate "$n" --split-dim "$s" --concat-dim "$c"
            validate "$n" --split-dim "$s" --concat-dim "$c" --uneven
        done
    done
done
for t in f64 bf16 i8; do
    validate 2 -T "$t" --split-dim 1 --concat-dim 0
    validate 3 -T "$t" --uneven
done
validate 2 --alloc --split-dim 0 --concat-dim 1
validate 2 --baseline --uneven --split-dim 1 --concat-dim 1
validate 1 --backend local --threads 3 --uneven
validate 1 --backend local --threads 2 --split-dim 1 --concat-dim 0
if on_ranks 2 barrier --backend gloo -i 1 -x 0 2>&1 | grep -q "without Gloo"
then
    echo "SKIP: --backend gloo: this tcomm is built without Gloo"
else
    validate 3 --backend gloo --uneven --split-dim 0 --concat-dim 1
    validate 2 --backend gloo --split-dim 1 --concat-dim 1
fi

# The JSON names the dims and the form (1 rank: the front end answers).
on_ranks 1 "$prog" -m 4:64 -i 2 -x 0 --split-dim 1 --concat-dim 0 \
    --uneven --json "$tmp/a.json" > /dev/null 2>&1
grep -q '"split_dim": 1, "concat_dim": 0, "uneven": 1' "$tmp/a.json" \
    2>/dev/null || fail "--json: no split_dim, concat_dim, uneven settings"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
