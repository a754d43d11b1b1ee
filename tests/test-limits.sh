#!/bin/sh
# SPDX-License-Identifier: MIT
# Limits of the compiled constructions: a scale whose scores overflow
# float32, counting coefficients float32 cannot hold, and the smaller exact
# region large coefficients leave; each refused at compile time with one
# line (exit 2) or announced before the answer, never a wrong answer in
# silence. Run from the repository root with BUILD set (tests/run.sh does).
set -u
HS=${BUILD:-build}/hardsoft
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. tests/lib/expect.sh

# mu = 1e38: the scores mu n overflow float32; refused in every soft mode,
# in eval, check and compile alike, naming the largest safe mu
for m in pe temp rel; do
  expect_err "overflow $m" "largest safe mu" "$HS" eval 'a S b' --mode $m --scale 1e38 aabaa
  expect_err "overflow check $m" "largest safe mu" "$HS" check 'a S b' --mode $m --scale 1e38
done
expect_err "overflow fixed" "largest safe mu" "$HS" eval 'a S b' --mode fixed --scale 3e38 aabaa
expect_err "overflow compile" "largest safe mu is 6.761e+30" \
  "$HS" compile 'a S b' --mode pe --scale 1e38 -o "$t/m.safetensors"
[ -e "$t/m.safetensors" ] && { echo "FAIL overflow compile: wrote a model"; fail=1; }
# just below the limit the answer is right
expect "pe at the limit" 0 00111 "$HS" eval 'a S b' --mode pe --scale 6.7e30 aabaa
expect "temp at the limit" 0 00111 "$HS" eval 'a S b' --mode temp --scale 6.7e30 aabaa
# the temperature sign divides by tau = 1/(mu n ln(n+1)): a lower limit
expect_err "sign temp overflow" "largest safe mu" \
  "$HS" eval '#<(a) > #<(b)' --mode pe --sign temp --scale 1e30 aab
# rel: eval and the saved model agree on one limit, 2^20
expect_err "rel eval above 2^20" "largest safe mu is 1.049e+06" \
  "$HS" eval 'a S b' --mode rel --scale 1e7 aabaa
expect "rel compile at 2^20" 0 "" "$HS" compile 'a S b' --mode rel --scale 1048576 -o "$t/rel.safetensors"
expect "rel run at 2^20" 0 00111 "$HS" run "$t/rel.safetensors" aabaa

# coefficients float32 cannot hold (after the gcd: 16777217*#<(a) > 16777216
# is #<(a) > 0): refused in every mode, both languages
for m in hard pe temp rel; do
  expect_err "coefficient 2^24+1 $m" "coefficient 16777217 is not exact" \
    "$HS" eval '16777217*#<(a) > 16777216*#<(b)' --mode $m a
done
expect "reduced by the gcd" 0 1 "$HS" eval '16777217*#<(a) > 16777216' a
printf 'B = (16777217 * (# "a")) > (# "b")\n' >"$t/big.cr"
expect_err "crasp coefficient 2^24+1" "coefficient 16777217 is not exact" \
  "$HS" eval --lang crasp -f "$t/big.cr" --tokens a
expect_err "constant 2^23+1" "the constant 8388609 is beyond" "$HS" eval '#<(a) > 8388609' a
expect "coefficient 2^24" 0 1 "$HS" eval '16777216*#<(a) > 8388607' a
expect "constant 2^23-1" 0 0 "$HS" eval '#<(a) > 8388607' a

# large coefficients that float32 holds: the exact region shrinks, and
# compile --print and eval say so before the answer
printf 'B = (10000 * (# "a")) > ((9999 * (# "b")) + (# "c"))\n' >"$t/k.cr"
"$HS" compile --lang crasp -f "$t/k.cr" --mode pe --print >"$t/print" 2>&1
grep -q "^exact region of the counting comparisons: n <= 69 in f32" "$t/print" ||
  { echo "FAIL k region: $(grep region "$t/print")"; fail=1; }
s=$(awk 'BEGIN { for (i = 0; i < 1700; i++) printf "%sa b c", i ? " " : "" }')
"$HS" eval --lang crasp -f "$t/k.cr" --tokens --mode pe "$s" >"$t/out" 2>"$t/err"
grep -q "warning: at n = 5100 the counting comparisons pass their exact region in float32 (n <= 69" "$t/err" ||
  { echo "FAIL k warning: '$(cat "$t/err")'"; fail=1; }
"$HS" eval --lang crasp -f "$t/k.cr" --tokens --mode pe --precision f64 "$s" >/dev/null 2>"$t/err"
[ -s "$t/err" ] && { echo "FAIL k f64 warned: $(cat "$t/err")"; fail=1; }
"$HS" boundary -f "$t/k.cr" --mode pe --max-n 2000 --quiet >/dev/null 2>"$t/err"
grep -q "note: the counting comparisons are proven exact only up to n = 69 in f32" "$t/err" ||
  { echo "FAIL k boundary: '$(cat "$t/err")'"; fail=1; }
# coefficient 1: the region is far wider, and stated too
"$HS" compile '#<(a) > #<(b)' --mode pe --print | grep -q "region of the counting comparisons: n <= 838860 in f32" ||
  { echo "FAIL small coefficients: no counting region line"; fail=1; }

# a B-RASP attention reading 11 query-side vectors: refused in one line
# before its 2^m expansion is built (the maximum is 10)
awk 'BEGIN { for (k = 1; k <= 11; k++) printf "v%d = token \"t%d\"\n", k, k
             printf "r = rightmost j < i : "
             for (k = 1; k <= 11; k++) printf "%s(v%d[j] & v%d[i])", (k > 1 ? " | " : ""), k, k
             print " ? true : false" }' >"$t/q11.brasp"
expect_err "11 query-side vectors" "more than 10 query-side vectors" \
  "$HS" compile -f "$t/q11.brasp" --mode hard -o "$t/q.safetensors"

# importing a predicate twice is the same as once (as in the C-RASP
# reference); a statement of that name still clashes
printf '#import pos_even\n#import pos_even\nA = pos_even && "a"\n' >"$t/imp.cr"
expect "import twice" 0 1010 "$HS" eval -f "$t/imp.cr" "a a a a"
printf '#import pos_even\npos_even = "a"\n' >"$t/clash.cr"
expect_err "import then assign" "already defined" "$HS" eval -f "$t/clash.cr" "a"

[ "$fail" = 0 ] && echo "limits: all passed"
exit "$fail"
