# SPDX-License-Identifier: MIT
"""A run of the sweep: its folder RUN holds the plan (plan.json: every task
and the build it runs), the lists the runners read (free.txt: the tasks
that measure no time; timing.txt: the others), commands.sh (the plan as
shell), and, as tasks finish, parts/ (their outputs), status/ (one JSON a
task: where, when, how long, by which runner) and logs/ (their standard
error). Any runner executes a task the same way: `sweep task RUN ID`."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from . import suite
from .task import Task, fill, join_csv, node_values, run_step, shell_lines, write_atomic


def plan(run, variant, build, python, only=None, skip=None):
    """Writes RUN/plan.json, free.txt, timing.txt and commands.sh; returns
    the tasks. only / skip: task groups to keep / leave out."""
    tasks = [t for t in suite.tasks(variant) if (not only or t.group in only)
             and not (skip and t.group in skip)]
    if not tasks:
        raise SystemExit("sweep: no task left to plan")
    for sub in ("parts", "status", "logs"):
        shutil.rmtree(os.path.join(run, sub), ignore_errors=True)
        os.makedirs(os.path.join(run, sub))
    doc = {"variant": variant, "repo": os.getcwd(), "build": build, "python": python,
           "env": suite.env(variant), "tasks": [t.to_json() for t in tasks]}
    write_atomic(os.path.join(run, "plan.json"), json.dumps(doc, indent=1) + "\n")
    for name, timing in (("free.txt", False), ("timing.txt", True)):
        write_atomic(os.path.join(run, name),
                     "".join(t.id + "\n" for t in tasks if t.timing == timing))
    write_atomic(os.path.join(run, "commands.sh"), commands(doc, tasks))
    return tasks


def commands(doc, tasks):
    """The plan as a shell script: every command of every task, valid
    shell, with the variables they use set first."""
    env = " ".join(f"{k}={v}" for k, v in doc["env"].items())
    head = ["#!/bin/sh", "# The commands of the sweep (bench/sweep plan), task by task. Each",
            "# task writes its part; `bench/sweep merge` joins the parts into the",
            "# machine's folder. $isas, $best, $wide: what `hardsoft info` says of the",
            "# node a task runs on (every ISA, the chosen one, the wide ones).",
            "set -eu", f"BUILD={doc['build']}", f"PYTHON={doc['python']}", 'HS=$BUILD/hardsoft',
            "PARTS=${PARTS:-parts}", 'TMP=$(mktemp -d)', 'mkdir -p "$PARTS"',
            f"export {env}",
            "isas=$(\"$HS\" info | sed -n 's/^supported: //p' | tr ' ' ',')",
            "best=$(\"$HS\" info | sed -n 's/^chosen: \\([a-z0-9]*\\).*/\\1/p')",
            "wide=$(echo \"$isas\" | tr ',' '\\n' | grep '^avx' | paste -sd, -)", ""]
    return "\n".join(head + [l for t in tasks for l in shell_lines(t) + [""]])


def load(run):
    with open(os.path.join(run, "plan.json"), encoding="utf-8") as f:
        doc = json.load(f)
    return doc, [Task.from_json(t) for t in doc["tasks"]]


def assemble(task, part, outs, walls):
    """The task's part from its collected outputs."""
    if task.kind == "csv":
        text = join_csv([o for o in outs if os.path.exists(o)], walls, task.wall)
        if text is not None:
            write_atomic(part, text)
    elif task.kind == "file" and outs and os.path.exists(outs[-1]):
        shutil.move(outs[-1], part + ".tmp")
        os.replace(part + ".tmp", part)
    elif task.kind == "dir" and os.path.isdir(part + ".tmp"):
        shutil.rmtree(part, ignore_errors=True)
        os.replace(part + ".tmp", part)


