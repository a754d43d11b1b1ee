# SPDX-License-Identifier: MIT
"""The benchmark suite as independent tasks, and the runners that run
them: `python3 bench/sweep --help`. Modules: suite (the one description of
the tasks), task (a task, its shell lines, running its commands), run (a
run's folder, one task, the sequential and GNU parallel runners), merge
(the parts into the machine's folder; two runs compared). The Slurm
runner is bench/slurm/submit.sh."""
