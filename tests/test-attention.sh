#!/bin/sh
# SPDX-License-Identifier: MIT
# hardsoft attention writes a PNG (or SVG) picture of the attention
# weights, and refuses bad input with one line "hardsoft: error: ...",
# exit 2 and no output file. What it draws is checked by value: the data
# it hands the drawing script (caught by a stand-in script through
# HARDSOFT_PLOT) holds, per --layer / --head and per mu of --scales, the
# weights and hard targets of the library's hs_attention (through the
# Python package) for the same model and string; and the drawing script
# puts those weights, not the hard targets, into its heatmaps.
set -u
B=${BUILD:-build}
HS=$B/hardsoft
PY=${PYTHON:-/usr/bin/python3}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
png_ok() { # FILE: PNG magic bytes and more than a header
  [ -s "$1" ] && [ "$(od -An -c -N4 "$1" | tr -d ' ')" = "211PNG" ] &&
    [ "$(wc -c < "$1")" -gt 2000 ]
}
"$HS" attention 'a S b' --mode pe --scales 1,2,4,8 aabcabbacabbbaacabbcaaab --png "$t/asb.png" ||
  { echo "FAIL: --scales"; fail=1; }
png_ok "$t/asb.png" || { echo "FAIL: asb.png is not a PNG"; fail=1; }
"$HS" attention 'G (a -> F b)' --mode temp --layer 0 abcab --png "$t/g.png" || fail=1
png_ok "$t/g.png" || { echo "FAIL: g.png is not a PNG"; fail=1; }
"$HS" attention -f tests/programs/dyck1.cr --mode pe --scales 1,16 "( ( ) ) ( )" --png "$t/d.png" ||
  { echo "FAIL: -f program"; fail=1; }
png_ok "$t/d.png" || { echo "FAIL: d.png is not a PNG"; fail=1; }
"$HS" attention -f tests/programs/since.brasp --mode hard --unknown other "a b q a" --png "$t/s.png" &&
  png_ok "$t/s.png" || { echo "FAIL: -f B-RASP program (unnamed token q)"; fail=1; }
"$HS" compile 'a U b' --mode rel -o "$t/m.safetensors" || fail=1
"$HS" attention --model "$t/m.safetensors" abba --svg "$t/m.svg" || fail=1
grep -q '<svg' "$t/m.svg" 2>/dev/null || { echo "FAIL: m.svg is not an SVG"; fail=1; }

# the values: a stand-in for plot.py keeps the data it is given
cat >"$t/keep.py" <<'PYEOF'
import shutil, sys
data, out = sys.argv[sys.argv.index("--data") + 1], sys.argv[sys.argv.index("--out") + 1]
shutil.copy(data, out + ".json")
open(out, "w").close()
PYEOF
asan=$(ldd "$B/libhardsoft.so" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
values() { # values NAME SOURCE-ARGS -- STRING ATTENTION-ARGS...: the drawn data against hs_attention
  name=$1; shift
  rm -f "$t/v.png" "$t/v.png.json"
  HARDSOFT_PLOT="$t/keep.py" "$HS" attention "$@" --png "$t/v.png" 2>"$t/err" ||
    { echo "FAIL values $name: $(cat "$t/err")"; fail=1; return; }
  env HARDSOFT_LIB="$B/libhardsoft.so" ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0} \
    "$PY" - "$t/v.png.json" "$name" "$@" <<'PYEOF' || fail=1
import json, sys
import numpy as np
sys.path.insert(0, "src/python")
import hardsoft
path, name, args = sys.argv[1], sys.argv[2], sys.argv[3:]
def opt(k, default=None):
    return args[args.index(k) + 1] if k in args else default
data = json.load(open(path))
s = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or not args[i - 1].startswith("-"))]
if "--model" in args:
    models, s = [hardsoft.load(opt("--model"))], s[0]
else:
    f, s = s[0], s[1]
    scales = [float(x) for x in opt("--scales", opt("--scale", "4")).split(",")]
    models = [hardsoft.compile(f, mode=opt("--mode", "temp"), scale=mu) for mu in scales]
layer, head = opt("--layer"), opt("--head")
want = [(l, h) for l in range(models[0].nlayers) for h in range(models[0].attention(s)[l].weights.shape[0])
        if (layer is None or l == int(layer)) and (head is None or h == int(head))]
atts = [m.attention(s) for m in models]
ok = data["string"] == s and len(data["panels"]) == len(want) > 0
for row, (l, h) in zip(data["panels"], want):
    ok = ok and len(row) == len(models)
    for p, m, att in zip(row, models, atts):
        w, hard = att[l].weights[h], att[l].hard[h]
        ok = ok and (p["layer"], p["head"], p["mode"]) == (l, h, m.mode) and abs(p["scale"] - m.scale) < 1e-12
        for key, ref in (("weights", w), ("hard", hard)):
            got = np.array(p[key], dtype=float)
            if got.shape != ref.shape or not np.allclose(got, ref, rtol=1e-5, atol=1e-6):
                print("FAIL values %s: layer %d head %d mu %g: %s differ from hs_attention by up to %.3g"
                      % (name, l, h, m.scale, key, np.abs(got - ref).max() if got.shape == ref.shape else np.inf))
                ok = False
