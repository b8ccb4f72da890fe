#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The baseline and the bound as the harness prints them (issue 18):
# - every row of --baseline names the MPI call it timed (the table's MPI
#   call column, the JSON's mpi_call), reduce_scatter's the faster of
#   MPI_Reduce_scatter_block and MPI_Reduce_scatter (mpi_alt_call the
#   other, whose median is not below the chosen one's);
# - the reductions on f16/bf16 and --baseline-dtype f32 time MPI's f32 on
#   the same bytes (baseline_dtype);
# - on 2 ranks every sized row from 1 KiB has bound_us > 0, bound_ratio =
#   med_us / bound_us, and the table's Bound(us) (below, a bound under
#   the timer's 1 ns is left out: "-"); on 1 rank none (no peer);
# - the summary judges the targets of issue 18 (crafted .dat rows).
set -u
. "$(dirname "$0")/bench_lib.sh"

# rows N PROGRAM CALLS BOUND ARGS...: every JSON row's mpi_call matches
# the extended regular expression CALLS and equals the table's MPI call;
# BOUND 1: bound_us > 0 with bound_ratio = med_us / bound_us (below
# 1 KiB it may be left out, as below the timer's resolution), 0: none.
rows() {
    n=$1 prog=$2 calls=$3 bound=$4
    shift 4
    on_ranks "$n" "$prog" --baseline -i 40 -x 2 --json "$tmp/r.json" \
        "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    # the table's MPI call and Bound(us): 5th and 6th columns from the
    # end (MPI call, MPI Avg, Med, MPI Med, Ratio), before Validation
    awk '!/^#/ && NF { n = NF - ($NF ~ /^(Pass|Fail)$/)
                       print $(n - 4), $(n - 5) }' "$tmp/out" \
        > "$tmp/table"
    awk -v calls="^($calls)$" -v bound="$bound" -v table="$tmp/table" '
        function num(key,   s) {
            if (!match($0, "\"" key "\": [-0-9.e+]+")) return ""
            s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s + 0
        }
        function str(key,   s) {
            if (!match($0, "\"" key "\": \"[^\"]*\"")) return ""
            s = substr($0, RSTART, RLENGTH); sub(/.*: "/, "", s)
            sub(/"$/, "", s); return s
        }
        /"bytes":/ {
            rows++
            call = str("mpi_call"); b = num("bound_us")
            if ((getline line < table) <= 0) line = ""
            split(line, t, " ")
            if (call !~ calls) {
                print "bytes " num("bytes") ": mpi_call \"" call "\""; bad++
            }
            if (t[1] != call) {
                print "bytes " num("bytes") ": table \"" t[1] "\""; bad++
            }
            alt = str("mpi_alt_call")
            if (alt != "" && (alt == call || alt !~ calls ||
                              num("mpi_alt_med_us") < num("mpi_med_us"))) {
                print "bytes " num("bytes") ": the slower call " call; bad++
            }
            if (bound && b == "" && t[2] == "-" && num("bytes") < 1024) {
                # no bound: below the resolution of the timer
            } else if (bound && !(b > 0 && t[2] ~ /^[0-9]/)) {
                print "bytes " num("bytes") ": bound_us " b; bad++
            } else if (bound) {
                # up to the rounding of med_us (3 decimals), bound_us (6)
                med = num("med_us"); r = num("bound_ratio")
                lo = (med - 0.0005) / (b + 0.0000005) * 0.9999
                hi = (med + 0.0005) / (b - 0.0000005) * 1.0001
                if (r < lo || r > hi) {
                    print "bytes " num("bytes") ": bound_ratio " r; bad++
                }
            } else if (b != "" || t[2] != "-") {
                print "bytes " num("bytes") ": a bound " b; bad++
            }
        }
        END { if (!rows) print "no rows"; exit (bad || !rows) }
    ' "$tmp/r.json" > "$tmp/why"
    verdict "$rc" "$n ranks: osu_tcomm_$prog $*" "$(sort -u "$tmp/table" |
        cut -d' ' -f1 | sort -u | tr '\n' ' ')"
}

