#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tcomm_info: lists every setting; -h/--help; unknown options and
# arguments exit 2 with a usage line; --parsable gives one key:value per
# line with stable keys; the backends listed are those configure built
# (config.h); the build facts are config.h's; under mpirun (2 ranks) the
# shared sections come once and each rank's section is labelled with its
# rank and host, in rank order; --algorithms lists every collective's
# table and the rules of TCOMM_TUNE, and refuses a rule that does not
# parse.
set -eu
b=${TCOMM_BUILDDIR:-.}
info=$b/src/tools/tcomm_info
fail() { echo "FAIL: $*"; exit 1; }

out=$("$info")
echo "$out"
for v in TCOMM_DEBUG TCOMM_CHECK TCOMM_DETERMINISTIC TCOMM_TIMEOUT \
    TCOMM_CUDA_AWARE TCOMM_STAGING_CHUNK TCOMM_SINGLE_COPY "CUDA-aware MPI" "MPI library" \
    "MPI standard" "large-count calls" "Fortran bindings" "CUDA transport" \
    "prefix" "C compiler" "configure flags" "backends" "identity" "local" \
    "gloo" "nccl" "rank 0 of 1 on"; do
    echo "$out" | grep -q "$v" || fail "tcomm_info lacks $v"
done

# Options: help on stdout and 0; anything else unknown on stderr and 2.
for h in -h --help; do
    "$info" "$h" | grep -q '^usage: tcomm_info' || fail "$h: no usage line"
done
for bad in --bogus -x extra "--parsable extra"; do
    # shellcheck disable=SC2086
    rc=0; err=$("$info" $bad 2>&1 >/dev/null) || rc=$?
    [ "$rc" -eq 2 ] || fail "tcomm_info $bad: exit $rc, wanted 2"
    echo "$err" | grep -q "^usage: tcomm_info" || fail "$bad: no usage"
    echo "$err" | grep -q "tcomm_info: unknown" || fail "$bad: no reason"
done
# Every option of -h is in the man page.
man=$(dirname "$0")/../doc/man/tcomm_info.1
for o in $("$info" -h | grep -oE -- '--[a-z-]+' | sort -u); do
    grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$man" ||
        fail "man page lacks $o"
done
for v in --version -V -v; do # -v too, like the harness (issue 27)
    "$info" $v | grep -qx 'tcomm [0-9]*\.[0-9]*\.[0-9]*' || fail "$v"
done

# --algorithms: a table per collective, in the order tried, with the
# rules of TCOMM_TUNE after their table's rows.
a=$(TCOMM_TUNE="all_to_all:0-16k:mpi_alltoall_vector,barrier:0-:mpi_barrier" \
    "$info" --algorithms)
for t in all_reduce all_gather reduce_scatter broadcast reduce all_to_all \
    all_to_all_v reduce_scatter_v barrier; do
    echo "$a" | grep -q "^$t (ranges of " || fail "--algorithms lacks $t"
done
for row in node_all_to_all all_to_all_rows "pack+mpi_alltoall+unpack" \
    node_all_to_all_v "pack+mpi_alltoallv+unpack" mpi_reduce_scatter_pipe \
    mpi_reduce_scatter_pack timeout_barrier mpi_barrier; do
    echo "$a" | grep -qF "  $row " || fail "--algorithms lacks the row $row"
done
echo "$a" | grep -q "TCOMM_TUNE: mpi_alltoall_vector first at 0-16k" ||
    fail "--algorithms lacks the all_to_all rule"
rc=0; TCOMM_TUNE="barrier:0-:mpi_alltoall" "$info" --algorithms \
    >/dev/null 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "--algorithms took a rule naming another table's row"

