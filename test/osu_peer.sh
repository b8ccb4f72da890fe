#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scripts/osu-peer.sh without an MPI, a network or OSU (issue 32): fake
# OSU and harness programs and a launcher that only runs its program.
# - the table takes each side's best Avg over the rounds and divides
#   tcomm's warm and varying times by OSU's (values set here, so the
#   ratios are known: 50/100 and 75/100 at 1 MiB, 300/200 and 500/200 at
#   2 MiB) for every collective, alltoallv from osu_tcomm_alltoall
#   --uneven;
# - a run that fails stops the script non-zero, naming the command;
# - --peer: --dry-run says each peer's compiler and launcher and
#   installs, builds and writes nothing; an unknown peer and a missing
#   OSU_SRC are refused with what to pass instead.
set -u
script="$(dirname "$0")/../scripts/osu-peer.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-osu-peer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

mkdir -p "$tmp/osu" "$tmp/bin"
# a fake program NAME prints an OSU-layout table; its Avg per size comes
# from the arguments it was given (rounds: the second round is slower,
# so the best must be the first)
fake() {
    cat > "$1" <<EOF
#!/bin/sh
f="$tmp/calls.\$(echo "\$0 \$*" | cksum | cut -d' ' -f1)"
n=\$(cat "\$f" 2>/dev/null || echo 0)
echo \$((n + 1)) > "\$f"
echo "\$0 \$*" >> "$tmp/args"
echo "# OSU MPI Latency Test"
echo "# Size       Avg Latency(us)"
case "\$*" in *--vary*) a=$4 b=$5 ;; *) a=$2 b=$3 ;; esac
echo "1048576 \$((a + n * 7)).00"
echo "2097152 \$((b + n * 7)).00"
EOF
    chmod +x "$1"
}
for c in allreduce reduce_scatter allgather bcast alltoall alltoallv; do
    fake "$tmp/osu/osu_$c" 100 200 100 200
done
for c in allreduce reduce_scatter allgather bcast alltoall; do
    fake "$tmp/bin/osu_tcomm_$c" 50 300 75 500
done
cat > "$tmp/launch" <<'EOF'
#!/bin/sh
# a launcher that runs its program once: -np N PROGRAM ARGS...
shift 2
exec "$@"
EOF
chmod +x "$tmp/launch"

MPIRUN=$tmp/launch OSU_ROUNDS=2 sh "$script" "$tmp/osu" "$tmp/bin" \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "osu-peer.sh exited $rc: $(cat "$tmp/err")"
for c in allreduce reduce_scatter allgather bcast alltoall alltoallv; do
    row1=$(awk -v c="$c" '$1 == c && $2 == 1048576' "$tmp/out")
    row2=$(awk -v c="$c" '$1 == c && $2 == 2097152' "$tmp/out")
    echo "$row1" | grep -Eq " 100\.00 +50\.00 +75\.00 +0\.500 +0\.750$" ||
        fail "$c 1 MiB: want 100.00 50.00 75.00 0.500 0.750, got '$row1'"
    echo "$row2" | grep -Eq " 200\.00 +300\.00 +500\.00 +1\.500 +2\.500$" ||
        fail "$c 2 MiB: want 200.00 300.00 500.00 1.500 2.500, got '$row2'"
done
n=$(grep -c -- "osu_tcomm_alltoall --uneven" "$tmp/args")
[ "$n" -eq 4 ] || fail "alltoallv: $n runs of osu_tcomm_alltoall --uneven, want 4 (2 rounds, warm and --vary)"
echo "ok: the table ($(grep -c '^[a-z]' "$tmp/out") rows)"

# a failing run: the script stops non-zero and names it
printf '#!/bin/sh\necho "bcast broke" >&2\nexit 3\n' > "$tmp/osu/osu_bcast"
MPIRUN=$tmp/launch sh "$script" "$tmp/osu" "$tmp/bin" \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -ne 0 ] || fail "a failing osu_bcast: exit 0"
{ grep -q "failed: .*osu_bcast" "$tmp/err" && grep -q "bcast broke" "$tmp/err"; } ||
    fail "a failing osu_bcast: stderr does not name it: $(cat "$tmp/err")"
