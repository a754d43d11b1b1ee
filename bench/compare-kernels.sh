#!/bin/sh
# SPDX-License-Identifier: MIT
# hardsoft's kernel rows at this checkout against the same rows at an
# earlier commit, side by side on this machine: builds that commit's
# hs-bench-kernels in a temporary worktree, then runs the two binaries in
# turn, ROUNDS times, on hardsoft's own rows (scalar, AVX2, AVX-512; not
# the peers, not the machine rows read_bw and fma_tp), and writes
# kernels-compare.json and kernels-compare.md into this machine's folder
# results/machines/ID (or HS_BENCH_RESULTS): per row the
# fastest round of each binary and their ratio, and the rows slower beyond
# the noise (bench/compare-kernels.py), apart from those whose kernel's
# object code is the same in both builds ("same code": only the binaries'
# layout differs). Both binaries run with address-space randomization off
# (setarch -R, where the system allows it): the base's harness may predate
# the one that turns it off itself, and a row's time can depend on where
# randomization puts the code. Called by `make bench` after
# bench/run-kernels.sh; alone:
#
#   BUILD=build sh bench/compare-kernels.sh [BASE]
#
# BASE: a commit (default: the commit that this machine's committed
# results/machines/ID/kernels.json measured, i.e. its last published kernel
# table, ID as `hardsoft info` prints it: a machine is compared only with
# its own earlier results; without any, the comparison says "no earlier
# results for this machine" and compares nothing).
# Environment: HS_COMPARE_ROUNDS (default 3), HS_COMPARE_CONFIRM (rounds
# more for the rows slower after those, default 5), HS_BENCH_MIN_TIME (default
# 0.01 s a row and round), HS_BENCH_FILTER (a regex further narrowing the
# rows), HS_BENCH_RESULTS (output directory, default results/machines/ID).
set -eu

BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
id=${HS_BENCH_MACHINE:-$("$BUILD/hardsoft" info | sed -n 's/^machine id: //p')}
[ -n "$id" ] || { echo "compare-kernels.sh: no machine id ($BUILD/hardsoft info)" >&2; exit 1; }
OUT=${HS_BENCH_RESULTS:-results/machines/$id}
mkdir -p "$OUT"
rounds=${HS_COMPARE_ROUNDS:-3}
confirm=${HS_COMPARE_CONFIRM:-5}
min_time=${HS_BENCH_MIN_TIME:-0.01}
NEW=$BUILD/hs-bench-kernels

if [ ! -x "$NEW" ]; then
  echo "compare-kernels.sh: $NEW is missing; run: make BUILD=$BUILD benchbins" >&2
  exit 1
