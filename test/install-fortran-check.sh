#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make install` into a staging root, then build test/fortran/contract.f90
# (the Fortran contract only: `use tcomm`) with
# `$FC contract.f90 $(pkg-config --cflags --libs tcomm-fortran)`, FC being
# the build's MPI Fortran wrapper (mpifort/mpif90), and run it at 1 to 4
# ranks against the installed shared libraries.
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=${srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make -s -C "$build" install DESTDIR="$tmp" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
var() { sed -n "s/^$1=//p" "$build/tcomm-fortran.pc"; }
prefix=$(var prefix)
expand() { echo "$1" | sed "s|\${exec_prefix}|$prefix|;s|\${prefix}|$prefix|"; }
libdir=$(expand "$(var libdir)")
includedir=$(expand "$(var includedir)")
for f in "$libdir/libtcomm_f.so" "$libdir/libtcomm_f.a" \
         "$includedir/tcomm.mod" "$libdir/pkgconfig/tcomm-fortran.pc"; do
    [ -f "$tmp$f" ] || { echo "not installed: $f"; exit 1; }
done
export PKG_CONFIG_PATH="$tmp$libdir/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$tmp"
flags=$(pkg-config --cflags --libs tcomm-fortran)
echo "pkg-config --cflags --libs tcomm-fortran: $flags"
fc=${TCOMM_FC:-$(sed -n 's/^FC = //p' "$build/GNUmakefile")}
cp "$src/test/fortran/contract.f90" "$tmp/"
# shellcheck disable=SC2086
(cd "$tmp" && ${fc:-mpif90} contract.f90 $flags -o contract)
echo "built: ${fc:-mpif90} contract.f90" \
    "\$(pkg-config --cflags --libs tcomm-fortran)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2 3 4; do
    LD_LIBRARY_PATH="$tmp$libdir" timeout 120 \
        ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np "$np" "$tmp/contract"
done
