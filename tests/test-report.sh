#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/report.py under pytest (tests/py): the growth-exponent fit with
# its 95% interval and the missed rule, provenance from CSV rows, git
# freshness, plot stamps, per-mode bound lines, and the boundary table's
# predictions and its rows from a fixture.
set -u
PY=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/.." || exit 1
exec "$PY" -m pytest -q -p no:cacheprovider tests/py