# --parsable: key:value, the key a dotted name; every stable key there.
p=$("$info" --parsable)
bad=$(echo "$p" | grep -v '^[A-Za-z0-9_.]*:' || true)
[ -z "$bad" ] || fail "lines that are not key:value: $bad"
dups=$(echo "$p" | cut -d: -f1 | sort | uniq -d)
[ -z "$dups" ] || fail "keys repeated: $dups"
val() { echo "$p" | sed -n "s/^$1://p"; }
for k in version build.prefix build.cc build.cc_version build.cflags \
    build.cxx build.fc build.nvcc build.configure_args build.mpi_impl \
    build.mpi_standard build.large_count build.cuda build.fortran \
    runtime.mpi_library runtime.ranks rank.0.host rank.0.cuda_aware_mpi \
    rank.0.gpu0 setting.TCOMM_DEBUG.value setting.TCOMM_DEBUG.default; do
    echo "$p" | grep -q "^$k:" || fail "--parsable lacks $k"
done
for be in identity local mpi gloo nccl; do
    for f in built usable; do
        echo "$p" | grep -q "^backend.$be.$f:" ||
            fail "--parsable lacks backend.$be.$f"
    done
done

# The facts are config.h's.
h=$b/config.h
def() { sed -n "s/^#define $1 \"\(.*\)\"$/\1/p" "$h" | sed 's/\\"/"/g; s/\\\\/\\/g'; }
[ "$(val version)" = "$(def PACKAGE_VERSION)" ] || fail version
[ "$(val build.prefix)" = "$(def TCOMM_BUILD_PREFIX)" ] || fail prefix
[ "$(val build.cc)" = "$(def TCOMM_BUILD_CC)" ] || fail cc
args=$(def TCOMM_BUILD_CONFIGURE_ARGS | sed 's/^ *//')
[ "$(val build.configure_args)" = "$args" ] || fail "configure args"
for be in gloo nccl; do
    up=$(echo "$be" | tr a-z A-Z)
    want=no; grep -q "^#define TCOMM_HAVE_$up 1" "$h" && want=yes
    [ "$(val backend.$be.built)" = "$want" ] ||
        fail "backend.$be.built is $(val backend.$be.built), config.h: $want"
    [ "$want" = yes ] || [ "$(val backend.$be.usable)" != yes ] ||
        fail "$be not built but usable"
    # not built: configure's reason (turned off, or not found)
    [ "$want" = yes ] || [ "$(val backend.$be.why)" = "$(def TCOMM_${up}_WHY)" ] ||
        fail "backend.$be.why is '$(val backend.$be.why)', config.h: $(def TCOMM_${up}_WHY)"
done
for be in identity local mpi; do
    [ "$(val backend.$be.built)" = yes ] || fail "$be not built"
    [ "$(val backend.$be.usable)" = yes ] || fail "$be not usable"
done
[ "$(val runtime.ranks)" = 1 ] || fail "ranks $(val runtime.ranks)"

# Under mpirun at 2 ranks: once the shared parts, each rank labelled.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC2086
run2() { timeout 120 "${MPIRUN:-mpirun}" ${MPIRUN_FLAGS-} -np 2 "$info" "$@"; }
host=$(hostname)
m=$(run2)
echo "$m" | sed -n '/^run time/,$p'
[ "$(echo "$m" | grep -c '^tcomm [0-9]')" -eq 1 ] || fail "version twice"
[ "$(echo "$m" | grep -c '^settings')" -eq 1 ] || fail "settings twice"
for r in 0 1; do
    [ "$(echo "$m" | grep -c "^rank $r of 2 on $host:")" -eq 1 ] ||
        fail "no single section labelled 'rank $r of 2 on $host:'"
done
l0=$(echo "$m" | grep -n '^rank 0 of 2' | cut -d: -f1)
l1=$(echo "$m" | grep -n '^rank 1 of 2' | cut -d: -f1)
[ "$l0" -lt "$l1" ] || fail "rank sections out of order"
mp=$(run2 --parsable)
[ "$(echo "$mp" | grep -c '^version:')" -eq 1 ] || fail "parsable version"
for r in 0 1; do
    [ "$(echo "$mp" | sed -n "s/^rank.$r.host://p")" = "$host" ] ||
        fail "parsable rank.$r.host"
done
[ "$(echo "$mp" | sed -n 's/^runtime.ranks://p')" = 2 ] || fail "ranks 2"
echo "tcomm_info: all checks passed"
