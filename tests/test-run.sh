#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/run.sh counts passed, failed, skipped and not-run-on-this-CPU apart:
# shell tests that pass, fail, skip as a whole (exit 77) or in part (SKIP
# lines), and a kernel test whose AVX-512 loops are made to look missing
# (HS_TEST_WITHOUT_ISA, tests/common.h) report exactly that on the last
# two lines; a skip never counts as a pass.
set -u
B=${BUILD:-build}
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
printf 'exit 0\n' >"$t/pass.sh"
printf 'echo "SKIP one part"\necho "SKIP another"\nexit 0\n' >"$t/part.sh"
printf 'echo "no frobnicator here"\nexit 77\n' >"$t/whole.sh"
printf 'echo "FAIL on purpose"\nexit 1\n' >"$t/fails.sh"
bin=$B/tests/test-f32-exp
[ -x "$bin" ] || { echo "FAIL: $bin is missing (make check builds it)"; exit 1; }
all=$("$bin" 2>&1 | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')

# the ISA a CPU lacks: named once, its loops not counted as anything
# (wasm128 and neon too: an x86 build never runs them)
HS_TEST_WITHOUT_ISA=avx512 TESTS_SH="$t/pass.sh $t/part.sh $t/whole.sh $t/fails.sh" \
  sh tests/run.sh "$bin" "$bin" >"$t/out" 2>&1
rc=$?
[ "$rc" = 1 ] || { echo "FAIL: run.sh exit $rc with a failing test, want 1"; fail=1; }
want_pass=$((2 * all + 2))
tail -2 "$t/out" >"$t/last"
printf 'not run on this CPU: avx512, wasm128, neon\ntests: %d passed, 1 failed, 3 skipped\n' "$want_pass" >"$t/want"
cmp -s "$t/last" "$t/want" || { echo "FAIL: summary"; cat "$t/last"; echo "want:"; cat "$t/want"; fail=1; }
grep -q '^failing: fails.sh$' "$t/out" || { echo "FAIL: the failing test is not named"; fail=1; }
grep -q 'whole.sh: skipped: no frobnicator here' "$t/out" || { echo "FAIL: the skip's reason is not shown"; fail=1; }
# CI reads "N passed, N failed" optionally followed by ", N skipped"
tail -1 "$t/out" | grep -Eq '^tests: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' ||
  { echo "FAIL: the last line is not parseable: $(tail -1 "$t/out")"; fail=1; }

# every x86 ISA there, nothing failing: exit 0, only wasm128 and neon not run
TESTS_SH="$t/pass.sh" sh tests/run.sh "$bin" >"$t/out" 2>&1 || { echo "FAIL: run.sh failed"; fail=1; }
missing=""
for isa in avx2 avx512; do grep -q "$isa" /proc/cpuinfo || missing="$missing $isa"; done
if [ -z "$missing" ]; then
  printf 'not run on this CPU: wasm128, neon\ntests: %d passed, 0 failed, 0 skipped\n' $((all + 1)) >"$t/want"
  tail -2 "$t/out" | cmp -s - "$t/want" || { echo "FAIL: summary"; tail -2 "$t/out"; fail=1; }
fi
[ $fail = 0 ] && echo "test-run: ok"
exit $fail
