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
#
# The tests run HS_TEST_JOBS at a time (default: the CPUs), each into its
# own output file, and are reported in the order given once all have
# ended, so the report does not depend on which finished first. Every test
# writes only to its own temporary directory, which is what makes running
# them side by side safe.
pass=0; fail=0; skip=0; bad=""; notrun=""
note_not_run() { # the ISAs of "[ NOT RUN  ] ISA: ..." lines, once each
  for isa in $(printf '%s\n' "$1" | sed -n 's/^\[ NOT RUN  \] \([a-z0-9]*\):.*/\1/p'); do
    case " $notrun " in *" $isa "*) ;; *) notrun="$notrun $isa";; esac
  done
}
count() { # count PATTERN OUTPUT: the sum of the numbers cmocka prints
  printf '%s\n' "$2" | sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test(s).*/\1/p" | awk '{s+=$1} END {print s+0}'
}

jobs=${HS_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
out_dir=$(mktemp -d) || exit 1
trap 'rm -rf "$out_dir"' EXIT INT TERM
i=0
for t in "$@"; do i=$((i + 1)); printf '%s bin %s\n' "$i" "$t"; done >"$out_dir/list"
for sh in ${TESTS_SH:-tests/*.sh}; do
  # (test-slurm.sh starts a Slurm cluster: make check-slurm runs it)
  case "$sh" in tests/run.sh|tests/mutants.sh|tests/test-slurm.sh) continue;; esac
  [ -f "$sh" ] || continue
  i=$((i + 1)); printf '%s sh %s\n' "$i" "$sh"
done >>"$out_dir/list"
# one test: its output and exit status into files named by its index
xargs -P "$jobs" -n 3 sh -c '
  if [ "$2" = bin ]; then "$3"; else sh "$3"; fi >"$0/$1.out" 2>&1
  echo $? >"$0/$1.rc"' "$out_dir" <"$out_dir/list"

while read -r i kind t; do
  out=$(cat "$out_dir/$i.out" 2>/dev/null); rc=$(cat "$out_dir/$i.rc" 2>/dev/null || echo 1)
  note_not_run "$out"
  if [ "$kind" = bin ]; then
    printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[ NOT RUN  \]|^\[==========\]|max error|sum - 1|ULP' | sed "s|^|$(basename "$t"): |"
    p=$(count PASSED "$out"); f=$(count FAILED "$out"); s=$(count SKIPPED "$out")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    if [ "$f" -ne 0 ]; then bad="$bad $(basename "$t")"; printf '%s\n' "$out" | grep -E 'FAIL|rror|Assert|ERROR' | head -20; fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    continue
  fi
  parts=$(printf '%s\n' "$out" | grep -c '^SKIP ')
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1)); skip=$((skip + parts))
    if [ "$parts" -gt 0 ]; then printf '%s\n' "$out" | grep '^SKIP ' | sed "s|^|$(basename "$t"): |"; fi
    echo "$(basename "$t"): ok"
  elif [ "$rc" -eq 77 ]; then
    skip=$((skip + 1)); echo "$(basename "$t"): skipped: $(printf '%s\n' "$out" | tail -1)"
  else
    fail=$((fail + 1)); bad="$bad $(basename "$t")"; printf '%s\n' "$out" | tail -20
  fi
done <"$out_dir/list"
[ -n "$bad" ] && echo "failing:$bad"
echo "not run on this CPU: $(printf '%s' "${notrun:- nothing}" | sed 's/^ //; s/ /, /g')"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
