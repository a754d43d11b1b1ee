#!/bin/sh
# SPDX-License-Identifier: MIT
# Programs on the command line: -f FILE and -f -, --lang, --tokens,
# --trace, a program's vocabulary in a model file, check against the
# program's own interpreter, and one-line errors with line and column.
# Run from the repository root with BUILD set (tests/run.sh does).
set -u
HS=${BUILD:-build}/hardsoft
P=tests/programs
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

. tests/lib/expect.sh

nl='
'
# the issue's example, in every mode that compiles it
for m in hard pe temp fixed rel; do
  expect "dyck1 $m" 0 "0001${nl}010" "$HS" eval -f $P/dyck1.cr --lang crasp --tokens \
    --mode $m --scale 16 -- "( ( ) )" "( ) )"
done
expect "truth" 0 "0001${nl}010" "$HS" eval -f $P/dyck1.cr --mode truth "( ( ) )" "( ) )"
# the language from the extension; tokens are the default for programs
expect "extension" 0 "00000001" "$HS" eval -f $P/copy4.cr --mode pe --scale 16 "a b c b a b c b"
expect "sign temp" 0 "00000001" "$HS" eval -f $P/increment.cr --mode temp --scale 16 --sign temp "1 1 0 0 0 0 1 0"
expect "longer tokens" 0 "010001" "$HS" eval -f $P/longtok.cr --mode hard "if end if if end end"
# -f -: the program on standard input, the strings as arguments
expect "stdin program" 0 "001" sh -c "printf 'A = #\"a\" > #\"b\"\nB = A || \"c\"\n' | $HS eval -f - --lang crasp --mode pe 'b a c'"
expect_err "stdin twice" "give the strings as arguments" sh -c "printf 'A = true\n' | $HS eval -f - --lang crasp"
# strings after -- are inputs even when they look like options
expect "after --" 0 "11" "$HS" eval -f $P/dyck1.cr --mode hard --unknown other -- "-x -y"
# the strings from standard input, one per line
expect "stdin strings" 0 "01${nl}0" sh -c "printf '( )\n)\n' | $HS eval -f $P/dyck1.cr --mode temp --scale 16"
# --trace: every statement at every position, then the output line
expect "trace" 0 "C_open: 1 1 1${nl}C_close: 0 1 2${nl}V: 0 0 1${nl}CV: 0 0 1${nl}M: 1 1 0${nl}B: 0 1 0${nl}D: 0 1 0${nl}010" \
  "$HS" eval -f $P/dyck1.cr --trace --mode pe --scale 16 "( ) )"
# a formula from a file, and --tokens for a formula (one-byte tokens)
printf 'a S b\n' > "$t/f.ltl"
expect "formula file" 0 "00111" "$HS" eval -f "$t/f.ltl" --mode pe aabaa
expect "formula tokens" 0 "00111" "$HS" eval 'a S b' --tokens --mode pe "a a b a a"
# the vocabulary travels with the model
"$HS" compile -f $P/longtok.cr --mode pe --scale 16 -o "$t/m.safetensors" || { echo "FAIL compile -o"; fail=1; }
expect "run vocab" 0 "01000" "$HS" run "$t/m.safetensors" --unknown other "if end end if x"
# check compares the model with the program's interpreter
expect "check" 0 - "$HS" check -f $P/count3.cr --mode temp --scale 16 --max-len 4 --lengths 64 --samples 2
"$HS" check -f $P/minmax.cr --mode hard --max-len 3 --lengths 32 --samples 1 > "$t/out"
grep -q '^agreement: .* (100.000000%)' "$t/out" && grep -q '^tokens: a b c and one token' "$t/out" ||
  { echo "FAIL check output: $(cat "$t/out")"; fail=1; }
# bench and boundary take -f; the formula column names the file
"$HS" bench -f $P/dyck1.cr --modes pe --scales 16 --lengths 32 --repeat 1 --isas scalar > "$t/b.csv" 2>/dev/null
grep -q '^"tests/programs/dyck1.cr",pe,16,scalar,f32,1,32,.*,1.000000,' "$t/b.csv" || { echo "FAIL bench -f: $(cat "$t/b.csv")"; fail=1; }
"$HS" boundary -f $P/contains_ab.cr --mode rel --scale 16 --max-n 64 > "$t/bd.csv"
grep -q '^"tests/programs/contains_ab.cr",rel,16,f32,>64,' "$t/bd.csv" || { echo "FAIL boundary -f: $(cat "$t/bd.csv")"; fail=1; }

