#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tcomm is versioned by the contract it implements: the highest since=X.Y
# of test/exported-symbols.txt (0.1, the seed's, where none). That X.Y
# must be the MAJOR.MINOR of configure's version (tcomm.pc, NEWS, CMake),
# of include/tcomm.h's TCOMM_VERSION_* and of the man pages, and of the
# find_package(tcomm X.Y) the docs show. NEWS has a section for the
# version that names every function of its contract, and NEWS names
# every setting and every harness program somewhere.
set -u
build=${TCOMM_BUILDDIR:?run through make check}
src=${srcdir:-.}
status=0
fail() { echo "FAIL: $*"; status=1; }

contract=$(grep -v '^#' "$src/test/exported-symbols.txt" |
    sed -n 's/.* since=\([0-9]*\.[0-9]*\).*/\1/p' | sort -t. -k1,1n -k2,2n |
    tail -1)
contract=${contract:-0.1}
version=$(sed -n 's/^Version: //p' "$build/tcomm.pc")
echo "contract $contract, configure's version $version"
case $version in
    "$contract".*) ;;
    *) fail "configure.ac's AC_INIT version $version is not contract $contract.N" ;;
esac

hdr=$(for p in MAJOR MINOR PATCH; do
    sed -n "s/^#define TCOMM_VERSION_$p \([0-9]*\)$/\1/p" "$src/include/tcomm.h"
done | paste -sd. -)
[ "$hdr" = "$version" ] ||
    fail "include/tcomm.h's TCOMM_VERSION_* say $hdr, configure $version"

for p in "$src"/doc/man/*.1; do
    head -1 "$p" | grep -q '^\.so ' && continue # a link page
    grep -q "^\.TH .* \"tcomm $version\"" "$p" ||
        fail "$(basename "$p"): .TH does not say \"tcomm $version\""
done

grep -ohE 'find_package\(tcomm [0-9.]+' "$src/README.md" "$src"/doc/*.md |
    sort -u | while read -r line; do
    [ "$line" = "find_package(tcomm $contract" ] ||
        echo "FAIL: the docs show $line), not find_package(tcomm $contract)"
done | grep . && status=1

# NEWS: the section of this version, from its title to the next title
awk -v v="tcomm $version" 'index($0, v) == 1 { on = 1; next }
    on && /^tcomm [0-9]/ { exit } on' "$src/NEWS" >"${TMPDIR:-/tmp}/news.$$"
trap 'rm -f "${TMPDIR:-/tmp}/news.$$"' EXIT
section=${TMPDIR:-/tmp}/news.$$
[ -s "$section" ] || fail "NEWS has no section \"tcomm $version\""
n=0
for f in $(grep -v '^#' "$src/test/exported-symbols.txt" |
    awk -v c="since=$contract" '$2 == c {print $1}'); do
    grep -qw -e "$f" "$section" || fail "NEWS $version does not name $f"
    n=$((n + 1))
done
echo "NEWS $version: the $n functions of contract $contract checked"
for s in $(sed -n 's/^ *{"\(TCOMM_[A-Z0-9_]*\)",.*/\1/p' \
    "$src/src/core/config.c"); do
    grep -qw -e "$s" "$src/NEWS" || fail "NEWS does not name the setting $s"
done
for p in "$src"/doc/man/osu_tcomm_*.1; do
    p=$(basename "$p" .1)
    grep -qw -e "$p" "$src/NEWS" || fail "NEWS does not name $p"
done
[ $status -eq 0 ] && echo "PASS: versions agree with contract $contract"
exit $status
