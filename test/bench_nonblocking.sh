#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The nonblocking programs osu_tcomm_i<collective> (issue 17): their own
# options (--compute, --blocking-ref) rejected with one line and status 2
# where they do not apply, and the forms with no start (--alloc,
# --uneven); a quick -c run (start, compute, wait, then every output
# element against the reference on every rank) of each program at 1-4
# ranks in both compute modes, with dims, dtypes, the caller-progress
# mode and the local backend; OSU's columns and the JSON's fields, whose
# figures must hold together (Compute >= Pure Comm., Overall >= Compute,
# 0 <= Overlap <= 100).
set -u
. "$(dirname "$0")/bench_lib.sh"

progs="iallreduce iallgather ireduce_scatter ibcast ialltoall"
for p in $progs; do
    [ -x "$bindir/osu_tcomm_$p" ] ||
        { echo "bench test: $bindir/osu_tcomm_$p is not built" >&2; exit 99; }
done

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

expect_usage iallreduce --compute fast
expect_usage iallreduce --compute
expect_usage ibcast --compute ""
expect_usage iallreduce --alloc
expect_usage ialltoall --uneven
expect_usage iallgather --dim 2
expect_usage ireduce_scatter --split-dim 0
expect_usage allreduce --compute busy
expect_usage alltoall --blocking-ref
for p in $progs; do
    "$bindir/osu_tcomm_$p" -h > "$tmp/out" 2>&1 || fail "$p -h: status $?"
    for o in --compute --blocking-ref --baseline; do
        grep -q -e "$o" "$tmp/out" || fail "$p -h does not list $o"
    done
done
"$bindir/osu_tcomm_allreduce" -h > "$tmp/out" 2>&1
grep -q -e "--compute" "$tmp/out" && fail "allreduce -h lists --compute"

# validate N PROGRAM ARGS...: status 0, a Pass row per size, no Fail,
# OSU's columns in OSU's order.
quick="-c -i 3 -x 1 -m 1:4K"
validate() {
    n=$1 p=$2
    shift 2
    # shellcheck disable=SC2086
    on_ranks "$n" "$p" $quick "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    rows=$(grep -c "Pass$" "$tmp/out")
    if [ "$rc" -ne 0 ] || grep -q "Fail$" "$tmp/out" || [ "$rows" -eq 0 ]
    then
        fail "$n ranks: osu_tcomm_$p $*: status $rc, $rows Pass rows"
        cat "$tmp/out" "$tmp/err"
    elif ! grep -Eq '^# Size +Overall\(us\) +Compute\(us\) +Pure Comm\.\(us\) +Overlap\(%\)' "$tmp/out"
    then
        fail "$n ranks: osu_tcomm_$p $*: not OSU's columns"
        cat "$tmp/out"
    else
        echo "ok: $n ranks: osu_tcomm_$p $*: $rows sizes pass"
    fi
}

for n in 1 2 3 4; do
    for p in $progs; do
        for m in busy sleep; do
            validate "$n" "$p" --compute "$m"
        done
    done
done
for n in 2 3; do
    validate "$n" iallgather --dim 1
    validate "$n" ireduce_scatter --dim 1 --compute sleep
    validate "$n" ialltoall --split-dim 1 --concat-dim 0
    validate "$n" ialltoall --split-dim 0 --concat-dim 1 --compute sleep
done
for t in f64 bf16 i8; do
    validate 2 iallreduce -T "$t"
    validate 3 ireduce_scatter -T "$t" --compute sleep
done
validate 2 iallreduce --baseline --blocking-ref
validate 3 ibcast --baseline --blocking-ref --compute sleep
validate 2 ialltoall --baseline --split-dim 1 --concat-dim 1
TCOMM_PROGRESS=caller validate 2 iallreduce --baseline
grep -q "TCOMM_PROGRESS=caller" "$tmp/out" ||
    fail "TCOMM_PROGRESS=caller: the header does not say so"
validate 1 iallgather --backend local --threads 3
validate 1 ialltoall --backend local --threads 2 --compute sleep

# JSON: the settings and every column, with figures that hold together.
on_ranks 2 iallreduce -m 4:64K -i 20 -x 2 -c --baseline --blocking-ref \
    --compute sleep --json "$tmp/nb.json" > "$tmp/out" 2>&1 ||
    fail "--json run: status $?"
grep -q '"nonblocking": 1, "compute": "sleep"' "$tmp/nb.json" 2>/dev/null ||
    fail "--json: no nonblocking, compute settings"
for k in overall_us compute_us pure_us overlap_pct blocking_us \
    mpi_overall_us mpi_compute_us mpi_pure_us mpi_overlap_pct validation; do
    c=$(grep -c "\"$k\": " "$tmp/nb.json")
    [ "$c" -eq 15 ] || fail "--json: $k in $c of 15 rows"
done
bad=$(awk 'function num(key,   s) {
               if (!match($0, "\"" key "\": [-0-9.e+]+")) return -1
               s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s)
               return s + 0
           }
           /"bytes":/ {
               o = num("overall_us"); c = num("compute_us")
               p = num("pure_us"); v = num("overlap_pct")
               mo = num("mpi_overall_us"); mc = num("mpi_compute_us")
               mp = num("mpi_pure_us")
               if (p <= 0 || c < p || o < c || v < 0 || v > 100 ||
                   mp <= 0 || mc < mp || mo < mc || num("blocking_us") <= 0)
                   print num("bytes")
           }' "$tmp/nb.json")
[ -z "$bad" ] || fail "--json: figures that do not hold together at $bad"
sed -n 's/.*"bytes": 65536, .*"overlap_pct": \([0-9.]*\).*/ok: 64 KiB sleep overlap \1%/p' \
    "$tmp/nb.json"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
