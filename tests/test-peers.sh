#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark peers (bench/peers/forward.py for numpy and torch,
# $BUILD/hs-peer-openblas) speak the protocol `hardsoft bench` expects:
# given MODEL --time R --precision P --input FILE, one line of JSON
# {"seconds": [R numbers], "peak_bytes": N, "bits": "..."} whose bits equal
# `hardsoft run`'s decisions. make check builds $BUILD/hs-peer-openblas
# and installs NumPy and PyTorch, so a missing one fails, never skips.
set -u
B=${BUILD:-build}
HS=$B/hardsoft
OB=$B/hs-peer-openblas
PY=${PYTHON:-/usr/bin/python3}
for x in "$HS" "$OB"; do
  [ -x "$x" ] || { echo "FAIL: no $x (make check builds it)"; exit 1; }
done
for mod in numpy torch; do
  "$PY" -c "import $mod" 2>/dev/null || { echo "FAIL: $PY cannot import $mod (make check installs it)"; exit 1; }
done
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
peers="numpy torch openblas"
"$PY" -c "import random; random.seed(3); print(''.join(random.choice('aabbc#') for _ in range(333)))" > "$t/in"
: > "$t/empty"
# (formula, mode) pairs: softmax heads and hard heads; the string, in both
# precisions, and the empty string
for fm in 'pe:a S b' 'rel:a U b & Y a' 'hard:G (a -> F b) & O c'; do
  m=${fm%%:*} f=${fm#*:}
  "$HS" compile "$f" --mode $m --scale 4 -o "$t/m.safetensors" || { fail=1; continue; }
  for case in "$t/in f32" "$t/in f64" "$t/empty f32"; do
    in=${case% *} p=${case##* }
    "$HS" run "$t/m.safetensors" --precision $p -- "$(head -n 1 "$in")" > "$t/want" || { fail=1; continue; }
    for peer in $peers; do
      case $peer in
        numpy) set -- "$PY" bench/peers/forward.py "$t/m.safetensors" --time 3 --precision $p --input "$in" ;;
        torch) set -- "$PY" bench/peers/forward.py "$t/m.safetensors" --time 3 --precision $p --input "$in" --torch ;;
        openblas) set -- "$OB" "$t/m.safetensors" --time 3 --precision $p --input "$in" ;;
      esac
      if ! "$@" > "$t/out" 2> "$t/err"; then
        echo "FAIL $peer '$f' $m $p: exit status $? ($(head -n 1 "$t/err"))"; fail=1; continue
      fi
      if ! "$PY" - "$t/out" "$t/want" 3 "$peer" <<'PYEOF'
import json, math, sys
out, want, reps = open(sys.argv[1]).read(), open(sys.argv[2]).read().rstrip("\n"), int(sys.argv[3])
who = {"numpy": "NumPy ", "torch": "PyTorch ", "openblas": "OpenBLAS "}[sys.argv[4]]
lines = out.splitlines()
assert len(lines) == 1, "expected one line, got %d" % len(lines)
r = json.loads(lines[0])
assert set(r) == {"seconds", "peak_bytes", "bits", "version"}, "keys %s" % sorted(r)
# the peer names itself and its version (the CSV's version column)
assert r["version"].startswith(who) and any(c.isdigit() for c in r["version"]), \
    "version %r" % r["version"]
s = r["seconds"]
assert isinstance(s, list) and len(s) == reps, "seconds: %r" % (s,)
# times are numbers, never compared with a threshold
assert all(isinstance(x, (int, float)) and math.isfinite(x) and x >= 0 for x in s), "seconds: %r" % (s,)
assert isinstance(r["peak_bytes"], int) and r["peak_bytes"] >= 0, "peak_bytes %r" % r["peak_bytes"]
assert r["bits"] == want, "bits differ from hardsoft run:\n  %s\n  %s" % (r["bits"], want)
PYEOF
      then echo "FAIL $peer '$f' $m $p $(basename "$in")"; fail=1; fi
    done
  done
done
# errors: exit 2 with one line on stderr
for peer in numpy openblas; do
  case $peer in
    numpy) set -- "$PY" bench/peers/forward.py "$t/nonexistent" --time 1 --input "$t/in" ;;
    openblas) set -- "$OB" "$t/nonexistent" --time 1 --input "$t/in" ;;
  esac
  "$@" > "$t/out" 2> "$t/err"
  st=$?
  if [ $st -ne 2 ] || [ "$(wc -l < "$t/err")" -ne 1 ] || [ -s "$t/out" ]; then
    echo "FAIL $peer on a missing model: status $st, want 2 and one line on stderr"; fail=1
  fi
done
[ $fail = 0 ] && echo "peers ok: $peers"
exit $fail
