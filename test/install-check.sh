#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make install` into a staging root; every relative link of the
# installed README.md resolves there; then build test/contract_program.c
# (public contract only) with `pkg-config --cflags --libs tcomm` and run it
# at 4 ranks against the installed shared library; then
# test/contract_program_02.c (contract 0.2) the same way at 1-4 ranks.
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=${srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make -s -C "$build" install DESTDIR="$tmp" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
libdir=$(sed -n 's/^libdir=//p' "$build/tcomm.pc")
prefix=$(sed -n 's/^prefix=//p' "$build/tcomm.pc")
libdir=$(echo "$libdir" | sed "s|\${exec_prefix}|$prefix|;s|\${prefix}|$prefix|")
export PKG_CONFIG_PATH="$tmp$libdir/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$tmp"
flags=$(pkg-config --cflags --libs tcomm)
echo "pkg-config --cflags --libs tcomm: $flags"
# every relative link of the installed README resolves in its folder
# (the docdir: where LICENSE went, which is installed beside README.md)
docdir=$(find "$tmp" -name LICENSE -type f | head -1)
docdir=${docdir%/LICENSE}
docdir=${docdir#"$tmp"}
readme="$tmp$docdir/README.md"
[ -f "$readme" ] || { echo "FAIL: no $docdir/README.md installed"; exit 1; }
for l in $(grep -oE '\]\([^)]+\)' "$readme" | sed 's/^](//; s/)$//; s/#.*//' |
    grep -vE '^(https?:|mailto:|$)' | sort -u); do
    [ -e "$tmp$docdir/$l" ] ||
        { echo "FAIL: the installed README links $l, not installed"; bad=1; }
done
[ -z "${bad:-}" ] || exit 1
echo "installed README.md: its links resolve in $docdir"
for h in tcomm.h tcomm_mpi.h tcomm_backend.h; do
    [ -f "$tmp$prefix/include/$h" ] || { echo "missing $h"; exit 1; }
done
# shellcheck disable=SC2086
${TCOMM_CC:-mpicc} -o "$tmp/contract" "$src/test/contract_program.c" \
    $flags -lm
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LD_LIBRARY_PATH="$tmp$libdir" timeout 120 \
    ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 4 "$tmp/contract"
# shellcheck disable=SC2086
${TCOMM_CC:-mpicc} -o "$tmp/contract_02" "$src/test/contract_program_02.c" \
    $flags
for np in 1 2 3 4; do
    LD_LIBRARY_PATH="$tmp$libdir" timeout 120 \
        ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np $np "$tmp/contract_02"
done
