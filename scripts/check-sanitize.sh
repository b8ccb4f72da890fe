#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make check-sanitize`: the whole test suite built with AddressSanitizer
# and UndefinedBehaviorSanitizer (leak detection on), in its own build
# tree, build-sanitize/ under the source tree (or $1).
#
# Only our programs and libtcomm are instrumented; mpirun/orted are the
# system's. The build is --without-cuda (nvcc cannot take the sanitizer
# flags and the CUDA objects would cost CI minutes; the device paths still
# run through the `sim` memory space). Leaks inside MPI's own libraries
# are suppressed by library in test/lsan.supp, each entry explained there.
#
# Automake refuses a VPATH build from a source tree that is configured in
# place (as `make check` leaves it), so the sources (the files git tracks
# or would track, plus the generated autotools files) are copied into
# build-sanitize/src and configured there.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-sanitize}
jobs=${SANITIZE_JOBS:-$(nproc 2>/dev/null || echo 2)}
case "$build" in /*) ;; *) build=$(pwd)/$build ;; esac

sh "$src/scripts/install-deps"
if [ ! -x "$src/configure" ]; then
    (cd "$src" && autoreconf -fi)
fi

copy_sources() {
    dst=$1
    mkdir -p "$dst"
    if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        (cd "$src" &&
         { git ls-files -z --cached --others --exclude-standard;
           for f in configure aclocal.m4 config.h.in Makefile.in \
                    build-aux m4; do
               [ -e "$f" ] && printf '%s\0' "$f"; done; } |
         tar --null -T - -cf - 2>/dev/null) | (cd "$dst" && tar -xf -)
    else
        echo "check-sanitize: $src is not a git checkout; copying all" >&2
        (cd "$src" && tar --exclude='./build-*' -cf - .) |
            (cd "$dst" && tar -xf -)
        (cd "$dst" && { [ ! -f GNUmakefile ] || make distclean; })
    fi
}

# Refresh the copy (only changed files get a new time stamp, so the
# build stays incremental).
copy_sources "$build/src"
cd "$build/src"

SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"
if [ ! -f config.status ] || [ configure -nt config.status ]; then
    ./configure --without-cuda --disable-dependency-tracking \
        CFLAGS="-O1 -g $SAN" FCFLAGS="-O1 -g $SAN" LDFLAGS="$SAN" \
        ${SANITIZE_CONFIGURE_FLAGS:-} >configure.out 2>&1 ||
        { cat configure.out; exit 1; }
fi

# Open MPI unloads its components (dlclose) in MPI_Finalize, before
# LeakSanitizer runs at exit: their frames would be "<unknown module>" and
# no suppression could name them. A preloaded dlclose() that keeps every
# library mapped (harmless for short test processes) lets test/lsan.supp
# match them by library.
cat >nodlclose.c <<'EOC'
int dlclose(void *handle) { (void)handle; return 0; }
EOC
${CC_FOR_SHIM:-cc} -shared -fPIC -O1 -o nodlclose.so nodlclose.c
LD_PRELOAD="$build/src/nodlclose.so${LD_PRELOAD:+:$LD_PRELOAD}"

# detect_leaks: LeakSanitizer at exit. fast_unwind_on_malloc=0: whole
# allocation stacks through libraries built without frame pointers (MPI,
# libc), so that suppressions see which library allocated.
# verify_asan_link_order=0: the preloaded shim comes before libasan, and
# the install check links an outside program (without -fsanitize) against
# the instrumented libtcomm.so. UBSan: the first finding stops the program
# (halt_on_error=1, the default here).
ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:verify_asan_link_order=0"
# Not strict_string_checks: libgfortran's strndup of Fortran (unterminated)
# strings would be reported as reading past them, in MPI-free runtime code
# we do not own.
ASAN_OPTIONS="$ASAN_OPTIONS:check_initialization_order=1"
LSAN_OPTIONS="suppressions=$build/src/test/lsan.supp:print_suppressions=0"
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS LD_PRELOAD
# The timeouts of the mpirun tests are longer: instrumented code is slower.
TCOMM_TEST_TIMEOUT=${TCOMM_TEST_TIMEOUT:-600}
export TCOMM_TEST_TIMEOUT
# MPI tests at most at 3 ranks (test/mpirun-test.sh and pmpi-check.sh
# skip larger counts, reported as skipped): 2 and 3 ranks run the
# power-of-two and the other code paths, and the plain `make check` runs
# 4; with instrumented 4-rank runs (two tests at a time on 2 cores) this
# stage was on course for about 50 minutes and CI for over its 90
# (doc/reliability.md, "CI time").
TCOMM_TEST_MAX_NP=${TCOMM_TEST_MAX_NP:-3}
export TCOMM_TEST_MAX_NP
# Check's per-test limit (4 s) is too short for instrumented code.
CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}
export CK_TIMEOUT_MULTIPLIER
# The namespace test runs in the plain `make check` (it tests the network,
# not memory safety, and costs minutes under ASan).
TCOMM_SKIP_NETNS=${TCOMM_SKIP_NETNS:-1}
export TCOMM_SKIP_NETNS
# The Rust crate runs in the plain `make check`: a stable Rust toolchain
# cannot instrument it, and an uninstrumented Rust program does not start
# against an ASan-built libtcomm (bindings/rust/cargo.sh).
TCOMM_SKIP_RUST=${TCOMM_SKIP_RUST:-1}
export TCOMM_SKIP_RUST
# So does the Python package: an uninstrumented interpreter cannot load an
# ASan-built extension (bindings/python/python-check.sh).
TCOMM_SKIP_PYTHON=${TCOMM_SKIP_PYTHON:-1}
export TCOMM_SKIP_PYTHON

rc=0
make -j"$jobs" check ${SANITIZE_MAKE_FLAGS:-} || rc=$?
log=test-suite.log
if [ -f "$log" ]; then
    [ $rc -ne 0 ] && cat "$log"
    # A sanitizer report in any test log is a failure even if the test's
    # own status hid it (e.g. a report from a rank whose exit code a
    # script ignored).
    reports=$(grep -l -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" \
        $(find . -name '*.log' ! -name config.log ! -name "$log") \
        2>/dev/null || true)
    if [ -n "$reports" ]; then
        echo "check-sanitize: sanitizer reports in:" $reports >&2
        rc=1
    fi
    pass=$(sed -n 's/^# PASS: *//p' "$log" | head -1)
    fail=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
    err=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
    skip=$(sed -n 's/^# SKIP: *//p' "$log" | head -1)
    echo "check-sanitize: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} ))" \
        "failed, ${skip:-0} skipped (ASan+UBSan+LSan, $build/src)"
fi
exit $rc