if not ok:
    print("FAIL values %s: %d panels rows, want %s" % (name, len(data["panels"]), want))
# the softmax cases below are chosen so weights and hard targets differ
soft = [p for row in data["panels"] for p in row if p["kind"] == "softmax"]
if soft and all(np.allclose(p["weights"], p["hard"]) for p in soft):
    print("FAIL values %s: softmax weights equal the hard targets (a case that cannot tell them apart)" % name)
    ok = False
sys.exit(0 if ok else 1)
PYEOF
}
values "scales" 'a S b' aabcabbacab --mode pe --scales 1,2,8
values "layer 1 head 1" '(a S b) & (Y c) & (a U c)' abcacbba --mode pe --scale 1 --layer 1 --head 1
values "head 0 of every layer" '(a S b) & (Y c) & (a U c)' abcacbba --mode pe --scale 2 --head 0
values "temp layer 3" 'G (a -> F b)' abcabba --mode temp --scale 1 --layer 3
values "rel model file" --model "$t/m.safetensors" abbab
values "hard" 'a S b' abcab --mode hard
# the drawing script's heatmaps are the weights (keys the mask hides left
# out), whatever the hard targets are
"$HS" attention 'a S b' aabcab --mode pe --scales 1,4 --png "$t/v.png" >/dev/null 2>&1 &&
HARDSOFT_PLOT="$t/keep.py" "$HS" attention 'a S b' aabcab --mode pe --scales 1,4 --png "$t/v.png" &&
"$PY" - "$t/v.png.json" "$t/drawn.png" <<'PYEOF' || { echo "FAIL plot.py draws something else than the weights"; fail=1; }
import json, sys
import numpy as np
sys.path.insert(0, "src/python/hardsoft")
import matplotlib
matplotlib.use("Agg")
import matplotlib.axes
import plot
shown = []
imshow = matplotlib.axes.Axes.imshow
def keep(self, X, *a, **k):
    shown.append(np.ma.filled(np.ma.asarray(X, dtype=float), np.nan))
    return imshow(self, X, *a, **k)
matplotlib.axes.Axes.imshow = keep
data = json.load(open(sys.argv[1]))
plot.draw(data, sys.argv[2])
panels = [p for row in data["panels"] for p in row]
ok = len(shown) == len(panels) == 2
for got, p in zip(shown, panels):
    n = len(p["weights"]) - 1
    want = np.where(plot._visible(p["mask"], n), np.array(p["weights"]), np.nan)
    ok = ok and np.array_equal(np.isnan(got), np.isnan(want)) and np.allclose(
        np.nan_to_num(got), np.nan_to_num(want)) and not np.allclose(np.nan_to_num(got), p["hard"])
sys.exit(0 if ok else 1)
PYEOF

# bad input: one line on stderr, exit 2, nothing written
printf 'not a model at all' > "$t/junk.safetensors"
long=$(printf '%0300d' 0)
while IFS='|' read -r name args; do
  eval "set -- $args"
  "$HS" attention "$@" > "$t/out" 2> "$t/err"
  rc=$?
  lines=$(wc -l < "$t/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q '^hardsoft: error: ' "$t/err" ||
     [ -s "$t/out" ] || [ -e "$t/bad.png" ]; then
    echo "FAIL $name: exit $rc, $lines lines:"; cat "$t/err"; fail=1
  fi
  rm -f "$t/bad.png"
done <<EOF2
malformed formula|'a S' ab --png $t/bad.png
unknown mode|'a S b' ab --mode soft --png $t/bad.png
scale 0|'a S b' ab --scale 0 --png $t/bad.png
bad scales|'a S b' ab --scales 1,x --png $t/bad.png
no output|'a S b' ab
two outputs|'a S b' ab --png $t/bad.png --svg $t/bad.svg
no string|'a S b' --png $t/bad.png
too long|'a S b' $long --png $t/bad.png
missing model|--model $t/nonexistent ab --png $t/bad.png
corrupt model|--model $t/junk.safetensors ab --png $t/bad.png
scales of a file|--model $t/m.safetensors ab --scales 1,2 --png $t/bad.png
no such layer|'a S b' ab --layer 7 --png $t/bad.png
no such directory|'a S b' ab --png $t/no/dir/bad.png
unknown option|'a S b' ab --frobnicate --png $t/bad.png
EOF2
[ -e "$t/no" ] && { echo "FAIL: a directory was created"; fail=1; }
ls -a "$t" | grep -q '^\.attention-' && { echo "FAIL: a temporary file was left"; fail=1; }
exit $fail
