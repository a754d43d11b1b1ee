#!/bin/sh
# SPDX-License-Identifier: MIT
# Nothing read silently as something else: a token a program's vocabulary
# does not name is refused on every command that reads strings (eval in
# every mode and --trace, run of a saved model, simulate, attention), with
# one line naming the token, its index and byte offset, the vocabulary,
# and the spaced form when it is known tokens run together; --unknown
# other reads it as the one byte no token uses, which compile --print
# names. A formula reads bytes: a byte no atom names is allowed but said
# once on standard error, unless --unknown other; with --tokens a token
# longer than one byte is unknown. Run from the repository root with BUILD
# set (tests/run.sh does).
set -u
HS=${BUILD:-build}/hardsoft
P=tests/programs
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. tests/lib/expect.sh

# the issue's example: dyck1 on an unspaced string was one unknown token
for m in hard pe temp rel truth; do
  expect_err "dyck1 $m" "^hardsoft: error: unknown token 'aabab' (token 1, byte 1): not in the vocabulary ( ) (--unknown other" \
    "$HS" eval -f $P/dyck1.cr --mode $m aabab
done
expect_err "trace" "unknown token 'x'" "$HS" eval -f $P/dyck1.cr --mode truth --trace "( x"
# known tokens run together: the spaced form
expect_err "run together" "unknown token '(())' (token 2, byte 3): it is '( ( ) )' run together; separate tokens by spaces (vocabulary: ( ))" \
  "$HS" eval -f $P/dyck1.cr --mode pe "( (()) )"
expect_err "multi-byte tokens run together" "'ifend' (token 1, byte 1): it is 'if end' run together" \
  "$HS" eval -f $P/longtok.cr --mode hard "ifend if"
# a misspelt token of a B-RASP flip-flop: W1 for w1
cat > "$t/ff.brasp" <<'EOF'
w1 = token "w1"
w0 = token "w0"
r = token "r"
st = rightmost j <= i : w1 | w0 ? w1 : false
EOF
expect "flip-flop" 0 "0110" "$HS" eval -f "$t/ff.brasp" --mode hard "r w1 r w0"
expect_err "misspelt" "unknown token 'W1' (token 2, byte 3): not in the vocabulary w1 w0 r (" \
  "$HS" eval -f "$t/ff.brasp" --mode hard "r W1 r w0"
# strings from standard input are checked too
sh -c "printf '( )\n( ( zz )\n' | $HS eval -f $P/dyck1.cr --mode pe" >"$t/out" 2>"$t/err"
[ $? = 2 ] && [ "$(cat "$t/out")" = "01" ] && grep -q "unknown token 'zz' (token 3, byte 5)" "$t/err" ||
  { echo "FAIL stdin: $(cat "$t/out") $(cat "$t/err")"; fail=1; }
