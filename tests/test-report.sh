#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/report.py under pytest (tests/py): the boundary table's
# predictions and its rows from a fixture.
set -u
PY=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/.." || exit 1
exec "$PY" -m pytest -q -p no:cacheprovider tests/py
