#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The fastest peer (issue 32): from the tables scripts/osu-peer.sh --peer
# writes (bench/results/peers/PEER.txt), per collective and size the
# lowest OSU time among the peers, and tcomm's warm and varying times
# from the first table given (tcomm as built against that peer: its
# default MPI) divided by it. Across peers only the OSU columns compare;
# tcomm is measured once, in its own build.
#
# usage: peer-fastest.sh TABLE [TABLE...]
set -eu
[ $# -ge 1 ] || { echo "usage: peer-fastest.sh TABLE [TABLE...]" >&2; exit 2; }
awk '
    FNR == 1 { file++; name = FILENAME; sub(/.*\//, "", name)
               sub(/\.txt$/, "", name) }
    /^# peer [^ ]*:/ && FNR <= 2 { name = $3; sub(/:$/, "", name) }
    FNR == 1 || (/^# peer [^ ]*:/ && FNR <= 2) { names[file] = name }
    /^#/ || NF < 5 || $2 !~ /^[0-9]+$/ { next }
    {
        k = $1 SUBSEP $2
        if (file == 1) { t[k] = $4; v[k] = $5; order[++n] = k }
        if (!(k in best) || $3 < best[k]) { best[k] = $3; who[k] = name }
    }
    END {
        all = names[1]
        for (i = 2; i <= file; i++) all = all " " names[i]
        print "# fastest of: " all "; tcomm: built against " names[1]
        printf "%-15s %9s %-7s %11s %11s %11s %7s %7s\n", "# collective",
               "size", "peer", "OSU us", "tcomm us", "tcomm v us", "ratio",
               "ratio v"
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, cs, SUBSEP); o = best[k]
            printf "%-15s %9d %-7s %11.2f %11.2f %11.2f %7.3f %7.3f\n",
                   cs[1], cs[2], who[k], o, t[k], v[k],
                   (o > 0 ? t[k] / o : 0), (o > 0 ? v[k] / o : 0)
        }
    }' "$@"
