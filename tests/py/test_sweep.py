# SPDX-License-Identifier: MIT
"""bench/sweep: the suite as a list of tasks (unique IDs, timing marked,
its commands valid shell that say what runs), running a task (rows joined
under one header, a limit that stops a command and says so, exit codes,
no partial output), the merge (plan order whatever order tasks finished
in, one machine a folder, a missing task named, only the machine's own
folder replaced) and the comparison of two runs (time columns ignored,
anything else reported). Tasks here are small `sh` commands; the machine
ID comes from build/hardsoft info."""
import json
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from sweep import merge, run, runners, suite  # noqa: E402
from sweep.task import Step, Task, fill, shell_lines  # noqa: E402

BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
HS = os.path.join(BUILD, "hardsoft")
needs_hs = pytest.mark.skipif(not os.access(HS, os.X_OK), reason="build/hardsoft is not built")


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(ROOT)  # the suite's paths are the repository's


def test_the_suite_as_tasks():
    for variant in suite.VARIANTS:
        tasks = suite.tasks(variant)
        ids = [t.id for t in tasks]
        assert len(ids) == len(set(ids)), variant
        by = {t.group: t.timing for t in tasks}
        # what measures time is marked so, what does not is free to share
        assert by["scaling"] and by["paths"] and by["threads"] and by["kernels"]
        assert not by["accuracy"] and not by["boundary"] and not by["simulate"]
        assert not by["programs"] and not by["boundary-formulas"]
        outs = {t.output for t in tasks}
        assert {"sweep-scaling.csv", "boundary.csv", "sweep-counting-scale.csv",
                "boundary-formulas.csv", "info.txt"} <= outs
    # the counting rows at n = 2^10 ... 2^20, pe and rel, one command a length
    scale = [t for t in suite.tasks("default") if t.group == "counting-scale"]
    assert len(scale) == 6 and all(len(t.steps) == 11 for t in scale)
    assert [s.argv[s.argv.index("--lengths") + 1] for s in scale[0].steps][-1] == "1048576"
    assert all(len(t.steps) == 2 for t in suite.tasks("smoke") if t.group == "counting-scale")


def test_commands_are_valid_shell_and_say_what_runs(tmp_path):
    run.plan(str(tmp_path), "smoke", "build", "/usr/bin/python3")
    script = tmp_path / "commands.sh"
    assert subprocess.run(["sh", "-n", str(script)]).returncode == 0
    # each command line, run through sh with echo in place of the program,
    # prints the task's own argv with the variables filled in
    values = {"HS": "build/hardsoft", "BUILD": "build", "PYTHON": "/usr/bin/python3",
              "ISAS": "scalar,avx2", "BEST": "avx2", "WIDE": "avx2", "TMP": "/t"}
    env = dict(os.environ, HS="build/hardsoft", BUILD="build", PYTHON="/usr/bin/python3",
               isas="scalar,avx2", best="avx2", wide="avx2", TMP="/t", PARTS="/p")
    _, tasks = run.load(str(tmp_path))
    checked = 0
    for t in [t for t in tasks if t.kind == "csv"]:
        for k, (s, line) in enumerate(zip(t.steps, shell_lines(t)[1:])):
            if s.ok != (0,):
                line = line[:line.rindex(" || ")]
            if s.stdout:
                line = line[:line.rindex(" > ")]
            line = line.replace("timeout ", "timeout_", 1) if s.limit else line
            got = subprocess.run(["sh", "-c", "printf '%s\\n' " + line], env=env,
                                 capture_output=True, text=True).stdout.splitlines()
            out = f"/p/{t.id}.{k}.csv"
            want = ([f"timeout_{s.limit:g}"] if s.limit else []) + \
                [fill(a, dict(values, OUT=out, PART=f"/p/{t.id}.csv")) for a in s.argv]
            assert got == want, (t.id, line)
            checked += 1
    assert checked > 10


def plan_of(tmp_path, tasks):
    """A run folder planned with these tasks (not the suite's)."""
    d = str(tmp_path / "run")
    for sub in ("parts", "status", "logs"):
        os.makedirs(os.path.join(d, sub))
    doc = {"variant": "test", "repo": ROOT, "build": BUILD, "python": sys.executable,
           "env": {}, "tasks": [t.to_json() for t in tasks]}
    with open(os.path.join(d, "plan.json"), "w") as f:
        json.dump(doc, f)
    with open(os.path.join(d, "commands.sh"), "w") as f:
        f.write(run.commands(doc, tasks))
    return d


