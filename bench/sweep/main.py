# SPDX-License-Identifier: MIT
"""The command line of the sweep (run from the repository's top folder):

    sweep plan RUN [--variant default|full|smoke] [--only G,..] [--skip G,..]
    sweep run RUN [--runner sequential|parallel] [--jobs N]
    sweep task RUN ID [--runner NAME]       one task (what every runner calls)
    sweep merge RUN RESULTS                 the parts into RESULTS/machines/ID
    sweep finish RUN RESULTS [--readme F]   merge, then the machine's report,
                                            the report across machines, README
    sweep runners RUN --group G [--jobs N] [--no-slurm]
                                            the group's tasks again with GNU
                                            parallel and as a Slurm array on a
                                            one-node cluster: RUN/runners.csv
    sweep compare FOLDER_A FOLDER_B         CSVs equal in every column but time
    sweep list [--variant V]                the tasks, one a line
"""
import argparse
import os
import signal
import sys

from . import merge, run, runners, suite


def groups(text):
    return set(text.split(",")) if text else None


def finish(a):
    """merge, then bench/report on the folder and across the machines,
    and the README's quotation when asked."""
    from report.main import report, report_machines
    dest = merge.merge(a.run, a.results)
    doc, _ = run.load(a.run)
    print(f"sweep: merged {a.run} into {dest}", flush=True)
    rc = report(dest, doc["build"]) or report_machines(a.results, [], doc["build"])
    if rc == 0 and a.readme:
        import subprocess
        rc = subprocess.run([sys.executable, "bench/readme-results.py", a.results,
                             a.readme]).returncode
    return rc


def parser():
    ap = argparse.ArgumentParser(prog="sweep", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan", help="write RUN/plan.json, free.txt, timing.txt, commands.sh")
    p.add_argument("run")
    p.add_argument("--variant", choices=sorted(suite.VARIANTS), default="default")
    p.add_argument("--only", help="task groups to keep, comma-separated")
    p.add_argument("--skip", help="task groups to leave out, comma-separated")
    p.add_argument("--build", default=os.environ.get("BUILD", "build"))
    p.add_argument("--python", default=os.environ.get("PYTHON", "/usr/bin/python3"))
    p = sub.add_parser("run", help="run the plan's tasks")
    p.add_argument("run")
    p.add_argument("--runner", choices=["sequential", "parallel"], default="sequential")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p = sub.add_parser("task", help="run one task of the plan")
    p.add_argument("run")
    p.add_argument("id")
    p.add_argument("--runner", default=os.environ.get("HS_SWEEP_RUNNER", "by hand"))
    for name in ("merge", "finish"):
        p = sub.add_parser(name, help="join the parts into RESULTS/machines/ID"
                           + (", then the reports" if name == "finish" else ""))
        p.add_argument("run")
        p.add_argument("results")
        if name == "finish":
            p.add_argument("--readme", help="also quote the report in this README")
    p = sub.add_parser("runners", help="time one task group under each runner")
    p.add_argument("run")
    p.add_argument("--group", default="boundary-formulas")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--no-slurm", action="store_true", help="leave the Slurm array out")
    p = sub.add_parser("compare", help="two folders' CSVs in every column but time")
    p.add_argument("a")
    p.add_argument("b")
    p = sub.add_parser("list", help="the tasks of a variant")
    p.add_argument("--variant", choices=sorted(suite.VARIANTS), default="default")
    return ap


def terminated(signum, frame):
    """SIGTERM (a runner, Slurm or timeout stopping the sweep) unwinds like
    an interrupt, so the command a task is running is stopped with it."""
    raise SystemExit(128 + signum)


def main(argv):
    signal.signal(signal.SIGTERM, terminated)
    a = parser().parse_args(argv)
    try:
        if a.cmd == "plan":
            tasks = run.plan(a.run, a.variant, a.build, a.python, groups(a.only),
                             groups(a.skip))
            print(f"sweep: planned {len(tasks)} tasks ({sum(t.timing for t in tasks)} "
                  f"timing) into {a.run}")
            return 0
        if a.cmd == "run":
            return run.parallel(a.run, a.jobs) if a.runner == "parallel" \
                else run.sequential(a.run)
        if a.cmd == "task":
            return run.run_task(a.run, a.id, a.runner)
        if a.cmd == "merge":
            print(merge.merge(a.run, a.results))
            return 0
        if a.cmd == "finish":
            return finish(a)
        if a.cmd == "runners":
            runners.compare_runners(a.run, a.group, a.jobs, slurm=not a.no_slurm)
            return 0
        if a.cmd == "compare":
            diffs = merge.compare(a.a, a.b)
            for d in diffs:
                print(f"sweep: compare: {d}")
            return 1 if diffs else 0
        for t in suite.tasks(a.variant):
            print(f"{t.id}\t{t.group}\t{'timing' if t.timing else 'free'}\t{t.output}")
        return 0
    except (merge.MergeError, OSError) as e:
        print(f"sweep: error: {e}", file=sys.stderr)
        return 1