echo "ok: a failing run stops the script ($rc)"

# --peer
export PEERS_CACHE="$tmp/cache"
sh "$script" --peer all --dry-run > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "--peer all --dry-run exited $rc: $(cat "$tmp/err")"
grep -q "^peer ompi4: CC=mpicc.openmpi launcher: mpirun.openmpi --oversubscribe" \
    "$tmp/out" || fail "--dry-run: ompi4's line: $(grep ompi4 "$tmp/out")"
grep -q "^peer mpich4: CC=mpicc.mpich launcher: mpiexec.mpich" "$tmp/out" ||
    fail "--dry-run: mpich4's line: $(grep mpich4 "$tmp/out")"
for p in impi ompi5 mpich5; do
    grep -q "^peer $p: CC=$tmp/cache/$p/venv/bin/mpicc .*pip: " "$tmp/out" ||
        fail "--dry-run: $p's line: $(grep "peer $p" "$tmp/out")"
done
[ ! -e "$tmp/cache" ] || fail "--dry-run made $tmp/cache"
echo "ok: --peer all --dry-run"

OSU_SRC='' sh "$script" --peer ompi4,nonesuch > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -ne 0 ] || fail "an unknown peer: exit 0"
grep -q "unknown peer 'nonesuch': use one of ompi4 mpich4 impi ompi5 mpich5" \
    "$tmp/err" || fail "an unknown peer: $(cat "$tmp/err")"
echo "ok: an unknown peer is refused ($rc)"

OSU_SRC='' sh "$script" --peer mpich4 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -ne 0 ] || fail "no OSU_SRC: exit 0"
grep -q "set OSU_SRC" "$tmp/err" || fail "no OSU_SRC: $(cat "$tmp/err")"
echo "ok: no OSU_SRC is refused ($rc)"

# the fastest peer: per collective and size the lowest OSU time of the
# peers' tables, against tcomm's times from the first table given
fastest="$(dirname "$0")/../scripts/peer-fastest.sh"
row() { printf '%-15s %9d %11.2f %11.2f %11.2f %7.3f %7.3f\n' "$@"; }
{ echo "# peer ompi4: Open MPI v4.1.4; tcomm and OSU built with mpicc"
  row allreduce 1048576 400 100 120 0.25 0.3
  row allreduce 2097152 800 300 330 0.375 0.412
  row bcast 1048576 50 40 45 0.8 0.9; } > "$tmp/ompi4.txt"
{ echo "# peer mpich5: MPICH Version: 5.0.2; tcomm and OSU built with mpicc"
  row allreduce 1048576 200 90 90 0.45 0.45
  row allreduce 2097152 1000 290 290 0.29 0.29
  row bcast 1048576 80 30 30 0.375 0.375; } > "$tmp/mpich5.txt"
sh "$fastest" "$tmp/ompi4.txt" "$tmp/mpich5.txt" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "peer-fastest.sh exited $rc: $(cat "$tmp/err")"
for want in "allreduce 1048576 mpich5 200.00 100.00 120.00 0.500 0.600" \
            "allreduce 2097152 ompi4 800.00 300.00 330.00 0.375 0.412" \
            "bcast 1048576 ompi4 50.00 40.00 45.00 0.800 0.900"; do
    got=$(awk -v c="${want%% *}" -v s="$(echo "$want" | cut -d' ' -f2)" \
        '$1 == c && $2 == s { $1 = $1; print }' "$tmp/out")
    [ "$got" = "$want" ] || fail "fastest peer: want '$want', got '$got'"
done
grep -q "^# fastest of: ompi4 mpich5; tcomm: built against ompi4" "$tmp/out" ||
    fail "fastest peer: header: $(head -2 "$tmp/out")"
echo "ok: the fastest peer's table"

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
