#!/bin/sh
# SPDX-License-Identifier: MIT
# The independent numpy forward pass (bench/peers/forward.py) agrees with
# 'hardsoft run' on compiled models in every mode (rel's relative bias too): same model file, same
# strings, decisions compared position by position.
set -u
HS=${BUILD:-build}/hardsoft
PY=${PYTHON:-/usr/bin/python3}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
strings="a b ab ba aab abcab bbbbbbba ccbacbbacabcbbaa aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab abcabcabcabcabcabcabcabcabc#aabbcc"
long=$($PY -c "import random; random.seed(5); print(''.join(random.choice('aab#c') for _ in range(300)))")
for f in 'a S b' 'a U b' 'X a | Y b' 'G (a -> F b)' 'H (a | Y b) & O c' \
         '!(a S (b & X c)) <-> (c U Y a)' '@first | (@mod(3,1) & a) | X @last' \
         '#<(a) > #<(b)' 'G (#>(c) <= 1) | (3*#<(a) = 2*#<(b) + 1)'; do
  for m in hard pe temp fixed rel temp:temp rel:temp; do
    sign=layernorm scale=6
    case $m in *:temp) m=${m%:temp} sign=temp scale=16;; esac
    "$HS" compile "$f" --mode $m --scale $scale --sign $sign -o "$t/m.safetensors" || { fail=1; continue; }
    "$HS" run "$t/m.safetensors" $strings "$long" > "$t/c" || fail=1
    $PY bench/peers/forward.py "$t/m.safetensors" $strings "$long" > "$t/p" || fail=1
    if ! cmp -s "$t/c" "$t/p"; then echo "FAIL '$f' $m $sign: hardsoft run and forward.py differ"; diff "$t/c" "$t/p" | head -4; fail=1; fi
  done
done
# mixed #< / #> comparisons (BOS-weighted counts; fixed refuses them)
for m in hard pe temp rel; do
  "$HS" compile '(#<(a) + #>(a) - #<(b) - #>(b) >= 2) | #<(c) > #>(a)' --mode $m -o "$t/m.safetensors" || { fail=1; continue; }
  "$HS" run "$t/m.safetensors" $strings "$long" > "$t/c" || fail=1
  $PY bench/peers/forward.py "$t/m.safetensors" $strings "$long" > "$t/p" || fail=1
  if ! cmp -s "$t/c" "$t/p"; then echo "FAIL mixed $m: hardsoft run and forward.py differ"; diff "$t/c" "$t/p" | head -4; fail=1; fi
done
exit $fail
