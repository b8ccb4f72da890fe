#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tcomm side by side with the OSU Micro-Benchmarks (issue 18): for each of
# allreduce, reduce_scatter, allgather, bcast, alltoall and alltoallv,
# OSU's osu_<coll> and tcomm's osu_tcomm_<coll> (alltoallv:
# osu_tcomm_alltoall --uneven, the same bytes per peer on average as
# OSU's equal counts) alternate, OSU_ROUNDS rounds each, on the same
# sizes and ranks with the same iteration counts, and the table gives per
# size the best Avg latency (us; both print OSU's Avg: the mean of calls
# that each start after a barrier) of each over the rounds and tcomm /
# OSU. OSU is not part of tcomm: build it anywhere outside this tree
# (./configure CC=mpicc && make, or mpicc its mpi/collective sources) and
# pass the directory that holds its programs.
# OSU's loop reuses one buffer every call (its data stays in the caches
# and a peer's input stays in a rank's cache), and OSU 7.4 has no option
# to vary it: the table's OSU column is warm only. tcomm runs both ways,
# warm ("tcomm us", the same loop as OSU's) and with --vary ("tcomm v
# us": new input before every call, outside the timed region), so that
# "ratio v" sets tcomm's varying time against OSU's warm one: a ratio
# against a peer that keeps its cache advantage (issue 32).
#
# With --peer, the script takes the MPI to compare with and builds both
# sides against it, out of this tree (scripts/peer-setup.sh says which
# peers and where): each peer's table is printed and written to
# bench/results/peers/<peer>.txt, or why it did not run. With several,
# the fastest of them per size (scripts/peer-fastest.sh) against tcomm
# built with the first that ran, in bench/results/peers/fastest.txt.
#
# usage: osu-peer.sh OSU_DIR [BINDIR]
#        osu-peer.sh --peer PEER[,PEER...]|all [--dry-run]   (OSU_SRC set)
# PEER: ompi4 mpich4 impi ompi5 mpich5. --dry-run: say what each peer
# would use (compiler, launcher, cache), install, build and run nothing.
# environment: MPIRUN (OSU_DIR form), BENCH_NP (2), OSU_SIZES
#              (1048576:16777216), OSU_ROUNDS (2), OSU_ITERS (100),
#              OSU_WARMUP (10); --peer: OSU_SRC, PEERS_CACHE, PEER_JOBS,
#              PEER_PIP_FLAGS, PEER_LOG_LINES (peer-setup.sh)
set -eu

usage="usage: osu-peer.sh OSU_DIR [BINDIR] | --peer PEER[,PEER...]|all [--dry-run]"
src=$(cd "$(dirname "$0")/.." && pwd)
np=${BENCH_NP:-2}
sizes=${OSU_SIZES:-1048576:16777216}
rounds=${OSU_ROUNDS:-2}
iters=${OSU_ITERS:-100}
warmup=${OSU_WARMUP:-10}
peers="" dry=""
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --peer) peers=${2:?$usage}; shift 2 ;;
    --peer=*) peers=${1#--peer=}; shift ;;
    --dry-run) dry=1; shift ;;
    -*) echo "osu-peer.sh: unknown option $1; $usage" >&2; exit 2 ;;
    *) break ;;
    esac
done