# on request, the one byte no token uses, which compile --print names
expect "other" 0 "1" "$HS" eval -f $P/dyck1.cr --mode pe --unknown other aabab
expect "other trace" 0 "C_open: 1 1
C_close: 0 0
V: 0 0
CV: 0 0
M: 1 1
B: 0 0
D: 0 0
00" "$HS" eval -f $P/dyck1.cr --mode truth --trace --unknown other "( x"
"$HS" compile -f $P/dyck1.cr --mode pe --print > "$t/print"
grep -q "^vocabulary: 2 tokens (byte): ( (0x28) ) (0x29)$" "$t/print" &&
  grep -q "^other: byte 0xff stands for every token the vocabulary does not name" "$t/print" ||
  { echo "FAIL --print: $(grep -A1 vocab "$t/print")"; fail=1; }
expect_err "bad --unknown" "--unknown 'maybe' is not error or other" "$HS" eval -f $P/dyck1.cr --unknown maybe "("
# a saved model keeps the rule: run, simulate, attention
"$HS" compile -f $P/dyck1.cr --mode hard -o "$t/d.safetensors" || { echo "FAIL compile"; fail=1; }
expect_err "run" "unknown token 'aabab' (token 1, byte 1): not in the vocabulary ( )" "$HS" run "$t/d.safetensors" aabab
expect "run other" 0 "1" "$HS" run "$t/d.safetensors" --unknown other aabab
expect_err "simulate" "unknown token '(()' (token 1, byte 1): it is '( ( )' run together" "$HS" simulate "$t/d.safetensors" "(()"
expect_rc() { name=$1 want=$2; shift 2; "$@" >"$t/out" 2>"$t/err"; rc=$?
  [ "$rc" = "$want" ] || { echo "FAIL $name: exit $rc, want $want ($(head -1 "$t/err"))"; fail=1; }; }
expect_rc "simulate other" 0 "$HS" simulate "$t/d.safetensors" --unknown other "(()"
expect_err "attention" "unknown token 'ab'" "$HS" attention -f $P/dyck1.cr --mode pe "( ab" --png "$t/x.png"
[ -e "$t/x.png" ] && { echo "FAIL attention wrote a picture"; fail=1; }

# formulas read bytes: a byte no atom names is said once, not refused
"$HS" eval 'a S b' --mode pe cabba abcx >"$t/out" 2>"$t/err"
[ "$(cat "$t/out")" = "00111
0100" ] || { echo "FAIL bytes: $(cat "$t/out")"; fail=1; }
[ "$(cat "$t/err")" = "hardsoft: warning: no atom of the formula names 'c' (position 1): every atom is false there (--unknown other allows such bytes without this warning)" ] ||
  { echo "FAIL warning: $(cat "$t/err")"; fail=1; }
"$HS" eval 'a S b' --mode truth "a b" 2>&1 >/dev/null | grep -q "names ' ' (position 2)" ||
  { echo "FAIL space warning"; fail=1; }
expect "named bytes: no warning" 0 "0111" "$HS" eval 'a S b' --mode pe abaa
[ -s "$t/err" ] && { echo "FAIL warned on named bytes: $(cat "$t/err")"; fail=1; }
expect "--unknown other: no warning" 0 "00111" "$HS" eval 'a S b' --mode pe --unknown other cabba
[ -s "$t/err" ] && { echo "FAIL warned with --unknown other: $(cat "$t/err")"; fail=1; }
expect "no atom: no warning" 0 "100" "$HS" eval '@first' --mode pe xyz
[ -s "$t/err" ] && { echo "FAIL warned without atoms: $(cat "$t/err")"; fail=1; }
"$HS" compile 'a S b' --mode pe -o "$t/f.safetensors" || fail=1
"$HS" run "$t/f.safetensors" cab 2>&1 >/dev/null | grep -q "names 'c' (position 1)" ||
  { echo "FAIL run warning"; fail=1; }
# --tokens with a formula: one byte per token
expect_err "formula tokens" "token 'ab' (token 2, byte 3) is longer than one byte" \
  "$HS" eval 'a S b' --mode pe --tokens "a ab b"
expect "formula tokens other" 0 "001" "$HS" eval 'a S b' --mode pe --tokens --unknown other "a ab b"

# the longest message is whole: a long unknown token and a long
# vocabulary are cut at a token, never mid-word, within one line
i=0; v=""
while [ $i -lt 60 ]; do echo "t$i = token \"tok$i\"" >> "$t/big.brasp"; v="$v tok$i"; i=$((i + 1)); done
echo 'x = t0' >> "$t/big.brasp"
long=$(printf 'tok1tok2tok3tok4tok5tok6tok7tok8tok9tok10tok11tok12tok13tok14tok15')
"$HS" eval -f "$t/big.brasp" --mode hard "tok0 $long" >/dev/null 2>"$t/err"
msg=$(cat "$t/err")
printf '%s\n' "$msg" | grep -q "^hardsoft: error: unknown token 'tok1tok2tok3tok4tok5tok6tok7to\.\.\.' (token 2, byte 6): it is 'tok1 tok2 .* tok8 \.\.\.' run together; separate tokens by spaces (vocabulary: tok0 tok1 .* \.\.\. (60 tokens)) (--unknown other" ||
  { echo "FAIL long message: $msg"; fail=1; }
[ "$(wc -l <"$t/err")" = 1 ] || { echo "FAIL long message: not one line"; fail=1; }
"$HS" eval -f "$t/big.brasp" --mode hard "tok0 zz" 2>&1 | grep -q "not in the vocabulary tok0 tok1 .* \.\.\. (60 tokens) (--unknown" ||
  { echo "FAIL long vocabulary"; fail=1; }
[ $fail = 0 ] && echo "test-unknown-tokens: ok"
exit $fail
