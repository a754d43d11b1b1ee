#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/ARCHITECTURE.md's recipe for a new ISA lists exactly the files the
# last one added (neon) needed: every file outside the documents and the
# NEON kernels and vocabularies that names neon is in the list, and every
# file in the list names it or is a test whose per-ISA arrays check their
# size against HS_ISA_COUNT (those hold numbers, not names). A hard-coded
# list of ISAs somewhere else, or a recipe that names a file NEON did not
# need, fails here.
set -u
doc=docs/ARCHITECTURE.md
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
# the recipe: from "- **An ISA.**" to the next section, its `paths`
sed -n '/^- \*\*An ISA\.\*\*/,/^## /p' "$doc" | grep -o '`[^`]*`' | tr -d '`' |
  grep -E '^(Makefile|[a-z]+/[A-Za-z0-9_./-]+)$' | grep -v -e '<' -e '^tests/test-isa-recipe.sh$' |
  sort -u >"$t/recipe"
[ -s "$t/recipe" ] || { echo "FAIL: no file list in $doc's recipe for an ISA"; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -co --exclude-standard
else
  find . -type f -not -path './build*' -not -path './.git/*' | sed 's|^\./||'
fi | grep -vE '^(build|results)/|\.md$|(^|/)README$|^simd/.*-neon[-.]|^tests/test-isa-recipe.sh$' |
  while read -r f; do [ -f "$f" ] && grep -qi neon "$f" && echo "$f"; done | sort -u >"$t/naming"
fail=0
for f in $(comm -13 "$t/recipe" "$t/naming"); do
  echo "FAIL: $f names neon but $doc's recipe for an ISA does not list it"; fail=1
done
for f in $(comm -23 "$t/recipe" "$t/naming"); do
  grep -q '== HS_ISA_COUNT' "$f" 2>/dev/null && continue
  echo "FAIL: $doc's recipe lists $f, which neither names neon nor sizes a per-ISA array"; fail=1
done
# and every test array sized per ISA is in the recipe
for f in $(grep -l '== HS_ISA_COUNT' tests/*.c); do
  grep -qx "$f" "$t/recipe" || { echo "FAIL: $f has a per-ISA array the recipe does not list"; fail=1; }
done
[ "$fail" = 0 ] && echo "isa recipe: $(wc -l <"$t/recipe") files, each one NEON needed"
exit "$fail"
