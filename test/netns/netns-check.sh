#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Multi-host over network namespaces: "hosts" of the bed test/netns/bed.sh
# (namespaces joined by a bridge on the private 10.77.0.0/24, created
# here and removed on exit), Open MPI over TCP between them
# (test/netns/rsh-agent.sh launches the remote daemons with `ip netns
# exec`). Runs, with two ranks on each of two hosts
#  1. the MPI correctness suite (test/mpi_collectives) at 4 ranks, two per
#     host, every rank's traffic over TCP (btl tcp,self);
#  2. the harness (osu_tcomm_allreduce and _allgather with -c) at 2 ranks,
#     one per host;
#  3. link down: test/soak at 2 ranks (one per host, TCOMM_TIMEOUT=3),
#     checked barriers only (SOAK_BARRIERS_ONLY=1: a checked barrier is
#     the agreement's exchange, which TCOMM_TIMEOUT bounds; the data
#     transfer of other collectives it does not, and Open MPI's TCP
#     transport can wait for ever when a link drops in the middle of
#     one: that hung this case about one run in six while it soaked
#     every collective); after 3 s the link goes down. The ranks must
#     report an error (TCOMM_ERR_TIMEOUT or TCOMM_ERR_MPI) or the job
#     must end with one within TCOMM_TIMEOUT plus 10 s, not hang. If
#     mpirun itself is still waiting for the unreachable daemon after
#     that, the link comes back up so that it can end (reported, not a
#     failure: the ranks did);
#  4. link cut during a transfer: test/mpi_link_cut at 2 x 2 ranks, links
#     limited to 100 Mbit/s, one two-level collective at a time; the
#     second host's link goes down during a call, and every rank must
#     fail within TCOMM_TIMEOUT (the step across nodes is bounded there,
#     src/mpi/hier_cross.c);
#  5. uneven hosts: the suite and test/mpi_hier at 3 ranks, one on the
#     first host and two on the second.
# Between 1 and 2, the two-level collectives (test/mpi_hier at 2 x 2 ranks
# by host and round robin, with the paths they must take, and again under
# TCOMM_TIMEOUT in pieces; test/mpi_mismatch
# and test/mpi_nonblocking across the hosts).
# Each mpirun has a time limit (timeout(1)) some 3x what it took on a
# loaded 2-core machine, so that a hang costs CI minutes, not the run; a
# failure names the exit status (124: the limit) and is listed again at
# the end.
# Exit 77 (skip) where namespaces cannot be made (not root, no `ip`, a
# sandbox that forbids them) or TCOMM_SKIP_NETNS=1.
set -u
[ "${TCOMM_SKIP_NETNS:-0}" = 1 ] && { echo "netns: skipped"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "netns: needs root; skipped"; exit 77; }
command -v ip >/dev/null || { echo "netns: no ip(8); skipped"; exit 77; }
b=${TCOMM_BUILDDIR:-.}
case "$b" in /*) ;; *) b=$(pwd)/$b ;; esac
BED_DIR=$(cd "$(dirname "$0")" && pwd)
for p in test/mpi_collectives test/mpi_hier test/mpi_mismatch test/mpi_eager_net \
         test/mpi_nonblocking test/soak test/mpi_link_cut \
         bench/osu_tcomm_allreduce \
         bench/osu_tcomm_allgather; do
    [ -x "$b/$p" ] || { echo "netns: no $b/$p" >&2; exit 99; }
done
. "$BED_DIR/bed.sh"
export CK_FORK=no

# bed LAYOUT: a fresh bed (test/netns/bed.sh) or the skip.
bed() { # LAYOUT [RATE]
    bed_down
    bed_up "$1" "${2:-}"
    rc=$?
    [ $rc -eq 0 ] || exit $rc
}
on_h0() { bed_mpirun "$@"; }
tmp=$(mktemp -d)
trap 'bed_down; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
bed 2,2

fails=0
failed=""
step() { echo "netns: $*"; }
# a failure: reported where it happens and listed again at the end, where
# a log's tail (CI shows only that) still names it
fail() {
    step "$*"
    failed="$failed
netns:   $*"
    fails=$((fails + 1))
}
status_of() { # STATUS LIMIT: an mpirun's exit status, in words
    if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
        echo "status $1: still running after its limit of $2 s"
    else
        echo "status $1"
    fi
}

# 0. where the ranks run: each prints its address
on_h0 60 -np 2 --map-by node sh -c 'ip -o -4 addr show | grep -o "10.77.0.[0-9]*"' \
    >"$tmp/where" 2>&1
sort "$tmp/where" | tr '\n' ' ' | sed 's/^/netns: ranks on /; s/$/\n/'
grep -q 10.77.0.1 "$tmp/where" && grep -q 10.77.0.2 "$tmp/where" ||
    { echo "netns: FAIL: could not start one rank per host"; cat "$tmp/where";
      exit 1; }

suite() { # NAME LIMIT MPIRUN-ARGS...: runs and reports one program
    name=$1
    shift
    t0=$(date +%s)
    if on_h0 "$@" >"$tmp/out" 2>&1; then
        step "$name: PASS ($(( $(date +%s) - t0 )) s;" \
             "$(grep -o 'mpi_hier: [0-9]* checks, [0-9]* failures\|[0-9]*%: Checks: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' "$tmp/out" | head -1))"
    else
        fail "$name: FAIL ($(status_of $? "$1"))"; tail -30 "$tmp/out"
    fi
}

# 1. the correctness suite across the hosts
suite "mpi_collectives at 4 ranks on 2 hosts over TCP" 240 -np 4 \
    --map-by node "$b/test/mpi_collectives"

# 1b. the two-level collectives (src/mpi/hier_colls.c): sizes, memory
# kinds, deterministic mode; ranks by host and round robin; the paths
# taken must be the two-level ones; disagreeing ranks and nonblocking
# calls across hosts.
suite "mpi_hier at 2 x 2 ranks by host" 180 -np 4 --map-by slot \
    -x TCOMM_DEBUG=INFO "$b/test/mpi_hier"
taken() { # the paths the last suite must have taken (two levels; small
    # calls completed in the agreement's round across hosts)
    for p in "$@"; do
        grep -q "path=$p\]" "$tmp/out" ||
            fail "FAIL: path $p not taken"
    done
}
taken hier_all_reduce hier_reduce_scatter hier_all_gather hier_reduce hier_barrier eager
suite "mpi_hier at 2 x 2 ranks round robin" 180 -np 4 --map-by node \
    -x TCOMM_DEBUG=INFO "$b/test/mpi_hier"
taken hier_all_reduce hier_broadcast hier_reduce hier_barrier eager
# under TCOMM_TIMEOUT the step across nodes is the bounded one
# (src/mpi/hier_cross.c), here in pieces of at most 4099 elements
for map in slot node; do
    suite "mpi_hier at 2 x 2 ranks ($map), TCOMM_TIMEOUT, pieces" 180 \
        -np 4 --map-by $map -x TCOMM_TIMEOUT=60 -x MPI_HIER_COUNT_LIMIT=4099 \
        -x TCOMM_DEBUG=INFO "$b/test/mpi_hier"
    [ $map = slot ] && taken hier_all_reduce hier_reduce_scatter hier_all_gather \
        hier_reduce
    [ $map = node ] && taken hier_all_reduce hier_broadcast hier_reduce
done
# the agreement's carrying round across hosts (src/mpi/carry_round.c):
# the carried calls and the room's rules, ranks round robin
suite "mpi_eager_net at 2 x 2 ranks round robin" 180 -np 4 --map-by node \
    "$b/test/mpi_eager_net"
suite "mpi_mismatch at 2 x 2 ranks" 180 -np 4 --map-by slot \
    "$b/test/mpi_mismatch"
suite "mpi_nonblocking at 2 x 2 ranks" 180 -np 4 --map-by slot \
    "$b/test/mpi_nonblocking"

# 2. the harness across the hosts
lim=120
for c in allreduce allgather; do
    if on_h0 $lim -np 2 --map-by node "$b/bench/osu_tcomm_$c" -c -m 4:64K \
        -i 20 -x 5 >"$tmp/bench" 2>&1; then
        step "osu_tcomm_$c -c at 2 ranks on 2 hosts: PASS; 64 KiB:" \
             "$(grep -E '^65536 ' "$tmp/bench" | tr -s ' ' | head -1)"
    else
        fail "osu_tcomm_$c across hosts: FAIL ($(status_of $? $lim))"
        tail -20 "$tmp/bench"
    fi
done

# 3. link down in the middle of a run of collectives
T=3
SLACK=10
TCOMM_TIMEOUT=$T SOAK_BARRIERS_ONLY=1 on_h0 120 -x TCOMM_TIMEOUT \
    -x SOAK_BARRIERS_ONLY -np 2 --map-by node "$b/test/soak" 100000000 \
    >"$tmp/down" 2>&1 &
job=$!
sleep 3
if ! kill -0 $job 2>/dev/null; then
    step "link down: FAIL: the job ended before the link went down"
    cat "$tmp/down"; exit 1
fi
t0=$(date +%s%N)
bed_link 1 down
reported=""
ended=""
i=0
while [ $i -lt $(( (T + SLACK) * 10 )) ]; do
    if [ -z "$reported" ] &&
       grep -Eq "fatal:|ERROR|noticed|aborted|lost" "$tmp/down"; then
        reported=$(( ($(date +%s%N) - t0) / 1000000 ))
    fi
    if ! kill -0 $job 2>/dev/null; then
        ended=$(( ($(date +%s%N) - t0) / 1000000 )); break
    fi
    sleep 0.1
    i=$((i + 1))
done
restored=no
if [ -z "$ended" ]; then
    # The ranks have spoken (or not); let mpirun reach its daemon again.
    bed_link 1 up
    restored=yes
fi
wait $job
rc=$?
[ -n "$ended" ] || ended=$(( ($(date +%s%N) - t0) / 1000000 ))
# A rank on the far host reports through its daemon, over the link that is
# down: its words reach mpirun only once the link is back.
if [ -z "$reported" ] && grep -Eq "fatal:|ERROR|noticed|aborted|lost" "$tmp/down"; then
    reported="(after the link came back) $ended"
fi
step "link down after 3 s of checked barriers (TCOMM_TIMEOUT=$T): first error report" \
     "after ${reported:-none} ms, job ended after $ended ms with status $rc" \
     "(link restored for mpirun's cleanup: $restored)"
grep -E "fatal:|noticed|aborted" "$tmp/down" | head -4 | sed 's/^/  | /'
if [ -z "$reported" ] || [ $rc -eq 0 ]; then
    fail "link down: FAIL: no rank reported an error within $((T + SLACK)) s"
    tail -20 "$tmp/down"
fi
# A timeout names the ranks it could not query and their host.
if grep -q "timeout" "$tmp/down" &&
   ! grep -Eq "not sharing memory with this one: rank [0-9]+ on $bed_tag-h[01]" \
       "$tmp/down"; then
    fail "link down: FAIL: the timeout does not name the other host's rank"
    grep -E "timeout" "$tmp/down" | head -4 | cut -c1-400
fi
# 4. a link cut during the two-level calls' data transfer: 2 x 2 ranks,
# links of RATE so that the step across nodes is most of a call's time
# (8 MiB: 0.7 s at 100 Mbit/s against 1-2 ms of agreement and node
# copies); every rank must fail within TCOMM_TIMEOUT (+ SLACK_CUT s for a
# loaded machine), and some rank's error must name the step across nodes.
SLACK_CUT=3
cut_case() { # COLL MAP [RETRY]
    d=$tmp/cut-$1
    rm -rf "$d"; mkdir -p "$d"; chmod 777 "$d"
    TCOMM_TIMEOUT=$T on_h0 150 -x TCOMM_TIMEOUT -np 4 --map-by "$2" \
        "$b/test/mpi_link_cut" "$1" 8388608 "$d" >"$d/out" 2>&1 &
    job=$!
    i=0
    while [ ! -e "$d/ready" ] && [ $i -lt 600 ] && kill -0 $job 2>/dev/null; do
        sleep 0.1; i=$((i + 1))
    done
    if [ ! -e "$d/ready" ]; then
        fail "link cut in $1: FAIL: not ready"; tail -20 "$d/out"
        cat "$d"/rank.* 2>/dev/null; bed_link 1 up
        wait $job; return
    fi
    sleep 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 9 + 1 )) # anywhere in a call
    bed_link 1 down
    sleep $((T + SLACK_CUT + 1))
    bed_link 1 up # mpirun's daemons talk again; the ranks have left
    wait $job
    rc=$?
    late=$(awk -v lim=$((T + SLACK_CUT)) '
        / failed after / { for (i = 1; i < NF; i++)
            if ($i == "after" && $(i + 1) + 0 > lim) print $1, $2 }' \
        "$d"/rank.* 2>/dev/null)
    n=$(cat "$d"/rank.* 2>/dev/null | grep -c " failed after ")
    # every rank failed in time, but the cut fell between two calls (in
    # the next one's agreement round): cut once more, inside a call
    if [ "$n" -eq 4 ] && [ -z "$late" ] && [ "$rc" -ne 0 ] && [ -z "${3:-}" ] &&
       ! grep -q "in the step across nodes" "$d"/rank.*; then
        step "link cut in $1 ($2): every rank failed in time, none in the" \
             "step across nodes: once more"
        cut -c1-160 "$d"/rank.* | sed 's/^/  | /'
        cut_case "$1" "$2" retry
        return
    fi
    if [ "$n" -ne 4 ] || [ -n "$late" ] || [ "$rc" -eq 0 ] ||
       ! grep -q "in the step across nodes" "$d"/rank.*; then
        fail "link cut in $1 ($2): FAIL: $n of 4 ranks failed in time" \
             "(late: ${late:-none}; job status $rc)"
        cat "$d"/rank.* 2>/dev/null; tail -20 "$d/out"
    else
        step "link cut in $1 ($2): every rank failed within ${T} s +" \
             "$SLACK_CUT: $(grep -ho 'after [0-9.]* s' "$d"/rank.* |
                            tr '\n' ' ')"
        grep -h "step across nodes" "$d"/rank.* | head -1 | cut -c1-240 |
            sed 's/^/  | /'
    fi
}
bed 2,2 100mbit
for c in all_reduce reduce_scatter all_gather reduce; do
    cut_case $c slot
done
cut_case broadcast node

# 5. uneven hosts: one rank on the first, two on the second
bed 1,2
suite "mpi_collectives at 1 + 2 ranks" 240 -np 3 --map-by slot \
    "$b/test/mpi_collectives"
suite "mpi_hier at 1 + 2 ranks" 180 -np 3 --map-by slot \
    -x TCOMM_DEBUG=INFO "$b/test/mpi_hier"
taken hier_all_reduce_leaders hier_reduce hier_barrier
suite "mpi_eager_net at 1 + 2 ranks" 180 -np 3 --map-by slot \
    "$b/test/mpi_eager_net"
suite "mpi_hier at 1 + 2 ranks, TCOMM_TIMEOUT, pieces" 180 -np 3 \
    --map-by slot -x TCOMM_TIMEOUT=60 -x MPI_HIER_COUNT_LIMIT=4099 \
    -x TCOMM_DEBUG=INFO "$b/test/mpi_hier"
taken hier_all_reduce_leaders hier_reduce
[ $fails -eq 0 ] && step PASS || step "FAIL ($fails):$failed"
exit $(( fails ? 1 : 0 ))
