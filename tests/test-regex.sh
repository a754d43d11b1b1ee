#!/bin/sh
# SPDX-License-Identifier: MIT
# Regular expressions on the command line: --lang regex and .re files,
# token strings, --alphabet, --mode truth against every compiled mode,
# compile --explain (class, witness, sizes), the one-line refusal of a
# language no mode recognizes, errors with line and column, and the hint
# a formula that is a regular expression gets.
# Run from the repository root with BUILD set (tests/run.sh does).
set -u
HS=${BUILD:-build}/hardsoft
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

. tests/lib/expect.sh

nl='
'
# the issue's example: a+ b+ a+, per position, in every mode and the truth
for m in truth hard pe temp fixed rel; do
  expect "a+b+a+ $m" 0 "00011${nl}0010" "$HS" eval --lang regex 'a+ b+ a+' --mode $m \
    --scale 16 "a a b a a" "a b a b"
done
expect "last" 0 "1" "$HS" eval --lang regex 'a+ b+ a+' --mode pe --last "a b a"
# a .re file, a token of several bytes, and a token it does not name
printf '# a paragraph: <p>, then words, then </p>\n"<p>" w+ "</p>"\n' > "$t/para.re"
expect "file" 0 "0001${nl}0000" "$HS" eval -f "$t/para.re" --mode rel --scale 16 --unknown other \
  "<p> w w </p>" "<p> x w </p>"
expect_err "unknown token" "unknown token 'x' (token 2, byte 5): not in the vocabulary <p> w </p>" \
  "$HS" eval -f "$t/para.re" --mode rel --scale 16 "<p> x w </p>"
# --alphabet: what . and [^...] range over
expect "alphabet" 0 "0${nl}1${nl}1${nl}0" "$HS" eval --lang regex '[^a]' --alphabet 'a-c' --mode truth \
  --unknown other a b c d
expect_err "outside the alphabet" "unknown token 'd' (token 1, byte 1): not in the vocabulary a b c" \
  "$HS" eval --lang regex '[^a]' --alphabet 'a-c' --mode truth d
expect_err "alphabet ltl" "--alphabet is for regular expressions" "$HS" eval 'a' --alphabet b a
expect_err "alphabet error" "--alphabet: range c-a runs backwards at column 1" \
  "$HS" eval --lang regex a --alphabet 'c-a' a
# check: the model against the automaton
"$HS" check --lang regex '(a|b)*a(a|b)' --mode pe --scale 16 --max-len 6 > "$t/out"
grep -q '^agreement: .* (100.000000%)' "$t/out" || { echo "FAIL check: $(cat "$t/out")"; fail=1; }
# the class: explained, compiled with @mod, refused with a witness
"$HS" compile --lang regex 'a+ b+ a+' --explain > "$t/out"
grep -q '^class: star-free' "$t/out" && grep -q '^construction: a cascade of 4 reset levels' "$t/out" &&
  grep -q '^model (mode temp): [0-9]* layers' "$t/out" || { echo "FAIL explain: $(cat "$t/out")"; fail=1; }
"$HS" compile --lang regex '(aa)*' --explain --mode hard > "$t/out"
grep -q '^class: quasi-aperiodic' "$t/out" && grep -q 'positions mod 2' "$t/out" ||
  { echo "FAIL explain (aa)*: $(cat "$t/out")"; fail=1; }
expect "(aa)*" 0 "01010" "$HS" eval --lang regex '(aa)*' --mode rel --scale 16 "a a a a a"
expect_err "parity" 'not quasi-aperiodic, x u^k z is in the language iff k mod 2 = 0 (x = "", u = "a", z = "")' \
  "$HS" eval --lang regex '(b*ab*a)*b*' --mode pe "a b a"
expect "parity truth" 0 "101" "$HS" eval --lang regex '(b*ab*a)*b*' --mode truth "b a a"
"$HS" compile --lang regex '(b*ab*a)*b*' --explain > "$t/out"; rc=$?
[ $rc = 0 ] && grep -q '^class: not quasi-aperiodic' "$t/out" && grep -q '^  theorem: ' "$t/out" &&
  grep -q '^not compiled: ' "$t/out" || { echo "FAIL explain parity: exit $rc, $(cat "$t/out")"; fail=1; }
"$HS" compile --lang regex '(b*ab*a)*b*' --explain -o "$t/m.safetensors" > "$t/out" 2>"$t/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$t/m.safetensors" ] && grep -q 'not compiled' "$t/err" ||
  { echo "FAIL compile parity -o: exit $rc"; fail=1; }
# errors: one line with the file, line and column
printf 'a+\n  (b|c\n' > "$t/bad.re"
expect_err "syntax" "bad.re: '(' is not closed: expected ')' at line 2, column 3" "$HS" eval -f "$t/bad.re" a
expect_err "inline" "nothing to repeat before '\*' at line 1, column 1" "$HS" eval --lang regex '*a' a
expect_err "lang" "expected ltl, crasp, brasp or regex" "$HS" eval --lang perl a a
# symbols written together are one token: refused, saying how to write them
expect_err "glued" "unknown token 'aaba' (token 1, byte 1): it is 'a a b a' run together; separate tokens by spaces" \
  "$HS" eval --lang regex 'a+ b+ a+' --mode truth aaba
# a formula that is a regular expression is told so
expect_err "hint" "(it parses as a regular expression: add --lang regex)" "$HS" eval '(aa)*' a
# the vocabulary travels with the model
"$HS" compile --lang regex '"<p>" w+ "</p>"' --mode pe --scale 16 -o "$t/m.safetensors" ||
  { echo "FAIL compile -o"; fail=1; }
expect "run" 0 "0001" "$HS" run "$t/m.safetensors" "<p> w w </p>"
[ $fail = 0 ] && echo "test-regex: ok"
exit $fail
