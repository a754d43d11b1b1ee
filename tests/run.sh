#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every test binary given, then prints the total as
# "tests: N passed, N failed". Exit 1 if anything failed.
pass=0; fail=0; bad=""
for t in "$@"; do
  out=$("$t" 2>&1); rc=$?
  printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED|  SKIPPED) |^\[==========\]|max error|sum - 1|ULP' | sed "s|^|$(basename "$t"): |"
  p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$f" -ne 0 ]; then bad="$bad $(basename "$t")"; printf '%s\n' "$out" | grep -E 'FAIL|rror|Assert|ERROR' | head -20; fi
  pass=$((pass + p)); fail=$((fail + f))
done
for s in tests/*.sh; do
  case "$s" in tests/run.sh) continue;; esac
  [ -f "$s" ] || continue
  if out=$(sh "$s" 2>&1); then pass=$((pass + 1)); echo "$(basename "$s"): ok";
  else fail=$((fail + 1)); bad="$bad $(basename "$s")"; printf '%s\n' "$out" | tail -20; fi
done
[ -n "$bad" ] && echo "failing:$bad"
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
