#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's remote launch agent for test/netns/netns-check.sh
# (--mca plm_rsh_agent): "rsh-agent.sh [options] HOST COMMAND..." runs
# COMMAND in the network namespace that $TCOMM_NETNS_MAP lists for HOST
# (lines "HOST NAMESPACE"), as ssh would run it on that host.
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
exec ip netns exec "$ns" /bin/sh -c "$*"
