#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Python package as users get it: `make install` into a staging root,
# then `import tcomm` from there; and `pip install bindings/python` into a
# venv against that installed libtcomm (pkg-config), offline (no build
# isolation, no index). Each runs an all_reduce at 2 ranks. Skips (77)
# where the package is not built here or numpy, venv or setuptools lack.
set -eu
if [ "${TCOMM_SKIP_PYTHON:-0}" = 1 ]; then # the sanitizer build
    echo "bindings/python: SKIP: TCOMM_SKIP_PYTHON=1 (the sanitizer build)"
    exit 77
fi
build=${TCOMM_BUILDDIR:?run through make check}
here=$(cd "$(dirname "$0")" && pwd)
py=${TCOMM_PYTHON:-python3}
[ -f "$build/bindings/python/tcomm/.libs/_tcomm.so" ] || {
    echo "bindings/python: SKIP: the extension was not built"; exit 77; }
"$py" -c 'import numpy, setuptools, venv' 2>/dev/null || {
    echo "bindings/python: SKIP: $py lacks numpy, setuptools or venv (apt-get install python3-numpy python3-setuptools python3-venv)"
    exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PYTHONDONTWRITEBYTECODE=1
probe='import numpy as np, tcomm
c = tcomm.Communicator()
y = c.all_reduce(np.full(3, c.rank + 1.0))
assert y.tolist() == [c.size * (c.size + 1) / 2] * 3, y
print("tcomm from", tcomm.__file__, "rank", c.rank, "ok")'

make -s -C "$build" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
ext=$(find "$tmp/root" -name _tcomm.so | head -n 1)
[ -n "$ext" ] || { echo "make install put no _tcomm.so"; exit 1; }
site=$(dirname "$(dirname "$ext")")
libdir=$(dirname "$(find "$tmp/root" -name libtcomm.so | head -n 1)")
echo "make install: the package in ${site#"$tmp/root"}"
cd "$tmp"  # not the source tree's tcomm/
LD_LIBRARY_PATH=$libdir PYTHONPATH=$site timeout 120 \
    ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 "$py" -c "$probe"

# pip from a copy: pip builds in the source folder, which may be read-only
cp -R "$here" "$tmp/src"
chmod -R u+w "$tmp/src"
rm -rf "$tmp/src/tests"
"$py" -m venv --system-site-packages "$tmp/venv"
PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$tmp/root \
    MPICC=${TCOMM_CC:-mpicc} "$tmp/venv/bin/python" -m pip install -q \
    --no-build-isolation --no-deps --no-index "$tmp/src" ||
    { echo "pip install bindings/python failed"; exit 1; }
LD_LIBRARY_PATH=$libdir timeout 120 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} \
    -np 2 "$tmp/venv/bin/python" -c "$probe"
