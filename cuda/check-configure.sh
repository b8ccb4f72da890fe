#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# configure's CUDA options: an explicit --with-cuda that cannot be
# honoured stops configure with a message naming the directory and the
# fix. Runs configure in a scratch directory (it stops at the CUDA checks).
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcomm-cfg.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
# A private source tree of links, so that an in-tree build's config.status
# does not make configure refuse to run elsewhere.
for f in "$srcdir"/* "$srcdir"/.[!.]*; do
    case ${f##*/} in
        config.status|config.log|config.h|GNUmakefile|libtool|stamp-h1|.git) ;;
        *) [ -e "$f" ] && ln -s "$f" "$tmp/${f##*/}" ;;
    esac
done
cd "$tmp" || exit 99
[ -x ./configure ] || { echo "SKIP: no configure script"; exit 77; }
if ./configure --with-cuda=/nonexistent >out.log 2>&1; then
    echo "FAIL: configure --with-cuda=/nonexistent succeeded"
    exit 1
fi
if ! grep -q "with-cuda=/nonexistent cannot be honoured: no /nonexistent/bin/nvcc" out.log ||
   ! grep -q "without-cuda" out.log; then
    echo "FAIL: configure --with-cuda=/nonexistent: unclear message:"
    tail -5 out.log
    exit 1
fi
echo "PASS: $(grep 'cannot be honoured' out.log)"
exit 0
