#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --vary (bench/bench_vary.c, issue 32): every call's input new, the
# output of the last timed call of each size checked.
# - at 1, 2, 3 and 4 ranks every collective (and two nonblocking ones)
#   with --vary --baseline exits 0 with a Pass row per size and no
#   "--vary:" complaint: the expected values follow the shifted inputs;
# - with TCOMM_BENCH_FAULT=stale-input (the last checked call's input is
#   left as the previous call's while the expected values move on) the
#   same runs exit non-zero, every rank names the wrong output, and the
#   row says Fail: the check sees a result that does not follow its input;
# - --backend local (threads) varies too; -d cuda is refused with a reason;
# - the summaries: warm and varying side by side, and the nonblocking
#   targets of busy compute on Overall, not Overlap.
set -u
. "$(dirname "$0")/bench_lib.sh"

quick="--vary --baseline -c -i 20 -x 2 -m 4:16K"
opts=$quick

# vary_ok N PROGRAM ARGS...
vary_ok() {
    n=$1 prog=$2
    shift 2
    # shellcheck disable=SC2086
    on_ranks "$n" "$prog" $opts "$@" > "$tmp/out" 2> "$tmp/err"
    seen="status $?, $(grep -c "Pass$" "$tmp/out") Pass, $(grep -c \
        "Fail$" "$tmp/out") Fail, $(grep -c -- "--vary:" "$tmp/err") wrong"
    case $seen in
    "status 0, 0 Pass"*) ;;
    "status 0, "*" Pass, 0 Fail, 0 wrong")
        echo "ok: $n ranks: osu_tcomm_$prog --vary $*: $seen"
        return ;;
    esac
    fail "$n ranks: osu_tcomm_$prog --vary $*: $seen"
    cat "$tmp/out" "$tmp/err"
}

# vary_caught N PROGRAM ARGS...: the stale input is seen on every rank.
vary_caught() {
    n=$1 prog=$2
    shift 2
    # shellcheck disable=SC2086
    TCOMM_BENCH_FAULT=stale-input on_ranks "$n" "$prog" $quick -m 4K:8K \
        "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    ranks=$(grep -- "--vary: .* of tcomm's output wrong" "$tmp/err" |
            sed 's/.*rank \([0-9]*\):.*/\1/' | sort -u | wc -l)
    if [ "$rc" -eq 0 ] || [ "$ranks" -ne "$n" ] ||
       ! grep -q "Fail$" "$tmp/out"; then
        fail "$n ranks: osu_tcomm_$prog $* with a stale input: status" \
            "$rc, $ranks of $n ranks saw it"
        cat "$tmp/out" "$tmp/err"
    else
        echo "ok: $n ranks: osu_tcomm_$prog $*: the stale input caught on" \
            "every rank"
    fi
}

export TCOMM_BENCH_FAULT=
for n in 1 2 3 4; do
    vary_ok "$n" allreduce -T f32
    vary_ok "$n" allreduce -T bf16
    vary_ok "$n" allgather -T f32 --dim 1
    vary_ok "$n" reduce_scatter -T f32 --dim 0
    vary_ok "$n" bcast -T f32
    vary_ok "$n" alltoall -T f32 --split-dim 1
    vary_ok "$n" iallgather -T f32 --dim 0
    vary_caught "$n" allreduce -T f32
    vary_caught "$n" allgather -T bf16 --dim 0
    vary_caught "$n" ireduce_scatter -T f32
