# SPDX-License-Identifier: MIT
"""One group of a run's tasks timed under each runner: the sequential run
that made it (its tasks' start and end), GNU parallel on this machine's
cores, and a Slurm job array on a one-node cluster started here for it
(bench/slurm/local-cluster.sh; skipped with its reason where that cannot
start). Each runner's joined output is compared, row for row in every
column that measures no time, with the sequential one's. Written to
RUN/runners.csv, which the merge puts into the machine's folder."""
import csv
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import time

from . import run
from .merge import compare_csv
from .task import join_csv, write_atomic

HEADER = ["runner", "slots", "tasks", "wall_s", "rows_equal", "note"]


def group_span(rundir, group):
    """(tasks, wall seconds from the first start to the last end) of a
    group's statuses in a run folder."""
    st = []
    for path in glob.glob(os.path.join(rundir, "status", "*.json")):
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        if s.get("group") == group and s.get("ok"):
            st.append(s)
    if not st:
        return 0, float("nan")
    return len(st), max(s["end"] for s in st) - min(s["start"] for s in st)


def joined(rundir, group):
    """The group's output joined from a run's parts (plan order)."""
    _, tasks = run.load(rundir)
    parts = [t.part(rundir) for t in tasks if t.group == group and os.path.exists(t.part(rundir))]
    return join_csv(parts) if parts else None


def same_rows(a, b, tmp):
    """'yes', or the first difference of two joined CSV texts."""
    if a is None or b is None:
        return "no output"
    pa, pb = os.path.join(tmp, "a.csv"), os.path.join(tmp, "b.csv")
    for p, text in ((pa, a), (pb, b)):
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
    return compare_csv(pa, pb) or "yes"


def replan(rundir, group, suffix):
    """A run folder beside rundir with the same variant, only group."""
    doc, _ = run.load(rundir)
    other = rundir.rstrip("/") + suffix
    shutil.rmtree(other, ignore_errors=True)
    run.plan(other, doc["variant"], doc["build"], doc["python"], only={group})
    return other


def with_parallel(rundir, group, jobs, base):
    if not shutil.which("parallel"):
        return ["parallel", "", "", "", "", "not run: GNU parallel is not installed"]
    other = replan(rundir, group, "-parallel")
    t0 = time.time()
    rc = run.parallel(other, jobs)
    wall = time.time() - t0
    n = group_span(other, group)[0]
    return ["parallel", jobs, n, f"{wall:.2f}",
            same_rows(base, joined(other, group), other) if rc == 0 else "failed",
            "GNU parallel, one task a slot"]


def with_slurm(rundir, group, base):
    """The group as a Slurm array on a one-node cluster started for it."""
    other = replan(rundir, group, "-slurm")
    cluster = other + "-cluster"
    start = subprocess.run(["sh", "bench/slurm/local-cluster.sh", "start", cluster],
                           capture_output=True, text=True)
    if start.returncode:
        why = (start.stderr.strip().splitlines() or ["it did not start"])[-1]
        return ["slurm", "", "", "", "", "not run: " + why.replace(",", ";")]
    env = dict(os.environ, SLURM_CONF=os.path.join(cluster, "slurm.conf"))
    doc, _ = run.load(rundir)
    try:
        t0 = time.time()
        p = subprocess.run(["sh", "bench/slurm/submit.sh", "--variant", doc["variant"],
                            "--only", group, "--run", other, "--no-merge", "--wait"],
                           env=env, capture_output=True, text=True)
        wall = time.time() - t0
    finally:
        subprocess.run(["sh", "bench/slurm/local-cluster.sh", "stop", cluster])
    slots = os.cpu_count() or 1
    n = group_span(other, group)[0]
    return ["slurm", slots, n, f"{wall:.2f}",
            same_rows(base, joined(other, group), other) if p.returncode == 0 else "failed",
            f"job array on a one-node cluster ({slots} CPUs), from sbatch to the last task"]


def compare_runners(rundir, group, jobs, slurm=True):
    """Writes RUN/runners.csv for group; returns its rows."""
    n, wall = group_span(rundir, group)
    if not n:
        raise SystemExit(f"sweep: {rundir}: no finished task of group '{group}'")
    base = joined(rundir, group)
    rows = [["sequential", 1, n, f"{wall:.2f}", "yes", "make bench's own run"]]
    rows.append(with_parallel(rundir, group, jobs, base))
    rows.append(with_slurm(rundir, group, base) if slurm else
                ["slurm", "", "", "", "", "not run: --no-slurm"])
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["group"] + HEADER)
    w.writerows([group] + r for r in rows)
    write_atomic(os.path.join(rundir, "runners.csv"), out.getvalue())
    for r in rows:
        print(f"sweep: {group}: {r[0]}: " + (f"{r[3]} s, {r[2]} tasks, rows equal: {r[4]}"
                                            if r[3] else r[5]), file=sys.stderr)
    return rows
