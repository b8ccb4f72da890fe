#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# README.md's examples work as written: the first ```c and ```fortran
# blocks are compiled with the README's own build-tree commands (the ```sh
# block that starts `src=$PWD build=$PWD`) and run at 1-4 ranks; rank 0's
# line must be the result for that many ranks. The C example is also
# built with -ftrivial-auto-var-init=pattern (uninitialised pointers are
# garbage, not zero) and with TCOMM_I32, on which TCOMM_AVG fails: it
# must then print the error and exit 1 on every rank, never crash.
set -u
src=$(cd "${srcdir:-.}" && pwd)
build=$(cd "${TCOMM_BUILDDIR:?run through make check}" && pwd)
readme="$src/README.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# block LANG: the first fenced block of that language
block() { awk -v lang="$1" '
    !on && $0 == "```" lang { on = 1; next }
    on && $0 == "```" { exit }
    on { print }' "$readme"; }
block c >"$tmp/prog.c"
block fortran >"$tmp/prog.f90"
# the build-tree recipe: the sh block whose first line sets src and build
awk '$0 == "```sh" { on = 1; first = 1; next }
     on && $0 == "```" { if (keep) exit; on = 0; next }
     on && first { first = 0; keep = ($0 ~ /^src=\$PWD build=\$PWD/); next }
     on && keep { print }' "$readme" >"$tmp/recipe.sh"
[ -s "$tmp/prog.c" ] || fail "README.md has no \`\`\`c block"
[ -s "$tmp/prog.f90" ] || fail "README.md has no \`\`\`fortran block"
grep -q '^mpicc ' "$tmp/recipe.sh" || fail "README.md: no build-tree mpicc line"

cc=${TCOMM_CC:-mpicc}
fc=$(sed -n 's/^FC = //p' "$build/GNUmakefile" 2>/dev/null)
# recipe LANG: the README's command for prog.LANG, with the build's
# compiler wrapper for mpicc / mpif90 and EXTRA flags appended
recipe() {
    awk -v w="$1" '
        $1 == w { on = 1 }
        on { print; if ($0 !~ /\\$/) exit }' "$tmp/recipe.sh"
}
compile() { # LANG COMPILER OUT EXTRA...
    lang=$1 comp=$2 out=$3
    shift 3
    cmd=$(recipe "$lang" | sed "1s|^$lang |$comp |")
    [ -n "$cmd" ] || fail "README.md: no build-tree $lang line"
    (cd "$tmp" && eval "$cmd -o $out $*") || fail "$cmd"
}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # NP PROGRAM: rank 0's standard output
    timeout 120 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np "$1" "$tmp/$2"
}
pattern=
if echo 'int main(void){return 0;}' >"$tmp/t.c" &&
    $cc -ftrivial-auto-var-init=pattern -o "$tmp/t" "$tmp/t.c" 2>/dev/null; then
    pattern=-ftrivial-auto-var-init=pattern
fi

compile mpicc "$cc" c_prog "$pattern"
sed 's/TCOMM_F32/TCOMM_I32/' "$tmp/prog.c" >"$tmp/i32.c"
grep -q TCOMM_I32 "$tmp/i32.c" || fail "the C example has no TCOMM_F32"
sed 's/prog\.c/i32.c/' "$tmp/recipe.sh" >"$tmp/r" && mv "$tmp/r" "$tmp/recipe.sh"
compile mpicc "$cc" c_i32 "$pattern"
for np in 1 2 3 4; do
    want=$(awk -v n="$np" 'BEGIN { m = (n - 1) / 2;
        printf "average over %d ranks: %g %g %g %g", n, m, m + 1, m + 2, m + 3 }')
    got=$(run "$np" c_prog) || fail "C example at $np ranks: exit $?: $got"
    [ "$got" = "$want" ] || fail "C example at $np ranks printed '$got', not '$want'"
    echo "C, $np ranks: $got"
    got=$(run "$np" c_i32 2>&1)
    rc=$?
    [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ $rc -ne 124 ] ||
        fail "C example with TCOMM_I32 at $np ranks: exit $rc (want 1): $got"
    echo "$got" | grep -q 'TCOMM_AVG needs a floating dtype' ||
        fail "C example with TCOMM_I32 at $np ranks printed no error: $got"
    echo "C with TCOMM_I32, $np ranks: the error, exit $rc"
done

if [ ! -f "$build/src/fortran/libtcomm_f.la" ] || [ -z "$fc" ]; then
    echo "Fortran: not built here, its example skipped"
    exit 0
fi
compile mpif90 "$fc" f_prog
for np in 1 2 3 4; do
    want="residual $((np * (np + 1) / 2)), last column from rank $((np - 1))"
    got=$(run "$np" f_prog) || fail "Fortran example at $np ranks: exit $?: $got"
    [ "$got" = "$want" ] || fail "Fortran example at $np ranks printed '$got', not '$want'"
    echo "Fortran, $np ranks: $got"
done
