#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make fuzz`: build the libFuzzer targets with clang (ASan + UBSan +
# coverage on the whole library) in their own tree, build-fuzz/ (or
# $FUZZ_BUILD), and run each for FUZZ_SECONDS (default 60) from its seed
# corpus fuzz/corpus/<target>/. New inputs go to build-fuzz/corpus/, a
# crash's input to build-fuzz/artifacts/. FUZZ_TARGETS picks targets.
# Prints one line per target (runs, corpus size, result); exits 1 if any
# target crashed. The committed seed corpus is never written.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$src/build-fuzz}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-fuzz_agree fuzz_config fuzz_bench_options}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

sh "$src/scripts/install-deps"
command -v clang >/dev/null || { echo "fuzz: no clang" >&2; exit 1; }
[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)

# A copy of the sources (automake refuses a VPATH build from a source
# tree configured in place): what git tracks or would track, plus the
# generated autotools files, time stamps kept.
mkdir -p "$build/src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$src" &&
     { git ls-files -z --cached --others --exclude-standard;
       for f in configure aclocal.m4 config.h.in Makefile.in build-aux m4; do
           [ -e "$f" ] && printf '%s\0' "$f"; done; } |
     tar --null -T - -cf - 2>/dev/null) | (cd "$build/src" && tar -xf -)
else
    (cd "$src" && tar --exclude='./build-*' -cf - .) |
        (cd "$build/src" && tar -xf -)
fi
cd "$build/src"

# mpicc with clang underneath: the harness's sources include mpi.h.
OMPI_CC=clang
export OMPI_CC
SAN="-fsanitize=fuzzer-no-link,address,undefined"
SAN="$SAN -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [ ! -f config.status ] || [ configure -nt config.status ]; then
    ./configure --without-cuda --disable-fortran --disable-shared \
        --disable-dependency-tracking CC=mpicc \
        CFLAGS="-g -O1 $SAN" LDFLAGS="-fsanitize=address,undefined" \
        >configure.out 2>&1 || { cat configure.out; exit 1; }
fi
progs=""
for t in $targets; do progs="$progs fuzz/$t"; done
# The gcc-only vectorizer flag (-fvect-cost-model) of the host kernels and
# the harness's bound loops is not clang's: those objects get the plain
# flags here.
# shellcheck disable=SC2086
make -j"$jobs" $progs VECTORIZE_CFLAGS= \
    >make.out 2>&1 || { tail -50 make.out; exit 1; }

rc=0
mkdir -p "$build/corpus" "$build/artifacts"
for t in $targets; do
    work="$build/corpus/$t"
    mkdir -p "$work"
    log="$build/$t.log"
    st=0
    # -close_fd_mask=3: the harness's usage lines stay quiet; libFuzzer
    # and the sanitizers still report on their own descriptor.
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "./fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 \
        -close_fd_mask=3 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$build/artifacts/$t-" \
        "$work" "$src/fuzz/corpus/$t" >"$log" 2>&1 || st=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    n=$(ls "$work" | wc -l)
    if [ "$st" -eq 0 ]; then
        echo "fuzz: $t: ${runs:-?} runs in ${seconds} s, $cov," \
             "corpus $n new inputs, no crash"
    else
        echo "fuzz: $t: CRASH (exit $st) after ${runs:-?} runs;" \
             "input in $build/artifacts/, report:"
        grep -E -A30 "ERROR:|runtime error|deadly signal" "$log" | head -60
        rc=1
    fi
done
exit $rc