fi
# an earlier comparison must not stand for this one
rm -f "$OUT/kernels-compare.json" "$OUT/kernels-compare.md"
if [ $# -ge 1 ]; then
  base=$1
else
  base=$(git show "HEAD:results/machines/$id/kernels.json" 2>/dev/null | "$PYTHON" -c '
import json, sys
try:
    print(json.load(sys.stdin)["context"]["hardsoft"]["git"]["commit"])
except (ValueError, KeyError, TypeError):
    pass') || base=
  if [ -z "$base" ]; then
    echo "compare kernels: no earlier results for this machine ($id): nothing to compare with"
    "$PYTHON" bench/compare-kernels.py --no-earlier --machine "$id" \
      --json "$OUT/kernels-compare.json" --md "$OUT/kernels-compare.md"
    exit 0
  fi
fi
if ! base_full=$(git rev-parse --verify -q "$base^{commit}"); then
  if [ $# -ge 1 ]; then
    echo "compare-kernels.sh: '$1' is not a commit of this repository" >&2
    exit 1
  fi
  # a shallow clone lacks the published commit: nothing to compare with
  echo "compare kernels: skipped, commit $base is not in this clone (git fetch --unshallow)"
  exit 0
fi
base=$base_full

tmp=$(mktemp -d)
cleanup() {
  git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
echo "compare kernels: building hs-bench-kernels at $(git rev-parse --short "$base") (log $tmp/build.log)"
git worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
jobs=$(nproc 2>/dev/null || echo 2)
if ! make -C "$tmp/base" -j"$jobs" BUILD=build build/hs-bench-kernels >"$tmp/build.log" 2>&1; then
  tail -20 "$tmp/build.log" >&2
  echo "compare-kernels.sh: the build at $base failed" >&2
  exit 1
fi
OLD=$tmp/base/build/hs-bench-kernels

# hardsoft's rows: <family>/<isa>[_variant]/..., both binaries' lists
rows='^[a-z0-9_]+/(scalar|avx2|avx512)[a-z0-9_]*/'
filter=${HS_BENCH_FILTER:-.}
# each binary's layout fixed, not drawn anew every round
norand=
if setarch "$(uname -m)" -R true 2>/dev/null; then norand="setarch $(uname -m) -R"; fi
objs="--base-objs $tmp/base/build/obj --new-objs $BUILD/obj"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export OMP_NUM_THREADS OPENBLAS_NUM_THREADS
start=$(date +%s)
# one side's run of the rows matching NAMES (the binary lists its own
# rows unless NAMES is given) into $tmp/SIDE-TAG.json, added to $files
files=
run_side() {
  side=$1 tag=$2 names=$3
  if [ "$side" = base ]; then bin=$OLD; else bin=$NEW; fi
  [ -n "$names" ] || names=$("$bin" --benchmark_list_tests=true | grep -E "$rows" \
    | grep -vE '^(read_bw|fma_tp)/' | grep -E -- "$filter" | paste -sd '|' -)
  # shellcheck disable=SC2086 # $norand: empty or three words
  $norand "$bin" --benchmark_filter="^($names)\$" --benchmark_min_time="$min_time" \
    --benchmark_out="$tmp/$side-$tag.json" --benchmark_out_format=json \
    >"$tmp/$side-$tag.log" 2>&1 || { tail -20 "$tmp/$side-$tag.log" >&2; exit 1; }
  files="$files $side=$tmp/$side-$tag.json"
}
# COUNT rounds of base and new in turn over NAMES, tags PREFIX1..COUNT,
# each round announced as LABEL
run_rounds() {
  count=$1 prefix=$2 names=$3 label=$4
  r=1
  while [ "$r" -le "$count" ]; do
    for side in base new; do
      echo "compare kernels: $label, round $r of $count, $side"
      run_side "$side" "$prefix$r" "$names"
    done
    r=$((r + 1))
  done
}
run_rounds "$rounds" "" "" "all rows"
# A row slower after those rounds is run again, alone with the other
# rows slower, CONFIRM more rounds in turn: a burst of other work on the
# shared machine can hit one side's rounds of a short row, while a row
# that is really slower stays slower in every round. The verdict takes
# each side's fastest round over all rounds.
# shellcheck disable=SC2086 # $files: paths under mktemp, no blanks
slow=$("$PYTHON" bench/compare-kernels.py --list-slower $objs $files | paste -sd '|' -)
nslow=0
if [ -n "$slow" ]; then
  nslow=$(printf '%s\n' "$slow" | tr '|' '\n' | wc -l)
  run_rounds "$confirm" c "$slow" "confirming $nslow slower rows"
fi
end=$(date +%s)
settings="min_time=${min_time}s, $rounds rounds, base and new in turn"
[ -z "$norand" ] || settings="$settings, both under setarch -R"
[ "$nslow" -eq 0 ] || settings="$settings, then $confirm more rounds of the $nslow rows slower after them"
# shellcheck disable=SC2086
"$PYTHON" bench/compare-kernels.py --base-commit "$base" --machine "$id" \
  --new-commit "$(git rev-parse HEAD)$(git diff --quiet HEAD -- simd src include bench/kernels.cc || echo +dirty)" \
  --settings "$settings, filter=$filter" \
  --seconds $((end - start)) --json "$OUT/kernels-compare.json" --md "$OUT/kernels-compare.md" \
  $objs $files