if [ -n "$peers" ]; then
    # shellcheck source=scripts/peer-setup.sh
    . "$src/scripts/peer-setup.sh"
    [ "$peers" = all ] && peers=$peer_names
    peers=$(echo "$peers" | tr ',' ' ')
    # shellcheck disable=SC2086
    set -- $peers
    if [ $# -gt 1 ]; then
        # one run per peer, so that one that fails leaves the others
        ran="" failed=""
        for p in $peers; do
            if sh "$0" --peer "$p" ${dry:+--dry-run}; then ran="$ran $p"
            else failed="$failed $p"; fi
        done
        echo "# peers run:${ran:- none}; did not run:${failed:- none}"
        if [ -z "$dry" ] && [ -n "$ran" ]; then
            # the fastest of them, against tcomm built with the first
            tables=""
            for p in $ran; do tables="$tables $src/bench/results/peers/$p.txt"; done
            # shellcheck disable=SC2086
            sh "$src/scripts/peer-fastest.sh" $tables |
                tee "$src/bench/results/peers/fastest.txt"
        fi
        [ -z "$failed" ]
        exit
    fi
    peer_define "$1"
    peer_out=$src/bench/results/peers/$peer.txt
    if [ -n "$dry" ]; then
        echo "peer $peer: CC=$peer_cc launcher: $peer_run $peer_flags;" \
            "pip: ${peer_pkgs:-none, Debian packages}; builds in $peer_dir;" \
            "table: $peer_out"
        exit 0
    fi
    osu_src=${OSU_SRC:?osu-peer.sh --peer: set OSU_SRC to an OSU 7.x source tree}
    mkdir -p "$src/bench/results/peers"
    peer_install
    peer_probe
    peer_build_osu
    peer_build_tcomm
    mpirun=$peer_run mpiflags=$peer_flags
else
    osu=${1:?$usage}
    bindir=${2:-bench}
    mpirun=${MPIRUN:-mpirun}
    mpiflags=""
    if "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
        mpiflags="--oversubscribe"
        [ "$(id -u)" -eq 0 ] && mpiflags="$mpiflags --allow-run-as-root"
    fi
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-osu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The OSU program, wherever its build put it (the directory itself, the
# 5.x tree or the 7.x tree).
osu_prog() {
    for d in "$osu" "$osu/mpi/collective" "$osu/c/mpi/collective/blocking"; do
        if [ -x "$d/osu_$1" ]; then
            echo "$d/osu_$1"
            return 0
        fi
    done
    echo "osu-peer.sh: no osu_$1 under $osu" >&2
    return 1
}

# rows FILE: "size avg" of an OSU-layout table
rows() {
    awk '!/^#/ && NF >= 2 && $1 ~ /^[0-9]+$/ { print $1, $2 }' "$1"
}

# run NAME PROGRAM ARGS...: one run under the launcher, its rows appended
# to $tmp/NAME; a run that fails stops the table with its output's end.
run() {
    name=$1
    shift
    # shellcheck disable=SC2086
    "$mpirun" $mpiflags -np "$np" "$@" >"$tmp/out" 2>&1 || {
        echo "osu-peer.sh: failed: $mpirun $mpiflags -np $np $*" >&2
        tail -n 8 "$tmp/out" >&2
        return 1
    }
    rows "$tmp/out" >>"$tmp/$name"
}

# when, and how loaded the shared machine was (at the start and the end)
stamp() {
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uptime | sed 's/.*load/load/')"
}

table() {
echo "# tcomm / OSU, $np ranks, -m $sizes -i $iters -x $warmup, best Avg" \
    "of $rounds alternating rounds, $(stamp)"
printf '%-15s %9s %11s %11s %11s %7s %7s\n' "# collective" size \
    "OSU us" "tcomm us" "tcomm v us" ratio "ratio v"
for c in allreduce reduce_scatter allgather bcast alltoall alltoallv; do
    prog=$(osu_prog "$c") || return 1
    tprog=$c extra=""
    [ "$c" = alltoallv ] && tprog=alltoall extra=--uneven
    : > "$tmp/osu" && : > "$tmp/tcomm" && : > "$tmp/vary"
    for r in $(seq "$rounds"); do
        run osu "$prog" -m "$sizes" -i "$iters" -x "$warmup" || return 1
        # shellcheck disable=SC2086
        run tcomm "$bindir/osu_tcomm_$tprog" $extra -m "$sizes" \
            -i "$iters" -x "$warmup" || return 1
        # shellcheck disable=SC2086
        run vary "$bindir/osu_tcomm_$tprog" $extra --vary -m "$sizes" \
            -i "$iters" -x "$warmup" || return 1
    done
    awk -v c="$c" 'FNR == 1 { side++ }
        { if (!(($1, side) in best) || $2 < best[$1, side])
              best[$1, side] = $2
          if (side == 1 && !($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
        END { for (i = 1; i <= n; i++) {
                  s = order[i]; o = best[s, 1]; t = best[s, 2]
                  v = best[s, 3]
                  printf "%-15s %9d %11.2f %11.2f %11.2f %7.3f %7.3f\n", c,
                         s, o, t, v, (o > 0 ? t / o : 0),
                         (o > 0 ? v / o : 0) } }' \
        "$tmp/osu" "$tmp/tcomm" "$tmp/vary"
done
echo "# end: $(stamp)"
}

if [ -n "$peers" ]; then
    { echo "# peer $peer: $peer_lib; tcomm and OSU built with $peer_cc," \
          "run with $peer_run $peer_flags"
      table 2>"$tmp/err"; } >"$tmp/table" ||
        peer_fail "a run of the table" "$tmp/err"
    cat "$tmp/table"
    cp "$tmp/table" "$peer_out"
else
    table
fi
