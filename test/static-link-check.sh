#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The static link exactly as README.md, doc/user-guide.md and
# doc/reference.md give it, on a normal install (libtcomm.so beside
# libtcomm.a, as `make install` leaves them):
#   mpicc prog.c $(pkg-config --cflags --libs tcomm-static)
# The program must need no shared libtcomm (readelf, ldd) and must pass
# the contract at 2 ranks without LD_LIBRARY_PATH. (The install is
# staged; --define-variable=prefix points pkg-config at it.)
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=${srcdir:-.}
fail() { echo "FAIL: $*"; exit 1; }
cmd='mpicc prog.c $(pkg-config --cflags --libs tcomm-static)'
for d in README.md doc/user-guide.md doc/reference.md; do
    grep -qF -- "$cmd" "$src/$d" || fail "$d does not give: $cmd"
done
grep -q "^old_library=''" "$build/libtcomm.la" &&
    { echo "SKIP: configured --disable-static (no libtcomm.a)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-static.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

make -s -C "$build" install DESTDIR="$tmp" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
var() { sed -n "s/^$1=//p" "$build/tcomm.pc"; }
prefix=$(var prefix)
libdir=$(var libdir | sed "s|\${exec_prefix}|$prefix|;s|\${prefix}|$prefix|")
ls "$tmp$libdir"/libtcomm.a "$tmp$libdir"/libtcomm.so >/dev/null ||
    fail "make install left no libtcomm.a and libtcomm.so side by side"
export PKG_CONFIG_PATH="$tmp$libdir/pkgconfig"
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR LD_LIBRARY_PATH || true
pkg_config() { pkg-config --define-variable=prefix="$tmp$prefix" "$@"; }
flags=$(pkg_config --cflags --libs tcomm-static) ||
    fail "pkg-config knows no tcomm-static"
# (-lm: the program's own fmax; TCOMM_LDFLAGS: the build's own LDFLAGS,
# e.g. the sanitizers' runtime that an instrumented libtcomm.a needs)
echo "built: ${TCOMM_CC:-mpicc} contract_program.c $flags -lm"
# shellcheck disable=SC2086
${TCOMM_CC:-mpicc} ${TCOMM_LDFLAGS:-} -o "$tmp/contract" \
    "$src/test/contract_program.c" $flags -lm >"$tmp/link.log" 2>&1 ||
    { tail -5 "$tmp/link.log"; fail "the static link"; }
if readelf -d "$tmp/contract" | grep 'NEEDED.*libtcomm'; then
    fail "the program needs a shared libtcomm"
fi
if ldd "$tmp/contract" | grep libtcomm; then
    fail "ldd finds a shared libtcomm"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC2086
timeout 120 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 "$tmp/contract"
echo "PASS: $cmd: no shared libtcomm, the contract passes at 2 ranks"
