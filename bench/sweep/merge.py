# SPDX-License-Identifier: MIT
"""The parts of a run joined into the machine's folder, whichever runner
made them: each output file from its tasks' parts in plan order (a CSV's
rows under one header), the stop lines of stopped commands, the plan as
commands.sh and the run's record as run.json. The folder is written beside
the published one and put in its place at the end, so a machine's earlier
folder is replaced only by a whole run, and no other machine's folder is
touched. And the comparison of two runs' CSVs in every column that
measures no time."""
import csv
import json
import os
import shutil

from .run import load
from .task import join_csv, write_atomic

# files other targets write into a machine's folder (make bench-web)
KEPT = ["web-wasm.csv", "web-wasm.md"]
# the columns that measure time (or when): the rest must agree across runs
TIMING = {"seconds_median", "seconds_min", "seconds_max", "positions_per_s", "date",
          "wall_s"}


def measures_time(column):
    """Whether a CSV column measures time: the harness's own columns, the
    phases, and a table's per-mode timings such as pe_seconds_2^16."""
    return column in TIMING or column.startswith("phase_") or "_seconds" in column


# hardsoft's peak_bytes is its own accounting of its buffers (the same in
# every run); a peer's is what its allocator and tracemalloc saw, which
# moves from run to run, so on peer rows it is measured like a time
HS_ISAS = {"scalar", "avx2", "avx512", "wasm128"}


class MergeError(Exception):
    pass


def statuses(run, tasks):
    """{task id: its status}; MergeError naming the tasks missing or failed."""
    got, bad = {}, []
    for t in tasks:
        path = os.path.join(run, "status", t.id + ".json")
        try:
            with open(path, encoding="utf-8") as f:
                got[t.id] = json.load(f)
        except (OSError, ValueError):
            bad.append(f"{t.id} (not run)")
            continue
        if not got[t.id].get("ok"):
            bad.append(f"{t.id} ({got[t.id].get('error', 'failed')})")
    if bad:
        raise MergeError(f"{run}: {len(bad)} task(s) did not finish: " + ", ".join(bad[:6])
                         + (" ..." if len(bad) > 6 else ""))
    machines = sorted({s["machine"] for s in got.values()})
    if len(machines) != 1:
        raise MergeError(f"{run}: the tasks ran on {len(machines)} machines ("
                         + ", ".join(machines) + "): one folder holds one machine's results")
    return got


def gather(run, tasks, stage):
    """Every output of the plan's tasks into the folder stage."""
    outputs = []
    for t in tasks:
        if t.output not in outputs:
            outputs.append(t.output)
    for out in outputs:
        mine = [t for t in tasks if t.output == out]
        parts = [t.part(run) for t in mine if os.path.exists(t.part(run))]
        if mine[0].kind == "csv":
            text = join_csv(parts) if parts else None
            if text is not None:
                write_atomic(os.path.join(stage, out), text)
        elif mine[0].kind == "file" and parts:
            shutil.copyfile(parts[-1], os.path.join(stage, out))
        for p in [p for p in parts if os.path.isdir(p)]:
            for name in sorted(os.listdir(p)):
                shutil.copyfile(os.path.join(p, name), os.path.join(stage, name))
    stops = {}
    for t in tasks:
        if t.stopped and os.path.exists(t.part(run) + ".stopped"):
            with open(t.part(run) + ".stopped", encoding="utf-8") as f:
                stops.setdefault(t.stopped, []).append(f.read())
    for name, texts in stops.items():
        write_atomic(os.path.join(stage, name), "".join(texts))


def record(doc, tasks, got):
    """run.json: the variant, and per task its runner, host, start, end."""
    starts = [s["start"] for s in got.values()]
    ends = [s["end"] for s in got.values()]
    return {"variant": doc["variant"], "runners": sorted({s["runner"] for s in got.values()}),
            "hosts": sorted({s["host"] for s in got.values()}), "wall_s": max(ends) - min(starts),
            "tasks": [{k: got[t.id].get(k) for k in ("id", "group", "timing", "runner", "host",
                                                    "start", "end", "wall_s", "stopped",
                                                    "skipped")} for t in tasks]}


def merge(run, root):
    """Joins RUN's parts into ROOT/machines/ID (ID of the machine the tasks
    ran on), replacing that folder only; returns its path."""
    doc, tasks = load(run)
    got = statuses(run, tasks)
    mid = next(iter(got.values()))["machine"]
    dest = os.path.join(root, "machines", mid)
    stage = os.path.join(root, "machines", f".{mid}.new")
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    gather(run, tasks, stage)
    shutil.copyfile(os.path.join(run, "commands.sh"), os.path.join(stage, "commands.sh"))
    if os.path.exists(os.path.join(run, "runners.csv")):  # bench/sweep runners
        shutil.copyfile(os.path.join(run, "runners.csv"), os.path.join(stage, "runners.csv"))
    write_atomic(os.path.join(stage, "run.json"),
                 json.dumps(record(doc, tasks, got), indent=1) + "\n")
    for f in KEPT:
        if os.path.exists(os.path.join(dest, f)):
            shutil.copyfile(os.path.join(dest, f), os.path.join(stage, f))
    old = os.path.join(root, "machines", f".{mid}.old")
    shutil.rmtree(old, ignore_errors=True)
    if os.path.isdir(dest):
        os.replace(dest, old)
    os.replace(stage, dest)
    shutil.rmtree(old, ignore_errors=True)
    return dest


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def compare_csv(a, b):
    """The first difference of two CSVs in the columns that measure no
    time, or None."""
    ra, rb = rows(a), rows(b)
    if not ra or not rb or ra[0] != rb[0]:
        return "the headers differ"
    keep = [i for i, c in enumerate(ra[0]) if not measures_time(c)]
    isa = ra[0].index("isa") if "isa" in ra[0] else None
    peak = ra[0].index("peak_bytes") if "peak_bytes" in ra[0] else None
    if len(ra) != len(rb):
        return f"{len(ra) - 1} rows against {len(rb) - 1}"
    for k, (x, y) in enumerate(zip(ra[1:], rb[1:]), 2):
        peer = isa is not None and x[isa] not in HS_ISAS
        for i in keep:
            if x[i] != y[i] and not (peer and i == peak):
                return f"line {k}, column {ra[0][i]}: '{x[i]}' against '{y[i]}'"
    return None


def compare(a, b):
    """[one line per difference] between the CSVs of two machine folders,
    row for row in every column that measures no time."""
    names = sorted({f for d in (a, b) for f in os.listdir(d) if f.endswith(".csv")}
                   - set(KEPT) - {"runners.csv"})
    out = []
    for n in names:
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        if not (os.path.exists(pa) and os.path.exists(pb)):
            out.append(f"{n}: only in {a if os.path.exists(pa) else b}")
            continue
        diff = compare_csv(pa, pb)
        if diff:
            out.append(f"{n}: {diff}")
    return out
