#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/report under pytest (tests/py): the growth-exponent fit with its
# 95% interval and the missed rule, each path's exponent judged against
# what it should do, provenance from CSV rows, plot stamps clear of the
# axis labels, per-mode bound lines, the boundary table from a fixture,
# every target from synthetic CSVs, the default and dense path per ISA and
# the time-by-phase table, the LaTeX tables, and the check that the
# published results describe the code that published them; then the
# Python package's tests.
set -u
PY=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/.." || exit 1
# the Python package loads $BUILD/libhardsoft.so (tests/py/conftest.py); a
# sanitizer build of it needs its runtime loaded first into the interpreter
asan=$(ldd "${BUILD:-build}/libhardsoft.so" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
# (and libstdc++ with it: PyTorch's C++ exceptions abort the interpreter
# when the sanitizer runtime comes up before the C++ library)
stdcxx=$(${CC:-cc} -print-file-name=libstdc++.so.6 2>/dev/null)
[ -f "$stdcxx" ] && asan=${asan:+"$asan $stdcxx"}
[ -n "$asan" ] && export LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0
# A pytest skip is reported as a skip (tests/run.sh counts "SKIP " lines),
# never folded into the pass: -rs lists each with its reason.
out=$("$PY" -m pytest -q -rs -p no:cacheprovider tests/py 2>&1); rc=$?
printf '%s\n' "$out" | tail -15
printf '%s\n' "$out" | sed -n 's/^SKIPPED \[[0-9]*\] \(.*\)$/SKIP pytest: \1/p'
exit $rc
