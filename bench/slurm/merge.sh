#!/bin/sh
# SPDX-License-Identifier: MIT
# The job that runs after a sweep's arrays (bench/slurm/submit.sh makes it
# depend on them): joins the tasks' outputs into RESULTS/machines/ID and
# writes the machine's report and the report across machines; with README,
# also the README's quotation.
#
#   sbatch --dependency=afterok:FREE:TIMING bench/slurm/merge.sh RUN RESULTS [README]
set -eu
run=$1 results=$2
exec "${PYTHON:-/usr/bin/python3}" bench/sweep finish "$run" "$results" ${3:+--readme "$3"}
