#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# No dead functions: every global function of the library (nm of
# libtcomm_internal.a) is on the public list (test/exported-symbols.txt)
# or used somewhere in the sources: named on a line other than its own
# declaration or definition (those start in column 0 with the return
# type or the name, followed by the name and "("; calls are indented).
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=${srcdir:-.}
lib=$build/.libs/libtcomm_internal.a
[ -f "$lib" ] || { echo "no $lib"; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-dead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# C functions only (C++ names are mangled: _Z...).
nm --defined-only "$lib" | awk '$2 == "T" && $3 !~ /^_Z/ {print $3}' |
    sort -u >"$tmp/defined"
grep -v '^#' "$src/test/exported-symbols.txt" | awk 'NF {print $1}' |
    sort -u >"$tmp/public"
find "$src/src" "$src/cuda" "$src/mpi_kernels" "$src/test" "$src/bench" \
    "$src/fuzz" "$src/include" "$src/bindings" -path '*/target' -prune -o \
    -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cu' -o \
    -name '*.cuh' -o -name '*.[fF]90' -o -name '*.inc' -o -name '*.rs' \) \
    -print >"$tmp/sources"
dead=0
for f in $(comm -23 "$tmp/defined" "$tmp/public"); do
    # shellcheck disable=SC2046
    if ! cat $(cat "$tmp/sources") | grep -w -- "$f" |
            grep -Evq "^[A-Za-z_].*\\b$f *\\("; then
        echo "FAIL: $f is defined but nothing calls it"
        dead=$((dead + 1))
    fi
done
echo "$(wc -l <"$tmp/defined") functions, $dead without a caller"
[ "$dead" -eq 0 ]
