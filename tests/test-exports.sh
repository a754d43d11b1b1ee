#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library's public boundary: `nm -D --defined-only` lists
# exactly the functions and variables the headers under include/ declare
# (the compiler's own list of the prototypes it read, -aux-info), no
# internal symbol and no declared name missing.
# Nothing under src/cli/ includes an internal header.
# Run from the repository root with BUILD set (tests/run.sh does).
set -u
B=${BUILD:-build}
CC=${CC:-cc}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
printf '#include "hardsoft.h"\n#include "hardsoft/kernels.h"\n' > "$t/decl.c"
"$CC" -Iinclude -aux-info "$t/aux" -fsyntax-only "$t/decl.c" || exit 1
# functions: "/* include/...:N:NC */ extern TYPE name (ARGS);", static
# inline helpers left out; variables: the extern declarations
{ grep 'include/hardsoft' "$t/aux" | grep -v ' static ' |
    sed -n 's/.*[ *]\(hs_[a-z0-9_]*\) (.*/\1/p'
  grep -h '^extern HS_API' include/hardsoft.h include/hardsoft/*.h |
    sed -n 's/.*[ *]\(hs_[a-z0-9_]*\)\[.*/\1/p'; } | sort -u > "$t/declared"
# (names starting with __ are the compiler's: AddressSanitizer's
# __odr_asan.* markers of exported variables)
nm -D --defined-only "$B/libhardsoft.so" | awk '{print $3}' | grep -v '^__' |
  sort -u > "$t/exported"
[ -s "$t/declared" ] || { echo "FAIL no declarations found"; exit 1; }
fail=0
extra=$(comm -13 "$t/declared" "$t/exported")
missing=$(comm -23 "$t/declared" "$t/exported")
[ -n "$extra" ] && { echo "FAIL exported but not declared:" $extra; fail=1; }
[ -n "$missing" ] && { echo "FAIL declared but not exported:" $missing; fail=1; }
# the command line is a user of the library: it includes the public
# headers and its own, nothing internal
internal=$(grep -n '^#include "' src/cli/*.c src/cli/*.h |
  grep -v '#include "\(hardsoft\.h\|hardsoft/[a-z]*\.h\|cli/cli\.h\)"')
[ -n "$internal" ] && { echo "FAIL src/cli includes internal headers: $internal"; fail=1; }
[ $fail = 0 ] && echo "test-exports: ok ($(wc -l < "$t/exported") symbols)"
exit $fail
