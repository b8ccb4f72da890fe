#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make install prefix=DIR` (DIR not configure's prefix): libtool cannot
# relink libtcomm_f there, and tcomm.pc would name configure's prefix. It
# must stop before it copies anything, with the commands that work in the
# message; DESTDIR= (staging) still installs.
set -eu
build=${TCOMM_BUILDDIR:?run through make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-prefix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for goal in install install-exec install-data; do
    rc=0
    make -C "$build" "$goal" prefix="$tmp/x" >"$tmp/log" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] || fail "make $goal prefix=$tmp/x succeeded"
    if [ -e "$tmp/x" ]; then
        find "$tmp/x" -type f | head -5
        fail "make $goal prefix=$tmp/x copied files before it failed"
    fi
    for want in "./configure --prefix=$tmp/x" "DESTDIR="; do
        grep -qF -- "$want" "$tmp/log" || {
            tail -5 "$tmp/log"
            fail "make $goal prefix=...: the message does not name $want"
        }
    done
    echo "ok: make $goal prefix=DIR: $(grep -F -- "--prefix=$tmp/x" "$tmp/log" |
        head -1)"
done
