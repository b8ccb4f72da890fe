#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The shared libraries' libtool version changes when their interface
# does. test/abi-versions.txt pairs each version of configure.ac's
# TCOMM_LT_VERSION with a checksum of the interface it was given for:
# the public headers without comments (and without TCOMM_VERSION_*, which
# changes every release) and the names of test/exported-symbols.txt. A
# checksum that differs from the last line's means the interface changed
# and the version must too. `test/abi-version-check.sh --sum DIR` prints
# the checksum of DIR's include/ and test/ (e.g. an exported old commit).
set -u
build=${TCOMM_BUILDDIR:-.}
src=${srcdir:-.}

interface_sum() { # source tree
    for h in "$1"/include/*.h; do
        perl -0777 -pe 's{/\*.*?\*/}{ }gs; s{//[^\n]*}{}g' "$h" |
            grep -v '^#define TCOMM_VERSION_'
    done | tr -s ' \t\n' '   '
    grep -v '^#' "$1/test/exported-symbols.txt" | awk 'NF {print $1}' | sort
}
sum() { interface_sum "$1" | cksum | awk '{print $1 "-" $2}'; }
command -v perl >/dev/null || { echo "SKIP: no perl"; exit 77; }
if [ "${1:-}" = --sum ]; then sum "$2"; exit 0; fi

record="$src/test/abi-versions.txt"
status=0
fail() { echo "FAIL: $*"; status=1; }
now=$(sum "$src")
last=$(grep -v '^#' "$record" | awk 'NF' | tail -1)
lastv=$(echo "$last" | awk '{print $1}')
lasts=$(echo "$last" | awk '{print $2}')
[ "$now" = "$lasts" ] ||
    fail "the public interface changed since libtool version $lastv \
(checksum $now, recorded $lasts): set TCOMM_LT_VERSION in configure.ac \
by the rules there and add the line \"C:R:A $now\" to $record"

# each line a new version; current only grows, age <= current
grep -v '^#' "$record" | awk 'NF {
    split($1, v, ":")
    if (seen[$1]++) print "FAIL: " $1 " recorded twice"
    if (NR > 1 && v[1] + 0 <= cur) print "FAIL: " $1 ": current does not grow"
    if (v[3] + 0 > v[1] + 0) print "FAIL: " $1 ": age above current"
    cur = v[1] + 0 }' | grep . && status=1

# what was built carries the last line's version
for la in "$build/libtcomm.la" "$build/src/fortran/libtcomm_f.la"; do
    [ -f "$la" ] || continue
    built=$(. "$la" && echo "$current:$revision:$age")
    [ "$built" = "$lastv" ] ||
        fail "$(basename "$la") is built as $built, $record says $lastv"
done
if [ -f "$build/libtcomm.la" ]; then
    major=$(echo "$lastv" | awk -F: '{print $1 - $3}')
    [ -e "$build/.libs/libtcomm.so.$major" ] ||
        fail "no .libs/libtcomm.so.$major (soname of $lastv)"
fi
[ $status -eq 0 ] && echo "PASS: libtool version $lastv, interface $now"
exit $status
