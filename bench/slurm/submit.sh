#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark suite as Slurm jobs: plans it (bench/sweep plan, the same
# task list every runner reads), then submits, from the repository's top
# folder,
#   - the tasks that measure no time as one job array, one CPU a task;
#   - the timing tasks as another array with --exclusive, so each owns its
#     node while it runs;
#   - a merge job depending on both (afterok) that joins the outputs into
#     RESULTS/machines/ID and writes the reports (bench/slurm/merge.sh).
#
#   sh bench/slurm/submit.sh [OPTIONS] [-- SBATCH_OPTIONS...]
#
#   --variant V    default (make bench), full, or smoke
#   --run DIR      the run's folder (default $BUILD/slurm/run-DATE): the
#                  plan, every task's output, status and log, the jobs'
#                  output (DIR/logs/slurm-*.out); on a filesystem every
#                  node sees, as the checkout and its build must be
#   --results DIR  where the merge job writes machines/ID (default results)
#   --readme       the merge job also updates README.md's results
#   --only G,..    task groups to keep; --skip G,.. to leave out
#   --no-merge     submit the arrays only (bench/sweep merge RUN RESULTS later)
#   --wait         wait for the jobs and fail if any did
# Environment: HS_SLURM_PARTITION (sbatch --partition), HS_SLURM_TIME (each
# task's time limit, default 1:00:00), HS_SLURM_MERGE_TIME (default
# 0:30:00), BUILD (default build), PYTHON (default /usr/bin/python3).
# SBATCH_OPTIONS go to every sbatch (an account, a constraint that keeps
# the timing tasks on one kind of node: one folder holds one machine).
set -eu
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
export PYTHON
variant=default run= results=results readme= only= skip= merge=1 wait=0
while [ $# -gt 0 ]; do
  case $1 in
    --variant) variant=$2; shift 2 ;;
    --run) run=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --readme) readme=README.md; shift ;;
    --only) only=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    --no-merge) merge=0; shift ;;
    --wait) wait=1; shift ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown option '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
done
command -v sbatch >/dev/null || { echo "submit.sh: no sbatch: not a Slurm login node" >&2; exit 1; }
repo=$(pwd)
[ -n "$run" ] || run=$BUILD/slurm/run-$(date +%Y%m%d-%H%M%S)
case $run in /*) ;; *) run=$repo/$run ;; esac
case $results in /*) ;; *) results=$repo/$results ;; esac
"$PYTHON" bench/sweep plan "$run" --variant "$variant" --build "$BUILD" --python "$PYTHON" \
  ${only:+--only "$only"} ${skip:+--skip "$skip"}

# sbatch's options for every job: the repository as working directory,
# output beside the run, the partition and time limit asked for
set -- --parsable --chdir="$repo" --output="$run/logs/slurm-%A_%a.out" \
  --time="${HS_SLURM_TIME:-1:00:00}" ${HS_SLURM_PARTITION:+--partition="$HS_SLURM_PARTITION"} "$@"
jobs=
submit_array() { # LIST, then sbatch options of its own
  list=$1; shift
  k=$(grep -c . "$run/$list" || true)
  [ "$k" -gt 0 ] || return 0
  j=$(sbatch "$@" --array=0-$((k - 1)) bench/slurm/task.sh "$run" "$list")
  echo "submit.sh: $k tasks of $list as job array $j" >&2
  jobs=${jobs:+$jobs:}$j
}
submit_array free.txt "$@" --job-name=hardsoft-free --ntasks=1 --cpus-per-task=1
submit_array timing.txt "$@" --job-name=hardsoft-timing --exclusive
if [ "$merge" = 1 ]; then
  m=$(sbatch "$@" --job-name=hardsoft-merge --time="${HS_SLURM_MERGE_TIME:-0:30:00}" \
    --dependency=afterok:"$jobs" --kill-on-invalid-dep=yes --output="$run/logs/slurm-merge-%j.out" \
    bench/slurm/merge.sh "$run" "$results" $readme)
  echo "submit.sh: merge job $m (after $jobs) writes $results/machines/ID and $results/REPORT.md" >&2
  jobs=$jobs:$m
fi
echo "submit.sh: run folder $run (plan, parts, status, logs)" >&2
[ "$wait" = 1 ] || { echo "$jobs"; exit 0; }

# wait until none of the jobs is queued or running, then ask each job's
# final state (scontrol remembers finished jobs for MinJobAge, 300 s)
ids=$(echo "$jobs" | tr ':' ' ')
while [ -n "$(squeue -h -j "$(echo "$ids" | tr ' ' ',')" 2>/dev/null)" ]; do sleep 1; done
bad=0
for j in $ids; do
  states=$(scontrol show job "$j" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u)
  for s in $states; do
    [ "$s" = COMPLETED ] || { echo "submit.sh: job $j: $s" >&2; bad=1; }
  done
done
echo "$jobs"
exit $bad
