#!/bin/sh
# SPDX-License-Identifier: MIT
# ONNX export (docs/ONNX.md): ONNX Runtime (onnxruntime-node, installed by
# make into $BUILD/node) agrees with hardsoft's decisions on every formula
# of tests/formulas.txt in every mode (tests/onnx/check_ort.py); export
# refuses bad input in one line with exit 2, leaving no file; the ort
# benchmark peer (ort-run.js --time, hardsoft bench --isas ort) reports
# the same decisions.
set -u
B=${BUILD:-build}
HS=$B/hardsoft
PY=${PYTHON:-/usr/bin/python3}
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
if ! command -v node >/dev/null; then echo "FAIL: node is missing (make check installs nodejs)"; exit 1; fi
ORT=$B/node/node_modules/onnxruntime-node
if [ ! -d "$ORT" ]; then echo "FAIL: $ORT is missing (make $ORT installs it)"; exit 1; fi
$PY tests/onnx/check_ort.py "$HS" tests/onnx/ort-run.js "$ORT" || fail=1

# values, not only decisions: the random-weight model of test-safetensors
# (every positional feature, mask, head kind and temperature law, a
# relative bias; values far from 0 and 1) against the independent float64
# forward pass, bench/peers/forward.py, within a relative 1e-5
if HS_TEST_MODEL_DIR="$t" "$B/tests/test-safetensors" >/dev/null 2>&1 &&
   "$HS" export "$t/mixed.safetensors" -o "$t/mixed.onnx"; then
  "$PY" -c "import random; random.seed(7); [print(''.join(random.choice('abc#xy') for _ in range(n))) for n in (1, 2, 7, 64, 300)]" > "$t/mixed.in"
  node tests/onnx/ort-run.js --ort "$ORT" --dump "$t/mixed.onnx" < "$t/mixed.in" > "$t/mixed.ort" || fail=1
  # shellcheck disable=SC2046
  "$PY" bench/peers/forward.py "$t/mixed.safetensors" --dump $(cat "$t/mixed.in") > "$t/mixed.ref" || fail=1
  "$PY" - "$t/mixed.ort" "$t/mixed.ref" <<'PYEOF' || fail=1
import sys
got = [[float(v) for v in l.split()] for l in open(sys.argv[1])]
ref = [[float(v) for v in l.split()] for l in open(sys.argv[2])]
worst = max((abs(g - r) / max(1.0, abs(r)) for gl, rl in zip(got, ref) for g, r in zip(gl, rl)), default=0)
ok = len(got) == len(ref) == 5 and all(len(g) == len(r) for g, r in zip(got, ref)) and worst <= 1e-5
print("mixed model: largest relative difference from forward.py (f64): %.3g" % worst)
if not ok:
    print("FAIL mixed model: ORT and forward.py differ")
sys.exit(0 if ok else 1)
PYEOF
else
  echo "FAIL: $B/tests/test-safetensors could not write mixed.safetensors (make check builds it)"; fail=1
fi

# bad input: one error line, exit 2, no output file
expect_err() { # what, pattern, command...
  what=$1 pat=$2; shift 2
  "$@" >"$t/out" 2>"$t/err"; rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$t/err")" -ne 1 ] || ! grep -q "^hardsoft: error: .*$pat" "$t/err"; then
    echo "FAIL $what: rc=$rc, stderr:"; cat "$t/err"; fail=1
  fi
}
printf 'not a model' >"$t/bad.safetensors"
expect_err "export of a bad model" "bad.safetensors" "$HS" export "$t/bad.safetensors" -o "$t/x.onnx"
expect_err "export without -o" "expected one MODEL" "$HS" export "$t/bad.safetensors"
expect_err "export of a missing file" "missing.safetensors" "$HS" export "$t/missing.safetensors" -o "$t/x.onnx"
"$HS" compile 'a S b' -o "$t/m.safetensors" || fail=1
expect_err "export into a missing directory" "nodir/x.onnx" "$HS" export "$t/m.safetensors" -o "$t/nodir/x.onnx"
"$HS" compile 'a S b' -o "$t/g.onnx" || fail=1
expect_err "export of an ONNX graph" "is an ONNX graph, not a hardsoft model" "$HS" export "$t/g.onnx" -o "$t/x.onnx"
[ -e "$t/x.onnx" ] && { echo "FAIL: a failed export left $t/x.onnx"; fail=1; }
ls "$t" | grep -q '\.tmp\.' && { echo "FAIL: a temporary file was left behind"; fail=1; }
# mode 0666 minus the umask, as model files
(umask 027 && "$HS" export "$t/m.safetensors" -o "$t/u.onnx") || fail=1
[ "$(stat -c %a "$t/u.onnx")" = 640 ] || { echo "FAIL: export mode $(stat -c %a "$t/u.onnx"), want 640"; fail=1; }

# the benchmark peer: ort-run.js --time speaks the peers' protocol, and
# hardsoft bench --isas ort reports its rows with full agreement
"$PY" -c "import random; random.seed(3); print(''.join(random.choice('aabbc#') for _ in range(333)))" > "$t/in"
"$HS" compile 'a U b & Y a' --mode rel -o "$t/r.safetensors" && "$HS" export "$t/r.safetensors" -o "$t/r.onnx" || fail=1
"$HS" run "$t/r.safetensors" -- "$(head -n 1 "$t/in")" > "$t/want" || fail=1
node tests/onnx/ort-run.js --ort "$ORT" --time 3 --input "$t/in" "$t/r.onnx" > "$t/rep" || fail=1
"$PY" - "$t/rep" "$t/want" <<'PYEOF' || fail=1
import json, math, sys
rep = json.load(open(sys.argv[1]))
want = open(sys.argv[2]).read().strip()
# times are numbers, never compared with a threshold
ok = (len(rep["seconds"]) == 3
      and all(isinstance(s, (int, float)) and math.isfinite(s) and s >= 0 for s in rep["seconds"])
      and rep["bits"] == want and isinstance(rep["peak_bytes"], int))
if not ok:
    print("FAIL ort-run.js --time: %r, want bits %s" % (rep, want))
sys.exit(0 if ok else 1)
PYEOF
"$HS" bench --formula 'a S b' --modes pe,hard --lengths 5,40 --isas ort --precisions f32,f64 \
  --repeat 2 --csv "$t/b.csv" 2>"$t/err" || { echo "FAIL bench --isas ort"; cat "$t/err"; fail=1; }
rows=$(awk -F, 'NR > 1 && $4 == "ort" && $5 == "f32" && $13 == "1.000000"' "$t/b.csv" | wc -l)
[ "$rows" -eq 4 ] && [ "$(wc -l < "$t/b.csv")" -eq 5 ] || { echo "FAIL bench --isas ort: want 4 f32 rows agreeing, no f64:"; cat "$t/b.csv"; fail=1; }
exit $fail
