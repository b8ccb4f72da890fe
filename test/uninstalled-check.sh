#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Before `make install`: PKG_CONFIG_PATH=<builddir> picks
# tcomm-uninstalled.pc (and tcomm-fortran-uninstalled.pc), which point at
# the source tree's headers and the build tree's libraries. Builds the
# contract programs with them and runs them at 2 ranks, with no
# LD_LIBRARY_PATH: the .pc files' rpath finds the build tree's libraries.
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=${srcdir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-uninst.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$build"
unset PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH || true
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

check() { # module, compiler, source
    if ! pkg-config --uninstalled "$1"; then
        echo "FAIL: PKG_CONFIG_PATH=$build pkg-config finds no $1-uninstalled.pc"
        exit 1
    fi
    flags=$(pkg-config --cflags --libs "$1")
    echo "$1 (uninstalled): $flags"
    cp "$3" "$tmp/"
    # shellcheck disable=SC2086
    (cd "$tmp" && $2 "${3##*/}" $flags -lm -o prog) ||
        { echo "FAIL: $2 ${3##*/} \$(pkg-config --cflags --libs $1)"; exit 1; }
    timeout 120 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 "$tmp/prog"
    echo "PASS: $2 ${3##*/} \$(PKG_CONFIG_PATH=<builddir> pkg-config --cflags --libs $1)"
    rm -f "$tmp/prog"
}
check tcomm "${TCOMM_CC:-mpicc}" "$src/test/contract_program.c"
if [ -f "$build/src/fortran/tcomm.mod" ]; then
    fc=${TCOMM_FC:-$(sed -n 's/^FC = //p' "$build/GNUmakefile")}
    check tcomm-fortran "${fc:-mpif90}" "$src/test/fortran/contract.f90"
fi
