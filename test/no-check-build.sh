#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Check (the unit-test framework) is needed only by `make check`: in a
# copy of the distribution, configure with check.pc hidden from pkg-config
# must succeed, `make` must build libtcomm and tcomm_info, and `make check`
# must stop at once with a message that names the missing Check and how
# to install it. (--without-cuda and friends keep the build short; this
# build's tcomm_info must say that Gloo and NCCL were turned off.)
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-nocheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

make -s -C "$build" distdir distdir="$tmp/src" >"$tmp/distdir.log" 2>&1 ||
    { tail -20 "$tmp/distdir.log"; fail "make distdir"; }
mkdir "$tmp/empty" "$tmp/b"
cd "$tmp/b"
export PKG_CONFIG_LIBDIR="$tmp/empty" PKG_CONFIG_PATH=
unset CHECK_CFLAGS CHECK_LIBS || true
if ! ../src/configure --without-cuda --without-gloo --without-nccl \
        --disable-fortran CC="${TCOMM_CC:-mpicc}" >configure.log 2>&1; then
    tail -5 configure.log
    fail "configure without Check"
fi
grep -E '^ +Check' configure.log || fail "configure's summary does not say whether Check was found"
make -j2 >make.log 2>&1 || { tail -20 make.log; fail "make without Check"; }
[ -f .libs/libtcomm.so ] && [ -f .libs/libtcomm.a ] && [ -x src/tools/tcomm_info ] ||
    fail "make without Check did not build libtcomm and tcomm_info"
echo "PASS: configure and make without Check built libtcomm"
# Gloo and NCCL were turned off here, not missing: tcomm_info says so
# (issue 27) instead of how to install them.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
src/tools/tcomm_info --parsable >info.log 2>&1 || fail "tcomm_info failed"
for be in gloo nccl; do
    grep -x "backend.$be.why:.*--without-$be.*" info.log ||
        fail "tcomm_info: $(grep "^backend.$be.why:" info.log)"
done
if make check >check.log 2>&1; then
    fail "make check succeeded without Check"
fi
grep -q "make check needs Check" check.log &&
    grep -q "install-deps\|apt-get install check" check.log || {
    tail -5 check.log
    fail "make check without Check: no clear message"
}
grep "make check needs Check" check.log
echo "PASS: make check without Check stops with that message"
