#!/bin/sh
# SPDX-License-Identifier: MIT
# The documentation: every `$ command` example of README.md and docs/*.md,
# run and compared with what the document shows (tests/docs_test.py); every
# relative link and anchor of the Markdown pages resolves
# (tests/docs_links.py); README.md stays a first page of at most 300
# lines, the detail in docs/; no file of the repository refers to anything
# outside it; the man page renders without warnings.
set -u
fail=0
"${PYTHON:-/usr/bin/python3}" tests/docs_test.py . || fail=1
"${PYTHON:-/usr/bin/python3}" tests/docs_links.py . || fail=1
lines=$(wc -l < README.md)
[ "$lines" -le 300 ] ||
  { echo "FAIL README.md has $lines lines, more than 300: move the detail into docs/"; fail=1; }
# (the pattern is split so that this file does not match itself)
outside='\.\./'"shared|SPEC\.md|SPEC "'§'
if git rev-parse --git-dir >/dev/null 2>&1; then
  hits=$(git grep -n -I -E "$outside" -- . ':!tests/test-docs.sh' | head -5)
  [ -z "$hits" ] || { echo "FAIL files refer outside the repository:"; echo "$hits"; fail=1; }
else
  echo "SKIP files referring outside the repository: not a git checkout"
fi
# groff-base is one of make check's packages
if command -v groff >/dev/null 2>&1; then
  warn=$(groff -mandoc -Tutf8 -ww docs/hardsoft.1 2>&1 >/dev/null)
  [ -z "$warn" ] || { echo "FAIL docs/hardsoft.1: $warn"; fail=1; }
else
  echo "FAIL: no groff to check docs/hardsoft.1 (make check installs groff-base)"; fail=1
fi
exit $fail
