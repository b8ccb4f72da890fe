#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The documentation keeps up with the code. doc/reference.md names every
# configure option and variable (`configure --help`), every setting that
# tcomm_info lists, every environment variable that the code or a script
# reads (getenv in the C sources, the settings table, the ${...:-...}
# forms in the shell scripts, ?= in the bootstrap Makefile and the .mk
# files, the Rust build script's env reads, CMake's $ENV{}), every option
# of the harness (its -h) and of tcomm_info (its -h and the option strings
# of its source), and every status code of include/tcomm.h; the man pages
# name every setting and every harness option and render without
# warnings; tcomm_info.1 says each setting's default, sizes and names as
# the table does; the harness's man pages name every JSON key it writes;
# rust.md names the C functions the crate lacks; design-notes.md's file
# counts are right; no guide cites a ../ path outside the repository;
# README's figures cite doc/performance.md's latest make bench;
# README links the guides and names every package that
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

# tcomm_info.1's entry of each setting says what the table says: its
# default, and every size (4 KiB) and every name with an underscore
# (process_vm_readv, TCOMM_ERR_TIMEOUT) of the table's description
"$build/src/tools/tcomm_info" --parsable >"$tmp/parsable" 2>/dev/null
n=0
for s in $settings; do
    awk -v s="$s" '$0 == ".B " s { on = 1; next }
        on && /^\.(TP|PP|SH)/ { exit } on' "$man/tcomm_info.1" |
        sed 's/\\-/-/g' | tr '\n' ' ' >"$tmp/entry"
    desc=$(sed -n "s/^setting\.$s\.description://p" "$tmp/parsable")
    def=$(sed -n "s/^setting\.$s\.default://p" "$tmp/parsable")
    { echo "$def"
      echo "$desc" | grep -oE '[0-9]+ [KMG]iB'
      echo "$desc" | grep -oE '[A-Za-z0-9]+(_[A-Za-z0-9]+)+'
    } | sort -u >"$tmp/terms"
    while read -r t; do
        grep -qF -e "$t" "$tmp/entry" ||
            missing "tcomm_info.1's $s entry" "$t (from the settings table)"
    done <"$tmp/terms"
    n=$((n + 1))
done
echo "tcomm_info.1 against the settings table: $n entries checked"

# environment variables that the code and the scripts read. Variables of
# the system (not tcomm's; OUT_DIR is cargo's) are not documented here.
system_vars=" TMPDIR LD_PRELOAD LD_LIBRARY_PATH PATH HOME OUT_DIR "
dirs=
for d in src test bench fuzz cuda mpi_kernels scripts doc .ci bindings; do
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
    # make variables that the automake fragments default (CARGO ?= cargo)
    find "$src" -name '*.mk' ! -path '*/.git/*' -exec \
        sed -n 's/^\([A-Z][A-Z0-9_]*\) *?=.*/\1/p' {} +
    sed -n 's/^\([A-Z][A-Z0-9_]*\) *?=.*/\1/p' "$src/Makefile.am"
    # the Rust crate's build script and the CMake package files
    find $dirs -type f -name '*.rs' -exec grep -ohE \
        '(env::var(_os)?|env_path)\("[A-Z][A-Z0-9_]*"\)' {} + |
        sed 's/.*("//; s/")$//'
    grep -ohE 'ENV\{[A-Z][A-Z0-9_]*\}' "$src"/cmake/*.in |
        sed 's/^ENV{//; s/}$//'
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

# every key the harness writes to its JSON file is in the man page: the
# nonblocking programs' (bench_nonblocking.c) in osu_tcomm_iallreduce.1,
# the others in osu_tcomm_allreduce.1
n=0
for f in "$src"/bench/*.c; do
    page=osu_tcomm_allreduce.1
    [ "$(basename "$f")" = bench_nonblocking.c ] && page=osu_tcomm_iallreduce.1
    for k in $(grep -oE '\\"[a-z_]+\\": ' "$f" | sed 's/^\\"//; s/\\": $//' |
        sort -u); do
        grep -qw -e "$k" "$man/$page" || missing "$page" "the JSON key $k"
        n=$((n + 1))
    done
done
[ "$n" -gt 20 ] || { echo "FAIL: found only $n JSON keys in bench/"; status=1; }
echo "harness JSON keys: $n checked"
# a --json FILE the harness cannot open is status 2 (bench/osu_tcomm.c)
sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$man/osu_tcomm_allreduce.1" |
    sed 's/\\-/-/g' | tr '\n' ' ' | grep -q ' 2 for .*--json' ||
    missing "osu_tcomm_allreduce.1's EXIT STATUS" "--json under status 2"

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

# rust.md names each function of the later contracts that the crate's
# FFI does not declare (what the crate lacks, said as lacking)
n=0
for f in $(grep -v '^#' "$src/test/exported-symbols.txt" |
    awk '$2 ~ /^since=/ {print $1}'); do
    grep -qw -e "$f" "$src/bindings/rust/src/ffi.rs" && continue
    has "$src/doc/rust.md" "\`${f#tcomm_}\`"
    n=$((n + 1))
done
echo "rust.md: $n C functions not in the crate checked"

# design-notes.md's "files" column: the files in each folder itself,
# local.mk (its build rules) aside
n=0
sed -n 's/^| `\([a-z_/]*\)\/` | \([0-9][0-9]*\) |.*/\1 \2/p' \
    "$src/doc/design-notes.md" >"$tmp/counts"
