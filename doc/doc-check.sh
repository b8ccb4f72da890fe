#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The documentation keeps up with the code: doc/reference.md names every
# configure option and variable (`configure --help`), every setting that
# tcomm_info lists and every status code of include/tcomm.h; the man pages
# name every setting and every harness option (`osu_tcomm_allreduce -h`)
# and render without warnings; README links the guides.
set -u
src=${srcdir:-.}
build=${TCOMM_BUILDDIR:-.}
ref="$src/doc/reference.md"
man="$src/doc/man"
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
missing() { echo "FAIL: $1 does not mention $2"; status=1; }
has() { grep -qF -e "$2" "$1" || missing "$1" "$2"; }

# configure options and precious variables
[ -x "$src/configure" ] || { echo "no $src/configure"; exit 99; }
"$src/configure" --help >"$tmp/help" || exit 99
opts=$(grep -oE '^ +--(enable|disable|with|without)-[a-z0-9-]+' "$tmp/help" |
    sed 's/^ *//' | grep -vE -e '-(FEATURE|PACKAGE)$' | sort -u)
vars=$(sed -n '/^Some influential environment variables/,/^Use these/p' \
    "$tmp/help" | grep -oE '^  [A-Z][A-Z0-9_]+' | sed 's/^ *//' | sort -u)
n=0
for o in $opts $vars; do has "$ref" "\`$o"; n=$((n + 1)); done
echo "configure: $n options and variables checked"

# settings: the table as tcomm_info prints it
info=$("$build/src/tools/tcomm_info" 2>&1) || { echo "$info"; exit 1; }
settings=$(echo "$info" | sed -n 's/^  \(TCOMM_[A-Z0-9_]*\) *=.*/\1/p')
[ -n "$settings" ] || { echo "tcomm_info printed no settings"; exit 1; }
for s in $settings; do
    has "$ref" "\`$s\`"
    has "$man/tcomm_info.1" "$s"
done
echo "settings: $(echo $settings | wc -w) checked"

# status codes
codes=$(sed -n 's/^ *\(TCOMM_\(SUCCESS\|ERR_[A-Z_]*\)\) *=.*/\1/p' \
    "$src/include/tcomm.h")
for c in $codes; do has "$ref" "\`$c\`"; done
echo "status codes: $(echo $codes | wc -w) checked"

# the harness's options, from its own help
help=$("$build/bench/osu_tcomm_allreduce" -h 2>&1)
longs=$(echo "$help" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
sed 's/\\-/-/g' "$man/osu_tcomm_allreduce.1" >"$tmp/man"
for o in $longs; do
    grep -qF -e "$o" "$tmp/man" || missing osu_tcomm_allreduce.1 "$o"
done
echo "harness options: $(echo $longs | wc -w) checked"

# the man pages render cleanly
if command -v groff >/dev/null 2>&1; then
    for p in "$man"/*.1; do
        head -1 "$p" | grep -q '^\.so ' && continue # a link page
        out=$(groff -man -ww -z "$p" 2>&1)
        [ -z "$out" ] || { echo "FAIL: groff warns on $p: $out"; status=1; }
    done
fi

# README links the guides
for d in user-guide design-notes fortran performance reference; do
    has "$src/README.md" "(doc/$d.md)"
done
exit $status
