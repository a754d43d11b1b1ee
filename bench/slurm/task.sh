#!/bin/sh
# SPDX-License-Identifier: MIT
# One task of a planned sweep as a Slurm array job (bench/slurm/submit.sh
# submits it): the task on line SLURM_ARRAY_TASK_ID + 1 of RUN/LIST, run as
# every runner runs a task (bench/sweep task). Its status, part and log go
# into RUN, which must be on a filesystem the nodes share.
#
#   sbatch --array=0-(K-1) bench/slurm/task.sh RUN free.txt|timing.txt
set -eu
run=$1 list=$2
k=$((${SLURM_ARRAY_TASK_ID:?not a Slurm array job} + 1))
id=$(sed -n "${k}p" "$run/$list")
[ -n "$id" ] || { echo "task.sh: $run/$list has no line $k" >&2; exit 1; }
exec "${PYTHON:-/usr/bin/python3}" bench/sweep task "$run" "$id" --runner slurm
