#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtcomm.so exports exactly the public API (test/exported-symbols.txt):
# internals stay hidden behind -fvisibility=hidden.
set -eu
lib="${TCOMM_BUILDDIR:-.}/.libs/libtcomm.so"
list="${srcdir:-.}/test/exported-symbols.txt"
[ -f "$lib" ] || { echo "no $lib (shared library disabled?)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' |
    sort -u >"$tmp/exported"
grep -v '^#' "$list" | awk 'NF {print $1}' | sort -u >"$tmp/allowed"
# required: every line but the optional ones (since=X.Y only dates it)
grep -v '^#' "$list" | awk 'NF && $2 != "optional" {print $1}' |
    sort -u >"$tmp/required"
status=0
extra=$(comm -23 "$tmp/exported" "$tmp/allowed")
missing=$(comm -13 "$tmp/exported" "$tmp/required")
if [ -n "$extra" ]; then
    echo "exported but not in $list (hide them, or add them to the list):"
    echo "$extra"
    status=1
fi
if [ -n "$missing" ]; then
    echo "in $list but not exported (a public function lost TCOMM_EXPORT?):"
    echo "$missing"
    status=1
fi
echo "$(wc -l <"$tmp/exported") symbols exported, all on the list: \
$( [ $status -eq 0 ] && echo yes || echo no)"
exit $status
