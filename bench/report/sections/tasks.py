# SPDX-License-Identifier: MIT
"""The literature's tasks (tasks.md, written by examples/tasks/table.py)."""
from ..fmt import NM


def write(rep, plot):
    rep.w("## The literature's tasks", "")
    if rep.tasks_md is None:
        rep.w(f"tasks.md: {NM}.", "")
        return
    lines = rep.tasks_md.splitlines()
    # from the first table on; the file's own heading is this section's
    start = next((i for i, l in enumerate(lines) if l.startswith("|")), None)
    rep.w("From [tasks.md](tasks.md) (`examples/tasks/table.py`; every task's definition, "
          "source and reference function are in examples/tasks/):", "")
    rep.w(*(lines[start:] if start is not None else ["(tasks.md has no table)"]), "")
