#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole benchmark suite behind `make bench`: kernel microbenchmarks,
# the forward-pass sweeps against the peers, the precision boundary,
# simulating hard models with softmax, counting at scale, hyperfine
# whole-process timings; then the machine's report, the report across
# machines (results/REPORT.md) and the README's quotation of it.
#
#   BUILD=build PYTHON=/usr/bin/python3 sh bench/run-suite.sh
#
# The suite is a list of independent tasks (bench/sweep/suite.py, the one
# description every runner reads): `bench/sweep plan` writes it into a run
# folder, a runner runs the tasks, `bench/sweep finish` joins their outputs
# into this machine's folder results/machines/ID (ID from `hardsoft info`:
# vendor, family, model, stepping, widest ISA), replacing that folder only
# when the run has finished, and writes the reports. The same plan runs as
# a Slurm job array with bench/slurm/submit.sh.
#
# HS_BENCH_FULL=1 runs the long version (`make bench-full`): n to 16384 in
# the scaling sweep (hardsoft's rows to 2^20), mu to 32, the boundary
# search to n = 2^25 and the boundary over bench/formulas.txt to 2^16.
# The default takes about fifteen minutes on a 2-core machine.
# HS_BENCH_SMOKE=1 (`make bench-smoke`, run by CI) runs every command on
# tiny sizes, so that none of them can break unnoticed; its numbers mean
# nothing, and it leaves README.md alone.
# HS_BENCH_RUNNER: sequential (the default: one task after another) or
# parallel (GNU parallel runs the tasks that measure no time side by side
# on every core, then the timing ones one after another).
# HS_BENCH_RESULTS (default results): the folder that holds machines/.
# HS_BENCH_RUN (default $BUILD/bench/run): the run's folder (the plan, the
# tasks' outputs, statuses and logs).
# HS_BENCH_ONLY, HS_BENCH_SKIP: task groups to keep or leave out, comma-
# separated (`python3 bench/sweep list` shows each task's group).
# HS_BENCH_RUNNERS=0 leaves out the boundary table's runs under GNU
# parallel and Slurm (runners.csv: the time of the table by runner).
# Time limits (seconds): HS_BENCH_GROWTH_LIMIT (60) on the growth sweep's
# n = 2^20 run, HS_BENCH_BOUNDARY_LIMIT (600) on the long rel boundary,
# HS_BENCH_COUNT_LIMIT (10) on each counting run at scale; the report says
# which runs were stopped instead of their times.
set -eu
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
ROOT=${HS_BENCH_RESULTS:-results}
RUN=${HS_BENCH_RUN:-$BUILD/bench/run}
variant=default
[ "${HS_BENCH_FULL:-0}" = 1 ] && variant=full
[ "${HS_BENCH_SMOKE:-0}" = 1 ] && variant=smoke
t0=$(date +%s)

"$PYTHON" bench/sweep plan "$RUN" --variant "$variant" --build "$BUILD" --python "$PYTHON" \
  ${HS_BENCH_ONLY:+--only "$HS_BENCH_ONLY"} ${HS_BENCH_SKIP:+--skip "$HS_BENCH_SKIP"}
"$PYTHON" bench/sweep run "$RUN" --runner "${HS_BENCH_RUNNER:-sequential}"
# the boundary over bench/formulas.txt again with GNU parallel and as a
# Slurm array on a one-node cluster (as root, with Debian's Slurm packages;
# else its row says why not), for the time each runner takes
if [ "${HS_BENCH_RUNNERS:-1}" = 1 ] && grep -q '^bformulas-' "$RUN/free.txt"; then
  "$PYTHON" bench/sweep runners "$RUN" --group boundary-formulas \
    $([ "$variant" = smoke ] && echo --no-slurm)
fi
if [ "$variant" = smoke ]; then
  "$PYTHON" bench/sweep finish "$RUN" "$ROOT"
  echo "[$(( $(date +%s) - t0 ))s] done (smoke run: $ROOT/REPORT.md and its machine folder under $ROOT/machines, README.md left alone)"
else
  "$PYTHON" bench/sweep finish "$RUN" "$ROOT" --readme README.md
  echo "[$(( $(date +%s) - t0 ))s] done: $ROOT/REPORT.md, the machine's folder under $ROOT/machines, README.md results section"
fi