def sh(text, **kw):
    return Step(["sh", "-c", text], **kw)


CSV = "printf 'a,b\\n%s,%s\\n' "


@needs_hs
def test_a_task_joins_its_rows_and_stops_at_its_limit(tmp_path):
    tasks = [Task("t1", "g", "x.csv", False, [sh(CSV + "1 2 > {OUT}"), sh(CSV + "3 4 > {OUT}"),
                                              sh("echo helper > {TMP}/h", collect=False)]),
             Task("t2", "g", "x.csv", True, [sh(CSV + "5 6 > {OUT}", limit=5, stop="first"),
                                             sh("sleep 30", limit=0.5, stop="n = 2: stopped"),
                                             sh(CSV + "7 8 > {OUT}")], stopped="x-stopped.txt"),
             Task("t3", "g", "y.csv", False, [sh("exit 1", ok=(0, 1)), sh(CSV + "9 9 > {OUT}")]),
             Task("t4", "h", "z.csv", False, [sh(CSV + "1 1 > {OUT}"), sh("exit 3")])]
    d = plan_of(tmp_path, tasks)
    t0 = time.monotonic()
    assert [run.run_task(d, t.id, "test") for t in tasks] == [0, 0, 0, 1]
    assert time.monotonic() - t0 < 20     # the sleep was stopped
    read = lambda p: open(os.path.join(d, "parts", p)).read()
    assert read("t1.csv") == "a,b\n1,2\n3,4\n"
    assert read("t2.csv") == "a,b\n5,6\n" and read("t2.csv.stopped") == "n = 2: stopped\n"
    assert read("t3.csv") == "a,b\n9,9\n"
    assert not os.path.exists(os.path.join(d, "parts", "t4.csv"))   # no partial output
    st = json.load(open(os.path.join(d, "status", "t4.json")))
    assert not st["ok"] and "exit status 3" in st["error"]
    st = json.load(open(os.path.join(d, "status", "t2.json")))
    assert st["ok"] and st["stopped"] == "n = 2: stopped" and st["runner"] == "test"


@needs_hs
def test_merge_in_plan_order_into_its_own_folder(tmp_path):
    tasks = [Task(f"t{k}", "g", "x.csv", k % 2 == 0, [sh(CSV + f"{k} {k} > {{OUT}}")])
             for k in range(4)] + [Task("f", "g", "info.txt", False, [sh("echo hi",
                                                                          stdout=True)],
                                        kind="file")]
    d = plan_of(tmp_path, tasks)
    for t in reversed(tasks):            # finished in the other order
        assert run.run_task(d, t.id, "test") == 0
    res = tmp_path / "results"
    other = res / "machines" / "other-machine"
    other.mkdir(parents=True)
    (other / "sweep-x.csv").write_text("keep\n")
    mid = json.load(open(os.path.join(d, "status", "t0.json")))["machine"]
    mine = res / "machines" / mid
    mine.mkdir()
    (mine / "stale.csv").write_text("old\n")
    (mine / "web-wasm.csv").write_text("wasm\n")
    dest = merge.merge(d, str(res))
    assert dest == str(mine)
    assert (mine / "x.csv").read_text() == "a,b\n0,0\n1,1\n2,2\n3,3\n"
    assert (mine / "info.txt").read_text() == "hi\n"
    assert not (mine / "stale.csv").exists()              # replaced, not added to
    assert (mine / "web-wasm.csv").read_text() == "wasm\n"  # another target's file kept
    assert (other / "sweep-x.csv").read_text() == "keep\n"  # another machine untouched
    assert sorted(os.listdir(res / "machines")) == sorted([mid, "other-machine"])
    rec = json.load(open(mine / "run.json"))
    assert [t["id"] for t in rec["tasks"]] == ["t0", "t1", "t2", "t3", "f"]
    assert (mine / "commands.sh").exists()


