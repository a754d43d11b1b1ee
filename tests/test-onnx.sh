#!/bin/sh
# SPDX-License-Identifier: MIT
# ONNX export (docs/ONNX.md): ONNX Runtime (onnxruntime-node, installed by
# make into $BUILD/node) agrees with hardsoft's decisions on every formula
# of tests/formulas.txt in every mode (tests/onnx/check_ort.py), and export
# refuses bad input in one line with exit 2, leaving no file.
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
$PY tests/onnx/check_ort.py "$HS" tests/onnx/ort-run.js || fail=1

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
[ -e "$t/x.onnx" ] && { echo "FAIL: a failed export left $t/x.onnx"; fail=1; }
ls "$t" | grep -q '\.tmp\.' && { echo "FAIL: a temporary file was left behind"; fail=1; }
# mode 0666 minus the umask, as model files
(umask 027 && "$HS" export "$t/m.safetensors" -o "$t/u.onnx") || fail=1
[ "$(stat -c %a "$t/u.onnx")" = 640 ] || { echo "FAIL: export mode $(stat -c %a "$t/u.onnx"), want 640"; fail=1; }
exit $fail