done
# The bound's terms (bench/bench_traffic.c, bench/bench_cross_core.c):
# cross_core_us on the reductions with --vary from 2 ranks, where each
# row from 64 KiB has stream_us > 0, cross_core_us > 0 with its rate,
# and bound_us the larger of the two (up to their rounding); none on 1
# rank (no bound), none without --vary or on a broadcast (no such bytes).
# terms N PROGRAM WANT ARGS...: WANT 1: both terms, 0: no cross_core_us
terms() {
    n=$1 prog=$2 want=$3
    shift 3
    on_ranks "$n" "$prog" --baseline -i 10 -x 1 -m 64K:128K \
        --json "$tmp/t.json" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    awk -v want="$want" -v n="$n" '
        function num(key,   s) {
            if (!match($0, "\"" key "\": [-0-9.e+]+")) return ""
            s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s + 0
        }
        /"bytes":/ {
            rows++; b = num("bound_us"); s = num("stream_us")
            x = num("cross_core_us"); g = num("cross_core_gbs")
            if (n == 1 && (b != "" || x != "")) {
                print "bytes " num("bytes") ": a bound on 1 rank"; bad++
            } else if (n == 1) {
            } else if (!want && x != "") {
                print "bytes " num("bytes") ": cross_core_us " x; bad++
            } else if (!want && !(s > 0 && b == s)) {
                print "bytes " num("bytes") ": bound " b ", stream " s; bad++
            } else if (want && !(s > 0 && x > 0 && g > 0)) {
                print "bytes " num("bytes") ": stream " s ", cross " x; bad++
            } else if (want) {
                m = s > x ? s : x
                if (b < m - 0.000001 || b > m + 0.000001) {
                    print "bytes " num("bytes") ": bound " b " of " s \
                        " and " x; bad++
                }
            }
        }
        END { if (!rows) print "no rows"; exit (bad || !rows) }
    ' "$tmp/t.json" > "$tmp/why"
    verdict "$rc" "$n ranks: osu_tcomm_$prog $*" "the bound's terms"
}
for n in 1 2 3 4; do
    terms "$n" allreduce 1 --vary
    terms "$n" reduce_scatter 1 --vary -T bf16
    terms "$n" allreduce 0
    terms "$n" bcast 0 --vary
done

# --backend local has no baseline to compare with
opts="--vary -c -i 20 -x 2 -m 4:16K"
vary_ok 1 allreduce --backend local --threads 3 -T f32
vary_ok 1 allgather --backend local --threads 4 -T bf16 --dim 1
unset TCOMM_BENCH_FAULT

if on_ranks 1 allreduce --vary -d cuda > "$tmp/out" 2>&1; then
    fail "--vary -d cuda: accepted"
elif grep -q -- "--vary: host tensors only" "$tmp/out"; then
    echo "ok: --vary -d cuda refused: $(head -1 "$tmp/out")"
else
    fail "--vary -d cuda: $(head -1 "$tmp/out")"
fi

# The summary's warm and varying table (scripts/bench-summary-vary.sh):
# a warm and a varying .dat of one result give one row per size from
# 64 KiB with both sides' figures, ratios and tcomm over the bound.
mkdir "$tmp/res"
printf '%s\n' "4096 1 2 1 2 0.5 -1 1 2 0.5 MPI_Allreduce" \
    "1048576 100 400 100 400 0.25 -300 1 2 50 MPI_Allreduce" \
    > "$tmp/res/allreduce_f32.dat"
printf '%s\n' "4096 3 4 3 4 0.75 -1 1 2 0.5 MPI_Allreduce" \
    "1048576 150 450 150 450 0.333 -300 1 2 50 MPI_Allreduce" \
    > "$tmp/res/allreduce_f32_vary.dat"
sh "$(dirname "$0")/../scripts/bench-summary-vary.sh" "$tmp/res" \
    > "$tmp/sum" 2>&1
if grep -Eq '^allreduce_f32 +1048576 +100\.00 +150\.00 +400\.00 +450\.00 +0\.250 +0\.333 +3\.00$' \
       "$tmp/sum" && ! grep -q ' 4096 ' "$tmp/sum"; then
    echo "ok: warm and varying side by side: $(tail -1 "$tmp/sum")"
else
    fail "bench-summary-vary.sh:"; cat "$tmp/sum"
fi

# The nonblocking summary judges with busy compute the collective's own
# cost (Overall against MPI's), not Overlap, which no rank can have
# without a free core: 0% against MPI's 13% is no miss, an Overall 10%
# over MPI's is one; the pure loop is judged in the sleep runs only.
# bytes overall compute pure overlap blocking mpi_overall mpi_compute
# mpi_pure mpi_overlap
echo "1048576 100 50 60 0 30 99 50 50 13" > "$tmp/res/iallreduce_busy.nbdat"
echo "1048576 110 50 60 0 30 100 50 50 13" > "$tmp/res/ibcast_busy.nbdat"
sh "$(dirname "$0")/../scripts/bench-summary-nb.sh" "$tmp/res" \
    > "$tmp/sum" 2>&1
if grep -q 'nonblocking targets: 2 checked, 1 missed' "$tmp/sum" &&
   grep -q '^ibcast_busy .*MISS:ovr<=1.05xMPI' "$tmp/sum" &&
   ! grep -q 'ovl>=MPI\|pure<=' "$tmp/sum"; then
    echo "ok: busy compute judged on Overall, not Overlap"
else
    fail "bench-summary-nb.sh:"; cat "$tmp/sum"
fi

[ "$failures" -eq 0 ] || exit 1
echo "bench_vary: all passed"
