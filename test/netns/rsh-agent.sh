#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's remote launch agent for test/netns/netns-check.sh
# (--mca plm_rsh_agent): "rsh-agent.sh [options] HOST COMMAND..." runs
# COMMAND in the network namespace that $TCOMM_NETNS_MAP lists for HOST
# (lines "HOST NAMESPACE"), with that name as its hostname, as ssh would
# run it on that host.
set -eu
while [ $# -gt 0 ]; do
    case "$1" in
        -*) shift ;;  # ssh-style options Open MPI may add
        *) break ;;
    esac
done
host=$1
shift
ns=$(awk -v h="$host" '$1 == h { print $2 }' "${TCOMM_NETNS_MAP:?}")
[ -n "$ns" ] || { echo "rsh-agent: unknown host $host" >&2; exit 1; }
# Its own hostname too (a UTS namespace), as a real host has: Open MPI
# tells which ranks share a node partly by hostname, and with one name
# for all hosts MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gave ranks
# groups that disagreed, and crashed.
exec ip netns exec "$ns" unshare --uts /bin/sh -c "hostname $ns && $*"
