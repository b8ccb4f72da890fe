#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make install` into a staging root, then an outside CMake project that
# does find_package(tcomm X.Y REQUIRED), X.Y the contract that
# test/exported-symbols.txt's since= names, with CMAKE_PREFIX_PATH at the
# staged prefix and links tcomm::tcomm (test/contract_program.c) and, when
# the Fortran module was built, tcomm::fortran (test/fortran/contract.f90);
# both run at 2 ranks. Then the same C program with tcomm_USE_STATIC_LIBS
# (libtcomm.a and its private libraries), and a version that must not match.
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
src=$(cd "${srcdir:-.}" && pwd)
command -v cmake >/dev/null || { echo "SKIP: no cmake (scripts/install-deps)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-cmake.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

make -s -C "$build" install DESTDIR="$tmp/stage" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
var() { sed -n "s/^$1=//p" "$build/tcomm.pc"; }
prefix=$(var prefix)
libdir=$(var libdir | sed "s|\${exec_prefix}|$prefix|;s|\${prefix}|$prefix|")
for f in tcommConfig.cmake tcommConfigVersion.cmake; do
    [ -f "$tmp/stage$libdir/cmake/tcomm/$f" ] ||
        { echo "FAIL: not installed: $libdir/cmake/tcomm/$f"; exit 1; }
done
fortran=OFF
[ -f "$build/src/fortran/tcomm.mod" ] && fortran=ON
fc=${TCOMM_FC:-$(sed -n 's/^FC = //p' "$build/GNUmakefile")}
# the contract the library exports, which its version must carry
contract=$(grep -v '^#' "$src/test/exported-symbols.txt" |
    sed -n 's/.* since=\([0-9]*\.[0-9]*\).*/\1/p' |
    sort -t. -k1,1n -k2,2n | tail -1)
contract=${contract:-0.1}

mkdir "$tmp/proj"
cat >"$tmp/proj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(tcomm_consumer LANGUAGES C)
if(WITH_FORTRAN)
  enable_language(Fortran)
endif()
find_package(tcomm ${CONTRACT} REQUIRED)
message(STATUS "tcomm ${tcomm_VERSION} found in ${tcomm_DIR}")
add_executable(contract_c ${SRC}/test/contract_program.c)
target_link_libraries(contract_c PRIVATE tcomm::tcomm m)
if(WITH_FORTRAN)
  if(NOT TARGET tcomm::fortran)
    message(FATAL_ERROR "tcomm was built with Fortran but has no tcomm::fortran")
  endif()
  add_executable(contract_f ${SRC}/test/fortran/contract.f90)
  target_link_libraries(contract_f PRIVATE tcomm::fortran)
endif()
CMAKE

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# libtcomm_f.so finds libtcomm.so through its installed rpath, which a
# staging root does not have (the programs' own come from CMake).
run() {
    LD_LIBRARY_PATH="$tmp/stage$libdir" timeout 120 \
        ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 "$@"
}
cmake_build() { # build dir, extra -D options
    dir=$1; shift
    if ! cmake -S "$tmp/proj" -B "$tmp/$dir" -DSRC="$src" \
            -DCONTRACT="$contract" \
            -DCMAKE_PREFIX_PATH="$tmp/stage$prefix" \
            -DCMAKE_C_COMPILER="${TCOMM_CC:-mpicc}" \
            -DCMAKE_Fortran_COMPILER="${fc:-mpif90}" "$@" \
            >"$tmp/$dir.log" 2>&1 ||
       ! cmake --build "$tmp/$dir" >>"$tmp/$dir.log" 2>&1; then
        echo "FAIL: the CMake project ($*):"; tail -20 "$tmp/$dir.log"; exit 1
    fi
    grep 'tcomm .* found' "$tmp/$dir.log"
}

cmake_build shared -DWITH_FORTRAN=$fortran
run "$tmp/shared/contract_c"
echo "PASS: find_package(tcomm $contract), tcomm::tcomm"
if [ $fortran = ON ]; then
    run "$tmp/shared/contract_f"
    echo "PASS: find_package(tcomm), tcomm::fortran"
fi

# (the build's LDFLAGS: an instrumented libtcomm.a needs the sanitizers'
# runtime in the program; the shared library brings its own)
cmake_build static -DWITH_FORTRAN=OFF -Dtcomm_USE_STATIC_LIBS=ON \
    -DCMAKE_EXE_LINKER_FLAGS="${TCOMM_LDFLAGS:-}"
if readelf -d "$tmp/static/contract_c" | grep -q libtcomm; then
    echo "FAIL: tcomm_USE_STATIC_LIBS=ON still links a shared libtcomm"; exit 1
fi
run "$tmp/static/contract_c"
echo "PASS: find_package(tcomm) with tcomm_USE_STATIC_LIBS=ON"

mkdir "$tmp/newer"
printf 'cmake_minimum_required(VERSION 3.13)\nproject(x NONE)\nfind_package(tcomm 1.0 REQUIRED)\n' \
    >"$tmp/newer/CMakeLists.txt"
if cmake -S "$tmp/newer" -B "$tmp/newer/b" \
        -DCMAKE_PREFIX_PATH="$tmp/stage$prefix" >"$tmp/newer.log" 2>&1; then
    echo "FAIL: find_package(tcomm 1.0) accepted tcomm $(sed -n "s/^Version: //p" "$build/tcomm.pc")"; exit 1
fi
grep -q 'requested version "1.0"' "$tmp/newer.log" ||
    { tail -10 "$tmp/newer.log"; echo "FAIL: find_package(tcomm 1.0): not for the version"; exit 1; }
echo "PASS: find_package(tcomm 1.0) refuses $(sed -n 's/^Version: //p' "$build/tcomm.pc")"