def execute(doc, task, values, tmp, log):
    """Runs the task's commands: (collected outputs, their seconds, the
    stop line of a stopped command or None)."""
    part = task.part(doc["run"])
    ext = os.path.splitext(task.output)[1] or ".out"
    env = dict(os.environ, **doc["env"])
    outs, walls = [], []
    for k, s in enumerate(task.steps):
        vals = dict(values, TMP=tmp, OUT=os.path.join(tmp, f"step{k}{ext}"),
                    PART=part + ".tmp" if task.kind == "dir" else part)
        rc, secs, stopped = run_step(s, vals, log, dict(env, **{
            k_: fill(v, vals) for k_, v in s.env.items()}))
        if stopped:
            return outs, walls, s.stop
        if rc not in s.ok:
            raise RuntimeError(f"exit status {rc}: {' '.join(fill(a, vals) for a in s.argv)}")
        if s.collect:
            outs.append(vals["OUT"])
            walls.append(secs)
    return outs, walls, None


def run_task(run, task_id, runner):
    """Runs one task of the plan; its part, stop line and status go into
    RUN. Returns 0, or 1 after printing why it failed."""
    doc, tasks = load(run)
    doc["run"] = run
    task = next((t for t in tasks if t.id == task_id), None)
    if task is None:
        print(f"sweep: {run}: no task '{task_id}' in plan.json", file=sys.stderr)
        return 1
    values = node_values(doc)
    status = {"id": task.id, "group": task.group, "timing": task.timing, "runner": runner,
              "host": socket.gethostname(), "machine": values["MACHINE"], "start": time.time()}
    part = task.part(run)
    for old in (part, part + ".stopped"):
        shutil.rmtree(old, ignore_errors=True) if os.path.isdir(old) else (
            os.path.exists(old) and os.remove(old))
    tmp = tempfile.mkdtemp(prefix="hs-task-")
    try:
        if task.needs == "wide" and not values["WIDE"]:
            status.update(ok=True, skipped="no wide ISA on this machine")
        else:
            with open(os.path.join(run, "logs", task.id + ".log"), "w",
                      encoding="utf-8") as log:
                outs, walls, stop = execute(doc, task, values, tmp, log)
            assemble(task, part, outs, walls)
            if stop:
                write_atomic(part + ".stopped", stop + "\n")
            status.update(ok=True, stopped=stop)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        status.update(ok=False, error=str(e))
        print(f"sweep: task {task.id} failed: {e} (log: {run}/logs/{task.id}.log)",
              file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    status.update(end=time.time())
    status["wall_s"] = status["end"] - status["start"]
    write_atomic(os.path.join(run, "status", task.id + ".json"), json.dumps(status) + "\n")
    return 0 if status["ok"] else 1


def sequential(run, ids=None):
    """Every task (or those of ids) one after another, in plan order."""
    _, tasks = load(run)
    todo = [t for t in tasks if ids is None or t.id in ids]
    t0 = time.time()
    for k, t in enumerate(todo, 1):
        print(f"[{time.time() - t0:.0f}s] {k}/{len(todo)} {t.id}"
              f"{' (timing)' if t.timing else ''}", flush=True)
        if run_task(run, t.id, "sequential"):
            return 1
    return 0


def parallel(run, jobs):
    """The tasks that measure no time with GNU parallel on `jobs` slots,
    then the timing ones one after another, alone on the machine."""
    free = os.path.join(run, "free.txt")
    if not shutil.which("parallel"):
        raise SystemExit("sweep: GNU parallel is not installed (apt-get install parallel)")
    if os.path.getsize(free):
        print(f"sweep: the tasks of {free} with GNU parallel, {jobs} at once", flush=True)
        p = subprocess.run(["parallel", "--will-cite", "--halt", "now,fail=1", "-j", str(jobs),
                            sys.executable, os.path.dirname(os.path.dirname(
                                os.path.abspath(__file__))) + "/sweep", "task", run, "{}",
                            "--runner", "parallel", "::::", free])
        if p.returncode:
            return 1
    with open(os.path.join(run, "timing.txt"), encoding="utf-8") as f:
        timing = [l.strip() for l in f if l.strip()]
    return sequential(run, set(timing)) if timing else 0
