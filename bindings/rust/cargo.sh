#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check's driver of the Rust crate (bindings/rust/local.mk).
#
#   cargo.sh [test]         cargo test, cargo doc (no warnings) and, where
#                           clippy exists, cargo clippy (no warnings)
#   cargo.sh example NAME OUT
#                           build examples/NAME.rs and copy it to OUT, the
#                           program of OUT-npN.mpitest; without a Rust
#                           toolchain OUT is a stub that skips (77)
#
# The crate is built against the build tree's uninstalled libtcomm
# (TCOMM_BUILDDIR/.libs) and the MPI of TCOMM_CC, offline, with cargo's
# target dir in the build tree, so a read-only source tree (VPATH,
# distcheck) works. TCOMM_CARGO picks the cargo (default: cargo on PATH,
# else ~/.cargo/bin/cargo); the rustc and rustdoc beside it are used
# unless RUSTC and RUSTDOC say otherwise. No toolchain: exit 77 (skip) with a line saying so.
set -u
# make's jobserver descriptors do not reach the test driver's children;
# cargo would warn about them.
unset MAKEFLAGS MFLAGS
here=$(cd "$(dirname "$0")" && pwd)
build=${TCOMM_BUILDDIR:-$(pwd)}
cargo=${TCOMM_CARGO:-cargo}
if ! command -v "$cargo" >/dev/null 2>&1 && [ -z "${TCOMM_CARGO:-}" ] &&
    [ -x "${HOME:-/nonexistent}/.cargo/bin/cargo" ]; then
    cargo=$HOME/.cargo/bin/cargo
fi
skip="bindings/rust: SKIP: no Rust toolchain ($cargo not found; install rustc and cargo, e.g. scripts/install-deps, or pass CARGO=/path/to/cargo to make)"

# Under the sanitizers (scripts/check-sanitize.sh sets TCOMM_SKIP_RUST=1)
# a stable toolchain cannot instrument the crate, and an uninstrumented
# Rust program does not start against an ASan-built libtcomm: the plain
# make check runs the crate.
if [ "${TCOMM_SKIP_RUST:-0}" = 1 ]; then
    skip="bindings/rust: SKIP: TCOMM_SKIP_RUST=1 (the sanitizer build)"
    have_cargo() { false; }
else
    have_cargo() { command -v "$cargo" >/dev/null 2>&1; }
fi

setup() {
    cargo=$(command -v "$cargo")
    dir=$(dirname "$cargo")
    if [ -z "${RUSTC:-}" ] && [ -x "$dir/rustc" ]; then
        RUSTC=$dir/rustc
        export RUSTC
    fi
    if [ -z "${RUSTDOC:-}" ] && [ -x "$dir/rustdoc" ]; then
        RUSTDOC=$dir/rustdoc
        export RUSTDOC
    fi
    TCOMM_LIB_DIR=$build/.libs
    TCOMM_INCLUDE_DIR=$here/../../include
    CARGO_TARGET_DIR=$build/bindings/rust/target
    MPICC=${TCOMM_CC:-${MPICC:-mpicc}}
    export TCOMM_LIB_DIR TCOMM_INCLUDE_DIR CARGO_TARGET_DIR MPICC
    [ -f "$TCOMM_LIB_DIR/libtcomm.so" ] || {
        echo "bindings/rust: no $TCOMM_LIB_DIR/libtcomm.so (build tcomm first: make)" >&2
        exit 99
    }
    manifest=$here/Cargo.toml
    echo "bindings/rust: $("$cargo" --version) with $("${RUSTC:-rustc}" --version)"
}

case "${1:-test}" in
test)
    have_cargo || { echo "$skip"; exit 77; }
    setup
    "$cargo" test --offline --manifest-path "$manifest" || exit 1
    RUSTDOCFLAGS="-D warnings" "$cargo" doc --offline --no-deps \
        --manifest-path "$manifest" || exit 1
    # clippy of this toolchain only (another's would lint with its rustc)
    if [ -x "$(dirname "$cargo")/cargo-clippy" ]; then
        "$cargo" clippy --offline --all-targets --manifest-path "$manifest" \
            -- -D warnings || exit 1
    else
        echo "bindings/rust: no cargo-clippy beside $cargo; lints not checked"
    fi
    ;;
example)
    name=${2:?example name}
    out=${3:?output path}
    mkdir -p "$(dirname "$out")"
    rm -f "$out"
    if ! have_cargo; then
        printf '#!/bin/sh\necho "%s"\nexit 77\n' "$skip" >"$out"
        chmod +x "$out"
        exit 0
    fi
    setup >/dev/null
    "$cargo" build --offline --quiet --manifest-path "$manifest" \
        --example "$name" || exit 1
    cp "$CARGO_TARGET_DIR/debug/examples/$name" "$out"
    ;;
*)
    echo "usage: $0 test | example NAME OUT" >&2
    exit 99
    ;;
esac