# errors: one line, naming the file, line and column; exit 2
printf 'A = #"a" > 0\nB = A && C\n' > "$t/undef.cr"
expect_err "undefined" "undef.cr: undefined name 'C' at line 2, column 10" "$HS" eval -f "$t/undef.cr" x
printf 'A = #"a"\nB = A && true\n' > "$t/type.cr"
expect_err "type" "count used where a Boolean is expected at line 2, column 5" "$HS" eval -f "$t/type.cr" x
printf '#import posx\n' > "$t/pred.cr"
expect_err "predicate" "unknown predicate 'posx' .* at line 1, column 9" "$HS" check -f "$t/pred.cr"
expect_err "stdin error" "standard input: expected an expression, got end of line at line 1, column 11" \
  sh -c "printf 'A = #\"a\" >\n' | $HS compile -f - --lang crasp --print"
expect_err "missing file" "nope.cr" "$HS" eval -f "$t/nope.cr" x
expect_err "bad lang" "not a language" "$HS" eval -f $P/dyck1.cr --lang python x
expect_err "brasp" "expected an expression before the end of the line at line 1, column 9" "$HS" eval -f "$t/type.cr" --lang brasp x
expect_err "two -f" "-f given twice" "$HS" eval -f a.cr -f b.cr x
expect_err "lang of ltl" "at column" "$HS" eval -f $P/dyck1.cr --lang ltl x
expect_err "max formula len" "program too long" "$HS" eval -f $P/dyck1.cr --max-formula-len 10 x
expect_err "compile no file written" "undefined name" "$HS" compile -f "$t/undef.cr" -o "$t/never.safetensors"
[ -e "$t/never.safetensors" ] && { echo "FAIL: a model file was written on error"; fail=1; }
# every hard model compiled from a program simulates with softmax, each
# decision agreeing (the unique-hard ties get a position term first)
for prog in since.brasp dyck2.brasp dyck1.cr count3.cr; do
  "$HS" compile -f $P/$prog --mode hard -o "$t/sim.safetensors" &&
    out=$("$HS" simulate "$t/sim.safetensors" --alphabet 'abc()' --lengths 16,256 2>&1) ||
    { echo "FAIL simulate $prog: $(echo "$out" | tail -2)"; fail=1; continue; }
  [ "$(echo "$out" | grep -c '^decisions: \([0-9]*\)/\1 agree')" = 2 ] ||
    { echo "FAIL simulate $prog: $(echo "$out" | grep decisions)"; fail=1; }
done
# a limit of the lowering never stops the interpreter: --mode truth and
# --trace run what compile refuses (more than 4096 comparison cases; a
# count bounded only past 2^31)
printf 'x0 = #"a"\n' > "$t/cases.cr"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do echo "x$i = x$((i - 1)) + max(#\"b\", $((1 << i)))" >> "$t/cases.cr"; done
echo 'R = x13 > 3' >> "$t/cases.cr"
expect "truth past the lowering's cases" 0 "111" "$HS" eval -f "$t/cases.cr" --mode truth "a b a"
"$HS" eval -f "$t/cases.cr" --mode truth --trace "a" | grep -q "^R: 1$" || { echo "FAIL trace past the cases"; fail=1; }
expect_err "compile past the cases" "cases.cr: statement 'x13' lowers to more than 4096 comparison cases .* at line 14, column 1" \
  "$HS" compile -f "$t/cases.cr" --print
printf 'x = 65536 * 65536 * # "a"\nR = x > 2147483647\n' > "$t/bound.cr"
expect "truth past 2^31" 0 "11" "$HS" eval -f "$t/bound.cr" --mode truth "a a"
expect_err "compile past 2^31" "statement 'x' has a count bounded only by A\*n + B" "$HS" eval -f "$t/bound.cr" --mode hard "a a"
# B-RASP through the command line: eval, check against its interpreter
[ "$("$HS" eval -f $P/since.brasp --mode pe --scale 8 --unknown other -- "a b a a c a" | tr -d '\n')" = 011110 ] ||
  { echo "FAIL brasp eval"; fail=1; }
"$HS" check -f $P/dyck2.brasp --mode temp --scale 8 --max-len 5 --lengths 300 --samples 2 >/dev/null ||
  { echo "FAIL brasp check"; fail=1; }
exit $fail
