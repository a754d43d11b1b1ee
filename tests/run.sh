#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every test binary given, then every tests/*.sh, and prints what
# happened in four separate counts, the last two lines being
#   not run on this CPU: ISA, ... (or: nothing)
#   tests: N passed, N failed, N skipped
# Exit 1 if anything failed; a skip is reported, never counted as passed.
#
# What counts: a cmocka binary's PASSED / FAILED / SKIPPED totals, and the
# ISAs its HS_FOR_EACH_ISA loops could not run ("[ NOT RUN  ] ISA: ...",
# tests/common.h). A shell test passes with exit 0, is skipped as a whole
# with exit 77 (the automake convention), fails otherwise; each line it
# prints starting "SKIP " counts one skipped part of a test that passed.
# A test never skips what `make check` installs: it fails instead.
# TESTS_SH: the shell tests to run instead of tests/*.sh.
pass=0; fail=0; skip=0; bad=""; notrun=""
note_not_run() { # the ISAs of "[ NOT RUN  ] ISA: ..." lines, once each
  for isa in $(printf '%s\n' "$1" | sed -n 's/^\[ NOT RUN  \] \([a-z0-9]*\):.*/\1/p'); do
    case " $notrun " in *" $isa "*) ;; *) notrun="$notrun $isa";; esac
  done
}
count() { # count PATTERN OUTPUT: the sum of the numbers cmocka prints
  printf '%s\n' "$2" | sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test(s).*/\1/p" | awk '{s+=$1} END {print s+0}'
}
for t in "$@"; do
  out=$("$t" 2>&1); rc=$?
  printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[ NOT RUN  \]|^\[==========\]|max error|sum - 1|ULP' | sed "s|^|$(basename "$t"): |"
  p=$(count PASSED "$out"); f=$(count FAILED "$out"); s=$(count SKIPPED "$out")
  note_not_run "$out"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$f" -ne 0 ]; then bad="$bad $(basename "$t")"; printf '%s\n' "$out" | grep -E 'FAIL|rror|Assert|ERROR' | head -20; fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
for sh in ${TESTS_SH:-tests/*.sh}; do
  case "$sh" in tests/run.sh|tests/mutants.sh) continue;; esac
  [ -f "$sh" ] || continue
  out=$(sh "$sh" 2>&1); rc=$?
  parts=$(printf '%s\n' "$out" | grep -c '^SKIP ')
  note_not_run "$out"
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1)); skip=$((skip + parts))
    if [ "$parts" -gt 0 ]; then printf '%s\n' "$out" | grep '^SKIP ' | sed "s|^|$(basename "$sh"): |"; fi
    echo "$(basename "$sh"): ok"
  elif [ "$rc" -eq 77 ]; then
    skip=$((skip + 1)); echo "$(basename "$sh"): skipped: $(printf '%s\n' "$out" | tail -1)"
  else
    fail=$((fail + 1)); bad="$bad $(basename "$sh")"; printf '%s\n' "$out" | tail -20
  fi
done
[ -n "$bad" ] && echo "failing:$bad"
echo "not run on this CPU: $(printf '%s' "${notrun:- nothing}" | sed 's/^ //; s/ /, /g')"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
