#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The documentation keeps up with the code. doc/reference.md names every
# configure option and variable (`configure --help`), every setting that
# tcomm_info lists, every environment variable that the code or a script
# reads (getenv in the C sources, the settings table, the ${...:-...}
# forms in the shell scripts, ?= in the bootstrap Makefile), every option
# of the harness (its -h) and of tcomm_info (its -h and the option strings
# of its source), and every status code of include/tcomm.h; the man pages
# name every setting and every harness option and render without
# warnings; README links the guides and names every package that
# scripts/install-deps installs. Everything is derived from the sources
# and the programs' own help, so a new variable or option fails here
# until it is documented; what is missing is listed.
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

# environment variables that the code and the scripts read. Variables of
# the system (not tcomm's) are not documented here.
system_vars=" TMPDIR LD_PRELOAD LD_LIBRARY_PATH PATH HOME "
dirs=
for d in src test bench fuzz cuda mpi_kernels scripts doc .ci; do
    [ -d "$src/$d" ] && dirs="$dirs $src/$d"
done
# shellcheck disable=SC2086
{
    find $dirs -type f \( -name '*.c' -o -name '*.cc' -o -name '*.h' \
        -o -name '*.cu' \) -exec grep -ohE 'getenv\("[A-Z][A-Z0-9_]*"\)' {} + |
        sed 's/^getenv("//; s/")$//'
    sed -n 's/^ *{"\(TCOMM_[A-Z0-9_]*\)",.*/\1/p' "$src/src/core/config.c"
    find $dirs -type f \( -name '*.sh' -o -path "$src/scripts/*" \
        -o -path "$src/.ci/*" \) ! -name '*.o' -exec grep -ohE \
        '\$\{[A-Z][A-Z0-9_]+:?[-=?+]' {} + |
        sed 's/^\${//; s/:\{0,1\}[-=?+]$//'
    [ -f "$src/Makefile" ] && # the bootstrap, not in a tarball
        sed -n 's/^\([A-Z][A-Z0-9_]*\) *?=.*/\1/p' "$src/Makefile"
} | sort -u >"$tmp/env"
n=0
for v in $(cat "$tmp/env"); do
    case "$system_vars" in *" $v "*) continue ;; esac
    has "$ref" "\`$v\`"
    n=$((n + 1))
done
[ "$n" -gt 20 ] || { echo "FAIL: found only $n variables in the sources"; status=1; }
echo "environment variables read by the code and scripts: $n checked"

# status codes
codes=$(sed -n 's/^ *\(TCOMM_\(SUCCESS\|ERR_[A-Z_]*\)\) *=.*/\1/p' \
    "$src/include/tcomm.h")
for c in $codes; do has "$ref" "\`$c\`"; done
echo "status codes: $(echo $codes | wc -w) checked"

# options in a program's help: every --long one, and the -x ones that
# start an option line ("  -m, --message-size", ";  -v, --version") or
# stand in brackets ("[-h]")
help_options() {
    grep -oE -- '--[a-z][a-z0-9-]+' "$1"
    grep -oE -- '(^|;|\[) *-[a-zA-Z]([],| ]|$)' "$1" |
        grep -oE -- '-[a-zA-Z]'
}

# the harness's options, from the programs' own help (the nonblocking
# ones' too: osu_tcomm_allreduce.1 names their options as well)
: >"$tmp/hopts"
for p in allreduce allgather reduce_scatter bcast barrier alltoall \
    iallreduce iallgather ireduce_scatter ibcast ialltoall; do
    "$build/bench/osu_tcomm_$p" -h >"$tmp/help" 2>&1 ||
        { echo "FAIL: osu_tcomm_$p -h failed"; status=1; }
    help_options "$tmp/help" >>"$tmp/hopts"
done
hopts=$(sort -u "$tmp/hopts")
sed 's/\\-/-/g' "$man/osu_tcomm_allreduce.1" >"$tmp/man"
for o in $hopts; do
    grep -qF -e "$o" "$tmp/man" || missing osu_tcomm_allreduce.1 "$o"
    has "$ref" "\`$o"
done
[ -n "$hopts" ] || { echo "FAIL: the harness's -h lists no options"; status=1; }
echo "harness options: $(echo $hopts | wc -w) checked"

# tcomm_info's options: its help, and the option strings of its source
"$build/src/tools/tcomm_info" -h >"$tmp/help" 2>&1
iopts=$({
    help_options "$tmp/help"
    cat "$src"/src/tools/tcomm_info*.c | grep -oE '"--?[a-zA-Z][a-zA-Z0-9-]*"' |
        tr -d '"'
} | sort -u)
for o in $iopts; do has "$ref" "\`$o"; done
echo "tcomm_info options: $(echo $iopts | wc -w) checked"

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

# README names every package that scripts/install-deps installs
pkgs=$(sed -n '/^PACKAGES="/,/"/p' "$src/scripts/install-deps" |
    sed 's/^PACKAGES=//' | tr -d '"')
[ -n "$pkgs" ] || { echo "FAIL: no PACKAGES in scripts/install-deps"; status=1; }
for p in $pkgs; do has "$src/README.md" "\`$p\`"; done
echo "install-deps packages in README.md: $(echo $pkgs | wc -w) checked"

# TRACE path words: each word of the one list (src/core/tcomm_paths.h)
# and each gloo_/nccl_/local_ word of src/backends, less the pack+,
# +pack, +unpack and +fold it may carry, has a line "- `word`: ..." under
# reference.md's "### `path` values"; and each word listed there is one
# of them (or `none`).
sed -n '/^### `path` values/,/^##/p' "$ref" |
    sed -n 's/^- `\([a-z_]*\)`:.*/\1/p' | sort -u >"$tmp/listed"
{
    sed -n 's/^ *X([A-Z0-9_]*, "\([a-z0-9_+]*\)").*/\1/p' \
        "$src/src/core/tcomm_paths.h"
    cat "$src"/src/backends/*.c "$src"/src/backends/*.cc |
        grep -oE '"(gloo|nccl|local)_[a-z0-9_+]*"' | tr -d '"'
} | sed 's/^pack+//; s/+.*//' | sort -u >"$tmp/paths"
[ "$(wc -l <"$tmp/paths")" -gt 40 ] ||
    { echo "FAIL: found only $(wc -l <"$tmp/paths") path words"; status=1; }
for w in $(comm -23 "$tmp/paths" "$tmp/listed"); do
    missing "$ref (### \`path\` values)" "\`$w\`"
done
for w in $(comm -13 "$tmp/paths" "$tmp/listed"); do
    [ "$w" = none ] && continue
    echo "FAIL: $ref lists path \`$w\`, which the code no longer has"
    status=1
done
for m in 'pack+' '+pack' '+unpack' '+fold'; do has "$ref" "\`$m\`"; done
echo "TRACE path words: $(wc -l <"$tmp/paths") checked"

[ $status -eq 0 ] || echo "doc-check: the documentation misses the above"
exit $status
