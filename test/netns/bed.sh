# SPDX-License-Identifier: BSD-3-Clause
# A multi-host test bed on one machine, sourced by test/netns/netns-check.sh
# and scripts/bench-multinode.sh. N "hosts" are network namespaces, each
# joined to a switch (a bridge in its own namespace) by a veth pair on the
# private 10.77.0.0/24; host i is 10.77.0.(i+1). An optional rate limit
# (tbf) on both ends of every host's link models a NIC slower than memory:
# each direction of each link carries at most RATE, as on a full-duplex
# network. Open MPI runs over TCP between the hosts and shared memory
# within one (btl tcp,vader,self, as on a cluster), and starts the other
# hosts' daemons through test/netns/rsh-agent.sh. Each host has its own
# hostname (a UTS namespace), as Open MPI needs to tell nodes apart. The
# ranks yield when idle: they outnumber the cores, and a rank that spins
# starves the kernel's TCP processing (doc/reliability.md has the
# figures).
# The caller sets BED_DIR to the absolute path of test/netns before
# sourcing (a sourced script cannot find itself).
#
#   bed_up SLOTS [RATE]   SLOTS: ranks per host, comma-separated ("2,2",
#                         "1,2"); RATE: a tc rate ("1gbit") or empty.
#                         Returns 77 where namespaces cannot be made.
#   bed_mpirun LIMIT ARGS...  mpirun on host 0 under timeout LIMIT (s);
#                         --map-by slot places the ranks in host order.
#   bed_link HOST up|down the link of host HOST (0-based).
#   bed_down              removes everything (callers trap it on EXIT).
# After bed_up: BED_HOSTS (count), BED_NP (ranks), BED_LAYOUT ("2,2"),
# BED_RATE ("none" or the rate), BED_TMP (a private directory).

bed_tag=tcb$$
bed_mpirun_path=""
BED_TMP=""

bed_down() {
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$bed_tag-"); do
        for p in $(ip netns pids "$ns" 2>/dev/null); do
            kill -KILL "$p" 2>/dev/null
        done
        ip netns del "$ns" 2>/dev/null
    done
    [ -n "$BED_TMP" ] && rm -rf "$BED_TMP"
    BED_TMP=""
}

# bed_fail MESSAGE: say why the bed cannot be made, remove what was made.
bed_fail() {
    echo "netns bed: $*; skipped"
    bed_down
    return 77
}

bed_up() {
    BED_LAYOUT=$1
    BED_RATE=${2:-none}
    [ "$(id -u)" -eq 0 ] || { echo "netns bed: needs root; skipped"; return 77; }
    command -v ip >/dev/null || { echo "netns bed: no ip(8); skipped"; return 77; }
    bed_mpirun_path=$(command -v "${MPIRUN:-mpirun}") &&
        "$bed_mpirun_path" --version 2>&1 | grep -q "Open MPI" ||
        { echo "netns bed: ${MPIRUN:-mpirun} is not Open MPI's mpirun; skipped"
          return 77; }
    if [ "$BED_RATE" != none ] && ! command -v tc >/dev/null; then
        echo "netns bed: no tc(8) for the rate limit; skipped"; return 77
    fi
    BED_TMP=$(mktemp -d)
    sw=$bed_tag-sw
    ip netns add "$sw" 2>"$BED_TMP/err" ||
        { bed_fail "cannot create network namespaces ($(cat "$BED_TMP/err"))"; return; }
    ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up ||
        { bed_fail "cannot create a bridge"; return; }
    : >"$BED_TMP/map"
    : >"$BED_TMP/hosts"
    BED_HOSTS=0
    BED_NP=0
    for slots in $(echo "$BED_LAYOUT" | tr ',' ' '); do
        i=$BED_HOSTS
        ns=$bed_tag-h$i addr=10.77.0.$((i + 1))
        ip netns add "$ns" &&
        ip link add "$bed_tag-$i" type veth peer name "$bed_tag-$i-sw" 2>"$BED_TMP/err" ||
            { bed_fail "cannot create a veth pair ($(cat "$BED_TMP/err"))"; return; }
        ip link set "$bed_tag-$i" netns "$ns" &&
        ip link set "$bed_tag-$i-sw" netns "$sw" &&
        ip -n "$sw" link set "$bed_tag-$i-sw" master br0 &&
        ip -n "$sw" link set "$bed_tag-$i-sw" up &&
        ip -n "$ns" addr add "$addr/24" dev "$bed_tag-$i" &&
        ip -n "$ns" link set lo up && ip -n "$ns" link set "$bed_tag-$i" up ||
            { bed_fail "cannot configure host $i's link"; return; }
        if [ "$BED_RATE" != none ]; then
            # burst: one timer tick of the rate at least; latency bounds the queue.
            for end in "$ns $bed_tag-$i" "$sw $bed_tag-$i-sw"; do
                set -- $end
                ip netns exec "$1" tc qdisc add dev "$2" root tbf \
                    rate "$BED_RATE" burst 256kb latency 100ms 2>"$BED_TMP/err" ||
                    { bed_fail "cannot limit the link ($(cat "$BED_TMP/err"))"; return; }
            done
        fi
        echo "$addr $ns" >>"$BED_TMP/map"
        echo "$addr slots=$slots" >>"$BED_TMP/hosts"
        BED_HOSTS=$((BED_HOSTS + 1))
        BED_NP=$((BED_NP + slots))
    done
    export TCOMM_NETNS_MAP="$BED_TMP/map"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    BED_MPIFLAGS="--hostfile $BED_TMP/hosts
 --mca plm_rsh_agent $BED_DIR/rsh-agent.sh --mca plm_rsh_no_tree_spawn 1
 --mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include 10.77.0.0/24
 --mca oob_tcp_if_include 10.77.0.0/24 --mca osc ^ucx --oversubscribe
 --mca mpi_yield_when_idle 1"
    return 0
}

bed_mpirun() {
    limit=$1
    shift
    # shellcheck disable=SC2086
    ip netns exec "$bed_tag-h0" unshare --uts sh -c \
        'hostname "$0" && exec "$@"' "$bed_tag-h0" \
        timeout -k 5 "$limit" "$bed_mpirun_path" $BED_MPIFLAGS "$@"
}

bed_link() {
    ip -n "$bed_tag-h$1" link set "$bed_tag-$1" "$2"
}