@needs_hs
def test_merge_refuses_an_unfinished_run_and_two_machines(tmp_path):
    tasks = [Task("a", "g", "x.csv", False, [sh(CSV + "1 1 > {OUT}")]),
             Task("b", "g", "x.csv", False, [sh("exit 2")])]
    d = plan_of(tmp_path, tasks)
    run.run_task(d, "a", "test")
    with pytest.raises(merge.MergeError, match=r"2 task\(s\)|1 task\(s\) did not finish: b"):
        merge.merge(d, str(tmp_path / "res"))
    run.run_task(d, "b", "test")
    with pytest.raises(merge.MergeError, match=r"b \(exit status 2"):
        merge.merge(d, str(tmp_path / "res"))
    st = os.path.join(d, "status", "b.json")
    doc = json.load(open(st))
    doc.update(ok=True, machine="intel-f6-m167-s1-avx512")
    json.dump(doc, open(st, "w"))
    with pytest.raises(merge.MergeError, match="the tasks ran on 2 machines"):
        merge.merge(d, str(tmp_path / "res"))
    assert not (tmp_path / "res" / "machines").exists() or \
        not any(not n.startswith(".") for n in os.listdir(tmp_path / "res" / "machines"))


HEAD = "formula,isa,n,seconds_median,peak_bytes,agree_fraction,date\n"


def test_compare_ignores_time_only(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "s.csv").write_text(HEAD + '"a S b",avx2,64,0.1,100,1,2026-01-01\n'
                             '"a S b",torch,64,0.5,999,1,2026-01-01\n')
    (b / "s.csv").write_text(HEAD + '"a S b",avx2,64,0.3,100,1,2026-02-02\n'
                             '"a S b",torch,64,0.7,555,1,2026-02-02\n')
    assert merge.compare(str(a), str(b)) == []         # times, dates, a peer's memory
    (b / "s.csv").write_text(HEAD + '"a S b",avx2,64,0.3,101,1,2026-02-02\n'
                             '"a S b",torch,64,0.7,555,0.5,2026-02-02\n')
    assert merge.compare(str(a), str(b)) == [
        "s.csv: line 2, column peak_bytes: '100' against '101'"]
    (b / "s.csv").write_text(HEAD)
    assert merge.compare(str(a), str(b)) == ["s.csv: 2 rows against 0"]
    (b / "t.csv").write_text(HEAD)
    assert f"t.csv: only in {b}" in merge.compare(str(a), str(b))



def test_compare_ignores_a_tables_per_mode_timings(tmp_path):
    # the tasks table times each mode at one length (pe_seconds_2^16): two
    # runners disagree there and must still compare equal; its agreement
    # columns must not
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    head = "task,pe_agree_2^16,pe_seconds_2^16,rel_seconds_2^16\n"
    (a / "tasks.csv").write_text(head + "x,1.000000,0.036,0.02\n")
    (b / "tasks.csv").write_text(head + "x,1.000000,0.050,0.03\n")
    assert merge.compare(str(a), str(b)) == []
    (b / "tasks.csv").write_text(head + "x,0.999000,0.050,0.03\n")
    assert merge.compare(str(a), str(b)) == [
        "tasks.csv: line 2, column pe_agree_2^16: '1.000000' against '0.999000'"]

@needs_hs
def test_runners_time_a_group_with_the_same_rows(tmp_path):
    """A group run again by GNU parallel gives the sequential rows; its
    time goes into runners.csv beside the sequential run's."""
    d = str(tmp_path / "run")
    run.plan(d, "smoke", BUILD, sys.executable, only={"simulate"})
    assert run.sequential(d) == 0
    rows = runners.compare_runners(d, "simulate", 2, slurm=False)
    assert [r[0] for r in rows] == ["sequential", "parallel", "slurm"]
    assert rows[0][2] == rows[1][2] == 8 and rows[1][4] == "yes"
    assert rows[2][5] == "not run: --no-slurm"
    text = open(os.path.join(d, "runners.csv")).read().splitlines()
    assert text[0] == "group,runner,slots,tasks,wall_s,rows_equal,note"
    assert text[2].startswith("simulate,parallel,2,8,")
    # a runner whose rows differ says where
    part = os.path.join(d + "-parallel", "parts", "simulate-compiled-Y-a.csv")
    with open(part) as f:
        lines = f.read().splitlines()
    lines[1] = lines[1].replace(",f32,", ",f64,", 1)
    with open(part, "w") as f:
        f.write("\n".join(lines) + "\n")
    assert runners.same_rows(runners.joined(d, "simulate"),
                             runners.joined(d + "-parallel", "simulate"),
                             str(tmp_path)).startswith("line ")
