#!/bin/sh
# SPDX-License-Identifier: MIT
# Models from elsewhere: files laid out as the Python safetensors library
# writes them (tests/py/make_st_models.py: format "pt", F16 / BF16 / F64
# weights, an unused I64 tensor) give the same decisions as the hardsoft
# file they come from; an I8 weight is one error naming tensor and dtype.
set -u
HS=${BUILD:-build}/hardsoft
fail=0
ran=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
strings="abbab baab cacab bbbbbbbbba aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"
for f in 'a S b' 'a U (b & X c)' '#a <= 2 * #b' 'H (a -> O b)'; do
  for m in hard pe temp rel; do
    d="$t/$m"
    rm -rf "$d"; mkdir -p "$d"
    "$HS" compile "$f" --mode $m -o "$d/model.st" 2>/dev/null || continue
    python3 tests/py/make_st_models.py "$d/model.st" "$d" >"$d/log" ||
      { echo "FAIL $f $m: make_st_models.py"; fail=1; continue; }
    want=$("$HS" run "$d/model.st" $strings)
    for dt in f16 bf16 f64; do
      # the exact conversions must not have been rounded by the writer
      # for the decisions to be the same: it reports how many were
      grep -q "$dt.safetensors: 0 weights not exact" "$d/log" || continue
      got=$("$HS" run "$d/$dt.safetensors" $strings 2>"$t/err") ||
        { echo "FAIL $f $m $dt: $(cat "$t/err")"; fail=1; continue; }
      [ "$got" = "$want" ] || { echo "FAIL $f $m $dt: '$got' want '$want'"; fail=1; }
      ran=$((ran + 1))
    done
    "$HS" run "$d/i8.safetensors" ab >"$t/out" 2>"$t/err"; rc=$?
    if [ $rc != 2 ] || [ "$(wc -l <"$t/err")" != 1 ] ||
       ! grep -q "i8.safetensors: tensor embed: dtype I8 not supported" "$t/err" || [ -s "$t/out" ]; then
      echo "FAIL $f $m i8: exit $rc, '$(cat "$t/err")'"; fail=1; fi
  done
done
# the files are packed as the library packs them: I64 first, then by name
d="$t/hard"
"$HS" compile 'a S b' --mode hard -o "$d/model.st" && python3 tests/py/make_st_models.py "$d/model.st" "$d" >/dev/null
python3 - "$d/f16.safetensors" <<'PY' || fail=1
import json, struct, sys
buf = open(sys.argv[1], "rb").read()
(n,) = struct.unpack_from("<Q", buf)
assert n % 8 == 0, n
h = json.loads(buf[8:8 + n])
names = list(h)
assert names[0] == "__metadata__" and names[1] == "optimizer.step", names
assert names[2:] == sorted(names[2:]), names
assert h["__metadata__"]["format"] == "pt"
assert all(h[k]["dtype"] == "F16" for k in names[2:])
PY
[ $ran -ge 12 ] || { echo "FAIL only $ran converted files compared"; fail=1; }
[ $fail = 0 ] && echo "test-st-models: ok"
exit $fail
