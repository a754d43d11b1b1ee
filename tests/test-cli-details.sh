#!/bin/sh
# SPDX-License-Identifier: MIT
# Details a user reads: compile --print counts "1 ReLU unit" and "2 ReLU
# units"; boundary --help lists exactly the columns --header prints; the
# attention picture's data carries the model's output bits (the same as
# eval's), which the picture prints under the string; and the picture of
# a one-column C-RASP model keeps its whole title inside the image.
set -u
HS=${BUILD:-build}/hardsoft
PY=${PYTHON:-/usr/bin/python3}
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$HS" compile 'a & b' --print | grep -q '^  feed-forward: 1 ReLU unit$' ||
  { echo "FAIL compile --print: not '1 ReLU unit'"; fail=1; }
"$HS" compile 'a S b' --print | grep -Eq '^  feed-forward: ([02-9]|[1-9][0-9]+) ReLU units$' ||
  { echo "FAIL compile --print: no plural 'ReLU units'"; fail=1; }
"$HS" compile 'a & b' --print | grep -q ' 1 ReLU units' && { echo "FAIL compile --print: '1 ReLU units'"; fail=1; }
header=$("$HS" boundary a --header --max-n 8 | head -1)
"$HS" boundary --help | grep -qx -- "$header" ||
  { echo "FAIL boundary --help does not list the columns --header prints: $header"; fail=1; }
# the picture's data, caught by a stand-in for the drawing script's python
printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --data ] && cp "$2" %s/data.json; shift; done\n' "$t" >"$t/py"
chmod +x "$t/py"
HARDSOFT_PYTHON=$t/py "$HS" attention -f tests/programs/dyck1.cr "( ( ) ) )" --png "$t/x.png" ||
  { echo "FAIL attention with a stand-in python"; fail=1; }
want=$("$HS" eval -f tests/programs/dyck1.cr "( ( ) ) )")
got=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["bits"])' "$t/data.json" 2>&1)
[ "$got" = "$want" ] || { echo "FAIL attention bits: got '$got', want eval's '$want'"; fail=1; }
# the title inside the picture: matplotlib's own measure of the drawn title
if "$PY" -c 'import matplotlib' 2>/dev/null; then
  PYTHONPATH=src/python "$PY" - "$t/data.json" <<'PY' || fail=1
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.transforms import Bbox
import hardsoft.plot as plot
data = json.load(open(sys.argv[1]))
data["panels"] = data["panels"][:1]
data["formula"] = "a long program title " * 8
saved = {}
real = plt.Figure.savefig
def spy(fig, *a, **k):
    real(fig, *a, **k)
    r = fig.canvas.get_renderer()
    box = fig.get_tightbbox(r) if k.get("bbox_inches") == "tight" else fig.bbox_inches
    title = fig._suptitle.get_window_extent(r).transformed(fig.dpi_scale_trans.inverted())
    saved["ok"] = box.x0 - 1e-6 <= title.x0 and title.x1 <= box.x1 + 1e-6
plt.Figure.savefig = spy
plot.draw(data, sys.argv[1] + ".png")
if not saved.get("ok"):
    print("FAIL attention picture: the title is cut at the image's edges")
    sys.exit(1)
PY
else
  echo "SKIP the attention title check: no matplotlib"
fi
[ $fail = 0 ] && echo "test-cli-details: ok"
exit $fail
