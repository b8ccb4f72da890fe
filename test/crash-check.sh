#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Crash: a rank killed with SIGKILL in the middle of a run of collectives
# (test/soak at 3 ranks, TCOMM_TIMEOUT=2). The job must end within
# TCOMM_TIMEOUT plus a few seconds with a non-zero status and a message
# naming the lost rank, and no rank may be left running. Two cases:
#  default   mpirun sees rank 1 die and ends the job itself ("mpirun
#            noticed that process rank 1 ... exited on signal 9");
#  recovery  mpirun --enable-recovery keeps the survivors running, so
#            they are left waiting in a collective for a dead peer:
#            tcomm's TCOMM_TIMEOUT must end the wait on every survivor
#            (TCOMM_ERR_TIMEOUT, or TCOMM_ERR_COMM_FAILED naming the rank
#            that gave up first) and the survivors exit. tcomm names
#            rank 1 ("rank 1 has not arrived") when it died between two
#            calls; when it died inside a call that every rank had
#            entered, the message says so instead ("every rank entered
#            it but it did not complete"). mpirun --enable-recovery itself
#            exits with status 0 there, so the status is not checked.
set -u
b=${TCOMM_BUILDDIR:-.}
prog=$b/test/soak
mpirun=${MPIRUN:-mpirun}
[ -x "$prog" ] || { echo "crash-check: no $prog" >&2; exit 99; }
# The cases use Open MPI's launcher (--oversubscribe, --enable-recovery).
if ! "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
    echo "crash-check: $mpirun is not Open MPI's mpirun; skipped"
    exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=2       # TCOMM_TIMEOUT
SLACK=5   # seconds allowed beyond it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

run_case() {
    name=$1; shift
    rm -f "$tmp"/pid.*
    TCOMM_TIMEOUT=$T SOAK_PIDFILE="$tmp/pid" SOAK_RSS_CHECK=0 \
        timeout -k 5 90 "$mpirun" --oversubscribe -np 3 "$@" \
        "$prog" 100000000 7 65536 >"$tmp/out.$name" 2>&1 &
    job=$!
    i=0 # wait until all three ranks run, then let them work
    while [ $i -lt 300 ] && ! { [ -s "$tmp/pid.0" ] && [ -s "$tmp/pid.1" ] \
            && [ -s "$tmp/pid.2" ]; }; do
        sleep 0.1; i=$((i + 1))
    done
    if [ ! -s "$tmp/pid.1" ]; then
        echo "crash-check $name: the ranks did not start"; cat "$tmp/out.$name"
        fails=$((fails + 1)); wait $job; return
    fi
    sleep 1.5
    pids="$(cat "$tmp/pid.0" "$tmp/pid.1" "$tmp/pid.2")"
    t0=$(now_ms)
    kill -KILL "$(cat "$tmp/pid.1")"
    wait $job; rc=$?
    ms=$(( $(now_ms) - t0 ))
    left=""
    i=0 # the survivors may take a moment to go after mpirun
    while [ $i -lt 30 ]; do
        left=""
        for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
        [ -z "$left" ] && break
        sleep 0.1; i=$((i + 1))
    done
    gone=$(( $(now_ms) - t0 ))
    named=no
    grep -Eq "rank 1 has not arrived|process rank 1 " "$tmp/out.$name" &&
        named=yes
    echo "crash-check $name: rank 1 killed; mpirun ended after $ms ms" \
         "with status $rc, every rank gone after $gone ms; lost rank" \
         "named: $named; ranks left: ${left:-none}"
    grep -E "fatal:|noticed" "$tmp/out.$name" | head -4 | cut -c1-240 |
        sed 's/^/  | /'
    bad=""
    [ $gone -gt $(( (T + SLACK) * 1000 )) ] && bad="$bad too-slow"
    [ -n "$left" ] && bad="$bad ranks-left"
    [ $rc -eq 124 ] && bad="$bad test-timeout"
    if [ "$name" = default ]; then
        [ $rc -eq 0 ] && bad="$bad status-0"
        [ $named = no ] && bad="$bad rank-not-named"
    else
        n=$(grep -Ec "soak rank [02]: fatal: (timeout|communicator failed)" \
            "$tmp/out.$name")
        [ "$n" -lt 2 ] && bad="$bad survivors-did-not-report"
    fi
    if [ -n "$bad" ]; then
        echo "crash-check $name: FAIL:$bad"
        sed 's/^/  > /' "$tmp/out.$name" | tail -30
        for p in $left; do kill -KILL "$p" 2>/dev/null; done
        fails=$((fails + 1))
    fi
}

run_case default
# Open MPI 4.1.4's --enable-recovery sometimes leaves mpirun stuck after
# "PMIX ERROR: BAD-PARAM" (seen in 2 of 4 CI runs on a loaded machine), a
# launcher fault that this test cannot tell from a tcomm hang: the case
# runs on request: TCOMM_CRASH_RECOVERY=1 test/crash-check.sh.
if [ "${TCOMM_CRASH_RECOVERY:-0}" = 1 ]; then
    run_case recovery --enable-recovery
else
    echo "crash-check recovery: not run (TCOMM_CRASH_RECOVERY=1 runs it)"
fi
[ $fails -eq 0 ] && echo "crash-check: PASS" || echo "crash-check: FAIL"
exit $(( fails ? 1 : 0 ))
