#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Packaging basics: configure --help names where to report bugs, the
# LICENSE is the BSD-3-Clause that the SPDX lines name, and the LICENSE,
# NEWS and the pkg-config and CMake templates are in the distribution
# (`make distdir` into a scratch directory, what `make dist` packs).
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=$(cd "${srcdir:-.}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-pkg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$src/configure" --help >"$tmp/help.txt"
tail -3 "$tmp/help.txt" | sed 's/^/configure --help: /'
grep -q 'package provider' "$tmp/help.txt" &&
    fail "configure --help says 'Report bugs to the package provider'"
grep -q '^Report bugs to <tcomm-bugs@[a-z.-]*>\.$' "$tmp/help.txt" ||
    fail "configure --help has no 'Report bugs to <tcomm-bugs@...>'"
grep -q '^tcomm home page: <https://' "$tmp/help.txt" ||
    fail "configure --help has no home page URL"

[ -f "$src/LICENSE" ] || fail "no LICENSE"
grep -q 'Copyright (c) .* The tcomm developers' "$src/LICENSE" ||
    fail "LICENSE: no copyright line of The tcomm developers"
grep -q 'Redistribution and use in source and binary forms' "$src/LICENSE" &&
    grep -q 'Neither the name of the copyright holder nor the names of its' \
        "$src/LICENSE" || fail "LICENSE is not the BSD 3-Clause text"
[ -f "$src/NEWS" ] || fail "no NEWS"
grep -q "^tcomm $(sed -n 's/^Version: //p' "$build/tcomm.pc")" "$src/NEWS" ||
    fail "NEWS has no entry for this version"

make -s -C "$build" distdir distdir="$tmp/dist" >"$tmp/distdir.log" 2>&1 ||
    { tail -20 "$tmp/distdir.log"; fail "make distdir"; }
for f in LICENSE NEWS README.md tcomm.pc.in tcomm-static.pc.in \
         tcomm-fortran.pc.in tcomm-uninstalled.pc.in \
         tcomm-fortran-uninstalled.pc.in \
         cmake/tcommConfig.cmake.in cmake/tcommConfigVersion.cmake.in \
         test/static-link-check.sh test/uninstalled-check.sh \
         test/cmake-check.sh test/packaging-check.sh test/no-check-build.sh; do
    [ -f "$tmp/dist/$f" ] || fail "not in the distribution: $f"
done
echo "PASS: configure --help, LICENSE, NEWS; all in the distribution"
