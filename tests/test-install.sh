#!/bin/sh
# SPDX-License-Identifier: MIT
# The installed tool benchmarks from any directory: make install into a
# scratch PREFIX puts what bench reads under PREFIX/share/hardsoft, and
# PREFIX/bin/hardsoft, run from an empty directory, finds its formulas and
# the numpy peer there (not in the source tree or the current directory).
# A peer whose own dependency is missing says so in one line with how to
# get it (exit 2), for NumPy, PyTorch and onnxruntime-node. The README
# and every page of docs/ go to PREFIX/share/doc/hardsoft. make uninstall
# removes it all again. (-o lib -o cli: the build under test is installed
# as it is, never rebuilt with other flags.)
set -u
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. tests/lib/expect.sh
src=$(pwd)
make -s --no-print-directory install -o lib -o cli BUILD="$BUILD" PREFIX="$t/p" >"$t/install.log" 2>&1 ||
  { echo "FAIL make install: $(tail -3 "$t/install.log")"; exit 1; }
HS=$t/p/bin/hardsoft
for f in bench/formulas.txt bench/peers/forward.py tests/onnx/ort-run.js; do
  cmp -s "$f" "$t/p/share/hardsoft/$f" || { echo "FAIL install: $f not in share/hardsoft"; fail=1; }
done
# the documentation: the README and every page it links in docs/
for f in README.md docs/*.md; do
  cmp -s "$f" "$t/p/share/doc/hardsoft/${f##*/}" ||
    { echo "FAIL install: $f not in share/doc/hardsoft"; fail=1; }
done
mkdir "$t/elsewhere"
cd "$t/elsewhere" || exit 1
tiny="--modes pe --lengths 16 --repeat 1 --quiet"
# the default formulas: every line of the installed bench/formulas.txt
# shellcheck disable=SC2086
"$HS" bench $tiny --isas scalar --csv out.csv 2>err.txt ||
  { echo "FAIL installed bench from another directory: $(cat err.txt)"; fail=1; }
want=$(grep -cv '^[[:space:]]*\(#\|$\)' "$src/bench/formulas.txt")
got=$(($(wc -l <out.csv) - 1))
[ "$got" = "$want" ] || { echo "FAIL installed bench: $got rows, want $want (one per formula)"; fail=1; }
# the numpy peer, from the installed forward.py and Python package
# shellcheck disable=SC2086
PYTHON=$PY "$HS" bench --formula 'a S b' $tiny --isas numpy --csv peer.csv 2>err.txt &&
  grep -q '^"a S b",pe,4,numpy,f32,1,16,.*,1\.000000,' peer.csv ||
  { echo "FAIL installed numpy peer: $(cat err.txt) $(cat peer.csv 2>/dev/null)"; fail=1; }
# missing dependencies: NumPy (no site packages), PyTorch (import blocked),
# onnxruntime-node (a package folder that is not there)
printf '#!/bin/sh\nexec %s -S "$@"\n' "$PY" >"$t/nosite"
printf '#!/bin/sh\nexec %s -c "import sys, runpy; sys.modules[\\"torch\\"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name=\\"__main__\\")" "$@"\n' "$PY" >"$t/notorch"
chmod +x "$t/nosite" "$t/notorch"
# shellcheck disable=SC2086
PYTHON=$t/nosite expect_err "no numpy" "^hardsoft: error: bench: peer numpy failed: .*needs NumPy.*apt-get install python3-numpy" \
  "$HS" bench --formula a $tiny --isas numpy --csv x.csv
# shellcheck disable=SC2086
PYTHON=$t/notorch expect_err "no torch" "^hardsoft: error: bench: peer torch failed: .*needs PyTorch.*install" \
  "$HS" bench --formula a $tiny --isas torch --csv x.csv
if command -v node >/dev/null; then
  # shellcheck disable=SC2086
  HARDSOFT_ORT_NODE=$t/none expect_err "no onnxruntime-node" \
    "^hardsoft: error: bench: the ort peer needs onnxruntime-node: run 'make build/node" \
    "$HS" bench --formula a $tiny --isas ort --csv x.csv
else
  echo "SKIP the ort peer without onnxruntime-node: no node"
fi
cd "$src" || exit 1
make -s --no-print-directory uninstall BUILD="$BUILD" PREFIX="$t/p" >/dev/null 2>&1
left=$(find "$t/p" -type f | head -3)
[ -z "$left" ] || { echo "FAIL make uninstall left: $left"; fail=1; }
[ $fail = 0 ] && echo "test-install: ok"
exit $fail
