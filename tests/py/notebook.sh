#!/bin/sh
# SPDX-License-Identifier: MIT
# examples/tutorial.ipynb executed headless, as a user runs it: jupyter
# nbconvert --execute, this checkout's package and $BUILD's library, the
# executed copy written to a temporary directory. The committed notebook
# must carry no outputs. Exit 1 on any failure (a cell that raises fails).
set -eu
PY=${PYTHON:-/usr/bin/python3}
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$root/$B ;; esac
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$PY" - "$root/examples/tutorial.ipynb" <<'PYEOF'
import json, sys
nb = json.load(open(sys.argv[1]))
dirty = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"
         and (c.get("outputs") or c.get("execution_count") is not None)]
if dirty:
    sys.exit("FAIL: examples/tutorial.ipynb is committed with outputs in cells %s" % dirty)
PYEOF
start=$(date +%s)
PYTHONPATH="$root/src/python" HARDSOFT_LIB="$B/libhardsoft.so" \
  HARDSOFT_ORT="$B/node/node_modules/onnxruntime-node" \
  "$PY" -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
  --output-dir "$t" "$root/examples/tutorial.ipynb" >"$t/log" 2>&1 ||
  { tail -30 "$t/log"; echo "FAIL: examples/tutorial.ipynb did not run"; exit 1; }
echo "tutorial.ipynb: ran in $(( $(date +%s) - start )) s"
