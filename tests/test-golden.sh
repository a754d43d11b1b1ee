#!/bin/sh
# SPDX-License-Identifier: MIT
# The golden corpus (tests/golden/golden.py): compile --print, the model
# file's bytes and eval for every program, formula and mode are what
# tests/golden/expected/ recorded. After a deliberate change of output,
# `python3 tests/golden/golden.py update` rewrites it (review the diff).
# Run from the repository root with BUILD set (tests/run.sh does).
set -u
BUILD=${BUILD:-build} exec "${PYTHON:-python3}" tests/golden/golden.py check
