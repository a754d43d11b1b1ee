# SPDX-License-Identifier: MIT
"""bench/report's tasks section: the table examples/tasks/table.py writes
(tasks.md) quoted from its first table row on, or said to be missing."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "..", "bench", "report")
TASKS_MD = """# Tasks

Measured on a machine, at a commit.

| task | class | layers |
|---|---|---|
| tomita-1 | star-free | 3 |
| parity | neither (witness: a^k, period 2) | — |
"""


def report(d):
    r = subprocess.run([sys.executable, REPORT, str(d)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return (d / "REPORT.md").read_text(encoding="utf-8")


def test_tasks_table_quoted(tmp_path):
    (tmp_path / "tasks.md").write_text(TASKS_MD, encoding="utf-8")
    text = report(tmp_path)
    sec = text.split("## The literature's tasks", 1)[1].split("\n## ", 1)[0]
    assert "| tomita-1 | star-free | 3 |" in sec
    assert "| parity | neither (witness: a^k, period 2) | — |" in sec
    assert "# Tasks" not in sec   # the file's own heading is the section's


def test_tasks_missing_said(tmp_path):
    (tmp_path / "info.txt").write_text("machine: x\n", encoding="utf-8")
    text = report(tmp_path)
    sec = text.split("## The literature's tasks", 1)[1].split("\n## ", 1)[0]
    assert "tasks.md:" in sec
