#!/bin/sh
# SPDX-License-Identifier: MIT
# hardsoft simulate on a program model reads its STRINGs as tokens of the
# model's vocabulary (as run does), takes --tokens on any model, and
# refuses a model with no hard head (nothing to simulate). Run from the
# repository root with BUILD set (tests/run.sh does).
set -u
HS=${BUILD:-build}/hardsoft
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. tests/lib/expect.sh

"$HS" compile -f tests/programs/aa_star.cr --mode hard -o "$t/p.safetensors" || fail=1
# "a a a b" is 4 tokens (7 bytes); run and simulate agree on it
expect "run tokens" 0 0100 "$HS" run "$t/p.safetensors" --unknown other "a a a b"
"$HS" simulate "$t/p.safetensors" --unknown other -- "a a a b" >"$t/out" 2>"$t/err"
grep -q "^strings: 1 (longest n = 4); positions: 4;" "$t/out" ||
  { echo "FAIL program tokens: $(head -3 "$t/out") $(cat "$t/err")"; fail=1; }
grep -q "^decisions: 4/4 agree" "$t/out" || { echo "FAIL program decisions"; fail=1; }
# --tokens on a model that reads bytes: "a b a" is three symbols
"$HS" compile 'a S b' --mode hard -o "$t/b.safetensors" || fail=1
"$HS" simulate "$t/b.safetensors" --tokens "a b a" >"$t/out" 2>"$t/err"
grep -q "^strings: 1 (longest n = 3); positions: 3;" "$t/out" ||
  { echo "FAIL --tokens: $(head -2 "$t/out") $(cat "$t/err")"; fail=1; }
# without --tokens the same model reads five bytes
"$HS" simulate "$t/b.safetensors" "a b a" >"$t/out" 2>&1
grep -q "longest n = 5" "$t/out" || { echo "FAIL bytes: $(head -2 "$t/out")"; fail=1; }
# no hard head: nothing to simulate
"$HS" compile 'a S b' --mode pe -o "$t/soft.safetensors" || fail=1
expect_err "no hard head" "nothing to simulate" "$HS" simulate "$t/soft.safetensors" aab
"$HS" compile 'a & b' --mode hard -o "$t/none.safetensors" || fail=1
expect_err "no head at all" "nothing to simulate" "$HS" simulate "$t/none.safetensors" ab

[ "$fail" = 0 ] && echo "simulate-vocab: all passed"
exit "$fail"
