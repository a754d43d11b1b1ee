#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel microbenchmarks -> kernels.json, kernels.md, kernels-softmax.png in
# this machine's folder results/machines/ID (or HS_BENCH_RESULTS). A task
# of `make bench` (bench/sweep/suite.py).
#
#   BUILD=build PYTHON=/usr/bin/python3 sh bench/run-kernels.sh
#
# Environment:
#   HS_BENCH_FULL=1      long run: 0.5 s per repetition, 10 repetitions
#                        (default: 0.02 s x 7, 1.5-2 minutes in all)
#   HS_BENCH_MIN_TIME, HS_BENCH_REPS   override either setting
#   HS_BENCH_FILTER      regex of benchmark names to run (default: all)
#   HS_BENCH_MAX_N       skip sizes above this n (quick development runs)
#
# oneDNN fixes its maximum ISA once per process, so the binary runs twice:
# pass 1 with oneDNN at its default ISA (peer "onednn"), pass 2 with
# DNNL_MAX_CPU_ISA=AVX2 and only the oneDNN softmax benchmarks (the binary
# then names the peer "onednn_avx2"). The report script merges both JSON
# files. Everything runs single-threaded; nothing is pinned (the machine is
# shared), so each number is the median of the repetitions, which are
# randomly interleaved across benchmarks.
set -eu

BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/hs-bench-kernels
OUT=${HS_BENCH_RESULTS:-results/machines/$("$BUILD/hardsoft" info | sed -n 's/^machine id: //p')}

if [ ! -x "$BIN" ]; then
  echo "run-kernels.sh: $BIN is missing; run: make BUILD=$BUILD benchbins" >&2
  exit 1
fi

if [ "${HS_BENCH_FULL:-0}" = 1 ]; then
  min_time=${HS_BENCH_MIN_TIME:-0.5}; reps=${HS_BENCH_REPS:-10}
else
  min_time=${HS_BENCH_MIN_TIME:-0.02}; reps=${HS_BENCH_REPS:-7}
fi
filter=${HS_BENCH_FILTER:-.}

mkdir -p "$OUT" "$BUILD/bench"
pass1=$BUILD/bench/kernels-pass1.json
pass2=$BUILD/bench/kernels-pass2-onednn-avx2.json
rm -f "$pass1" "$pass2"

# Single-threaded peers (the binary also sets these through the APIs).
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export OMP_NUM_THREADS OPENBLAS_NUM_THREADS
unset DNNL_MAX_CPU_ISA ONEDNN_MAX_CPU_ISA 2>/dev/null || true

common="--benchmark_repetitions=$reps --benchmark_report_aggregates_only=true
  --benchmark_min_time=$min_time --benchmark_enable_random_interleaving=true
  --benchmark_out_format=json"

start=$(date +%s)
echo "bench kernels: pass 1 ($min_time s x $reps repetitions, filter '$filter'; log $BUILD/bench/kernels-pass1.log)"
# shellcheck disable=SC2086
"$BIN" $common --benchmark_filter="$filter" --benchmark_out="$pass1" \
  >"$BUILD/bench/kernels-pass1.log" 2>&1 \
  || { tail -20 "$BUILD/bench/kernels-pass1.log"; exit 1; }

echo "bench kernels: pass 2 (oneDNN capped at AVX2: DNNL_MAX_CPU_ISA=AVX2)"
# The onednn names pass 1 selected, renamed, as one exact regex.
names=$("$BIN" --benchmark_list_tests=true --benchmark_filter="$filter" \
  | grep -E '^softmax(_spread)?/onednn/' | sed 's|/onednn/|/onednn_avx2/|' \
  | paste -sd '|' -)
if [ -n "$names" ]; then
  # shellcheck disable=SC2086
  DNNL_MAX_CPU_ISA=AVX2 "$BIN" $common --benchmark_filter="^($names)\$" \
    --benchmark_out="$pass2" >"$BUILD/bench/kernels-pass2.log" 2>&1 \
    || { tail -20 "$BUILD/bench/kernels-pass2.log"; exit 1; }
fi
end=$(date +%s)
set -- "$pass1"
[ -f "$pass2" ] && set -- "$@" "$pass2"

"$PYTHON" bench/kernels-report.py --bin "$BIN" --gnuplot bench/kernels.gp \
  --settings "min_time=${min_time}s repetitions=$reps filter=$filter max_n=${HS_BENCH_MAX_N:-all} random_interleaving=true" \
  --seconds $((end - start)) --workdir "$BUILD/bench" \
  --json "$OUT/kernels.json" --md "$OUT/kernels.md" --plot "$OUT/kernels-softmax.png" \
  "$@"
