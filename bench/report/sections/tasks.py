# SPDX-License-Identifier: MIT
"""The literature's tasks (tasks.md, written by examples/tasks/table.py)."""
from ..fmt import quote_md


def write(rep, plot):
    rep.w("## The literature's tasks", "")
    quote_md(rep, "tasks.md", rep.tasks_md, "|",
             "From [tasks.md](tasks.md) (`examples/tasks/table.py`; every task's definition, "
             "source and reference function are in examples/tasks/):", "(tasks.md has no table)")