rs='MPI_Reduce_scatter_block|MPI_Reduce_scatter'
rows 2 allreduce MPI_Allreduce 1 -m 4:64K -c
rows 2 allreduce MPI_Allreduce 1 -m 4:4K -T bf16
rows 2 reduce_scatter "$rs" 1 -m 8:256K -c
rows 2 reduce_scatter "$rs" 1 -m 8:64K --dim 1 -T bf16
rows 3 reduce_scatter "$rs" 1 -m 12:12K
rows 2 allgather MPI_Allgather 1 -m 4:64K --dim 1 -c
rows 2 bcast MPI_Bcast 1 -m 4:64K -c
rows 2 alltoall MPI_Alltoall 1 -m 4:16K
rows 2 alltoall MPI_Alltoallv 1 -m 4:16K --uneven
rows 2 barrier MPI_Barrier 0
rows 1 allreduce MPI_Allreduce 0 -m 4:1K

# the f16/bf16 reductions: MPI's f32 on the same bytes, by default and
# with --baseline-dtype f32; f32's own dtype otherwise
base_dtype() {
    want=$1
    shift
    on_ranks 2 "$@" --baseline -i 4 -x 0 -m 64:64 --json "$tmp/d.json" \
        > /dev/null 2>&1
    if grep -q "\"baseline_dtype\": \"$want\"" "$tmp/d.json"; then
        echo "ok: osu_tcomm_$*: baseline_dtype $want"
    else
        fail "osu_tcomm_$*: baseline_dtype is not $want"
        head -c 400 "$tmp/d.json"
    fi
}
base_dtype f32 allreduce -T bf16
base_dtype f32 allreduce -T f16 --baseline-dtype f32
base_dtype f32 reduce_scatter -T bf16
base_dtype i32 allreduce -T i32
base_dtype f64 allreduce -T f32 --baseline-dtype f64

MiB=1048576
# all_reduce from 1 MiB: 0.80 x MPI; 1.35 x the bound is within 1.5
summary_has 'MISS ratio <= 0\.8; ok   bound <= 1\.5' allreduce_f32 \
    $MiB 81 100 81 100 0.81 -19 1 1 60 MPI_Allreduce
summary_has 'targets: 2 checked, 1 missed' allreduce_f32 \
    $MiB 81 100 81 100 0.81 -19 1 1 60 MPI_Allreduce
# the bound: 76 us over 50 misses 1.5 (1.52 printed), the MPI call shown
summary_has 'Reduce_scatter +50\.00 +1\.52 .*ok   ratio <= 0\.8 \(fastest MPI\); MISS bound <= 1\.5' \
    reduce_scatter_f32_dim1 $MiB 76 100 76 100 0.76 -24 1 1 50 \
    MPI_Reduce_scatter
# under the bound: the model is wrong (reduce_scatter at 1 MiB beat the
# bound by 1.5x while its kernels lacked an AVX2 loop)
summary_has 'MISS tcomm >= bound' reduce_scatter_f32_dim0 \
    $MiB 18 100 18 100 0.18 -82 1 1 28 MPI_Reduce_scatter
# 1.5001 x the bound misses: not printed as 1.50
summary_has ' 1\.5001 .*MISS bound <= 1\.5' bcast_f32 \
    $MiB 15.001 100 15 100 0.15001 -85 1 1 10 MPI_Bcast
summary_has 'MISS ratio <= 0\.6' bcast_f32 $MiB 61 100 61 100 0.61 -39 1 1 \
    50 MPI_Bcast
summary_has 'MISS ratio <= 0\.8 \(MPI f32\)' allreduce_bf16 \
    $MiB 81 100 81 100 0.81 -19 1 1 60 MPI_Allreduce
# all_gather from 256 KiB: 1.0 x MPI_Allgather (1.001 misses)
summary_has ' 1\.001 .*MISS ratio <= 1$' allgather_f32_dim0 \
    262144 100.1 100 100 100 1.001 0.1 1 1 30 MPI_Allgather
# from 4 KiB, every row 1.15 x its baseline; below, +0.35 us checked
summary_has 'MISS ratio <= 1\.15' alltoall_f32_s1c0 \
    4096 11.6 10 11 10 1.16 1.6 1 1 0.5 MPI_Alltoall
summary_has 'MISS \+0\.35 us' reduce_scatter_f32_dim0 \
    2048 1.36 1 1.3 1 1.36 0.36 1 1 0.05 MPI_Reduce_scatter_block
summary_has 'targets: 0 checked, 0 missed' allreduce_f32_nocheck \
    2048 1.36 1 1.3 1 1.36 0.36 1 1 0.05 MPI_Allreduce
summary_has 'ok   \+0\.35 us' barrier 0 0.84 0.5 0.8 0.5 1.68 0.34 1 1
summary_has 'MISS \+0\.5 us' barrier_nocheck 0 1.1 0.5 1 0.5 2.2 0.6 1 1

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
