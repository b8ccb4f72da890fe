#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A static link of the installed libtcomm.a as the user did it:
#   mpicc prog.c libtcomm.a $(pkg-config --static --libs tcomm)
# into a staging root without the shared library, so that every symbol
# libtcomm.a needs (CUDA runtime, libstdc++ for Gloo, NCCL, -lm) must come
# from tcomm.pc's Libs.private. The program must not load libtcomm.so and
# must pass the contract at 2 ranks.
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=${srcdir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-static.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

make -s -C "$build" install DESTDIR="$tmp" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
var() { sed -n "s/^$1=//p" "$build/tcomm.pc"; }
prefix=$(var prefix)
libdir=$(var libdir | sed "s|\${exec_prefix}|$prefix|;s|\${prefix}|$prefix|")
[ -f "$tmp$libdir/libtcomm.a" ] || { echo "FAIL: no $libdir/libtcomm.a"; exit 1; }
# Only the archive stays: -ltcomm must not fall back to the shared one.
rm -f "$tmp$libdir"/libtcomm.so* "$tmp$libdir"/libtcomm.la
# The staged prefix (not PKG_CONFIG_SYSROOT_DIR, which would move the
# private libraries' -L directories into the staging root too).
export PKG_CONFIG_PATH="$tmp$libdir/pkgconfig"
unset PKG_CONFIG_SYSROOT_DIR || true
pc="pkg-config --define-variable=prefix=$tmp$prefix"
private=$(sed -n 's/^Libs.private: *//p' "$tmp$libdir/pkgconfig/tcomm.pc")
echo "tcomm.pc Libs.private: ${private:-(none)}"
flags="$($pc --cflags tcomm) $($pc --static --libs tcomm)"
# (-lm: the program's own fmax)
# (TCOMM_LDFLAGS: the build's own LDFLAGS, e.g. the sanitizers' runtime
# that an instrumented libtcomm.a needs)
echo "built: ${TCOMM_CC:-mpicc} contract_program.c libtcomm.a $flags -lm"
# shellcheck disable=SC2086
if ! ${TCOMM_CC:-mpicc} ${TCOMM_LDFLAGS:-} -o "$tmp/contract" \
        "$src/test/contract_program.c" \
        "$tmp$libdir/libtcomm.a" $flags -lm >"$tmp/link.log" 2>&1; then
    echo "FAIL: the static link: $(grep -c 'undefined reference' \
        "$tmp/link.log") undefined references, e.g.:"
    grep 'undefined reference' "$tmp/link.log" | sed 's/.*undefined/undefined/' |
        sort -u | head -5
    tail -3 "$tmp/link.log"
    exit 1
fi
if readelf -d "$tmp/contract" | grep -q 'libtcomm'; then
    echo "FAIL: the static program still needs a shared libtcomm:"
    readelf -d "$tmp/contract" | grep libtcomm
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
timeout 120 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 "$tmp/contract"
echo "PASS: static link of libtcomm.a with pkg-config --static"