while read -r d c; do
    # (an in-tree build leaves objects and programs, without a suffix)
    real=$(find "$src/$d" -maxdepth 1 -type f -name '?*.*' \
        ! -name local.mk ! -name '*.o' ! -name '*.lo' ! -name '*.la' \
        ! -name '*.mod' ! -name '*.so' ! -name '*.log' ! -name '*.trs' |
        wc -l)
    [ "$real" = "$c" ] || {
        echo "FAIL: design-notes.md says $d/ has $c files, it has $real"
        status=1; }
    n=$((n + 1))
done <"$tmp/counts"
[ "$n" -gt 5 ] || { echo "FAIL: no file counts in design-notes.md"; status=1; }
echo "design-notes.md: $n folders' file counts checked"

# a ../ path that README or a guide cites is a file of the repository
top=$(cd "$src" && pwd -P)
for f in "$src/README.md" "$src"/doc/*.md; do
    dir=$(cd "$(dirname "$f")" && pwd -P)
    for p in $(grep -oE '[`(]\.\./[^`) ]+' "$f" | cut -c2-); do
        case $(realpath -m "$dir/$p") in
            "$top"/*) [ -e "$dir/$p" ] && continue ;;
        esac
        echo "FAIL: $f cites $p, not a file of the repository"; status=1
    done
done

# README's performance figures are those of the run doc/performance.md
# calls its latest, and each run README's Performance section names
# (HH:MM) is one doc/performance.md describes
latest=$(sed -n 's/.*\*\*Latest: `make bench` of \([0-9-]* [0-9:]*\) UTC.*/\1/p' \
    "$src/doc/performance.md" | head -1)
sed -n '/^## Performance/,/^## [^P]/p' "$src/README.md" >"$tmp/perf"
if [ -z "$latest" ]; then
    echo "FAIL: doc/performance.md names no **Latest: \`make bench\` of DATE TIME UTC**"
    status=1
else
    grep -q "make bench\` of $latest UTC" "$tmp/perf" ||
        missing "README.md's Performance" "the latest make bench ($latest UTC)"
fi
for t in $(grep -oE '\b[0-2][0-9]:[0-5][0-9]\b' "$tmp/perf" | sort -u); do
    grep -q "$t" "$src/doc/performance.md" ||
        missing "doc/performance.md" "the $t run that README cites"
done

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
