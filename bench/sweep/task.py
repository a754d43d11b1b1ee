# SPDX-License-Identifier: MIT
"""A task of the sweep: one or a few commands whose output is one file of
the machine's folder (or a part of one), marked as timing or not, run
alone by whichever runner picks it, and shown as the shell lines it runs.

A command's arguments may hold placeholders, filled in where the task
runs (so that a cluster node uses its own instruction sets):

    {HS} {BUILD} {PYTHON}  the build's hardsoft, the build directory, Python
    {ISAS} {BEST} {WIDE}   what `hardsoft info` says of this node: every ISA
                           it runs, the one it chooses, the wide ones
                           (avx2, avx512), comma-separated
    {OUT}                  the file this command writes (a CSV, a picture)
    {PART}                 the task's own output (a file or a folder)
    {TMP}                  a scratch folder of the task's, removed after it
"""
import os
import re
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass, field

SHELL_VARS = {"HS": '"$HS"', "BUILD": '"$BUILD"', "PYTHON": '"$PYTHON"',
              "ISAS": '"$isas"', "BEST": '"$best"', "WIDE": '"$wide"', "TMP": '"$TMP"'}
PLACEHOLDER = re.compile(r"\{([A-Z]+)\}")


@dataclass
class Step:
    """One command. stdout: its standard output is what it writes (else it
    writes {OUT}); collect: its output joins the task's (a helper, such as
    compiling a model, writes elsewhere); limit: seconds after which the
    suite stops it, stop: the line saying so; ok: exit codes that pass."""
    argv: list
    stdout: bool = False
    collect: bool = True
    limit: float = None
    stop: str = ""
    ok: tuple = (0,)
    env: dict = field(default_factory=dict)


@dataclass
class Task:
    """kind: csv (the collected outputs' rows, one header, into output),
    file (one file, output), dir (a folder whose files go into the
    machine's folder). stopped: the file a stopped step's line goes to.
    wall: add the columns wall_s, limit_s, max_n (the step's own time).
    needs: "wide" when the task runs only where an AVX ISA runs."""
    id: str
    group: str
    output: str
    timing: bool
    steps: list
    kind: str = "csv"
    stopped: str = None
    wall: dict = None
    needs: str = None

    def part(self, run):
        ext = "" if self.kind == "dir" else os.path.splitext(self.output)[1]
        return os.path.join(run, "parts", self.id + ext)

    def to_json(self):
        d = dict(self.__dict__)
        d["steps"] = [dict(s.__dict__, ok=list(s.ok)) for s in self.steps]
        return d

    @staticmethod
    def from_json(d):
        steps = [Step(**dict(s, ok=tuple(s["ok"]))) for s in d["steps"]]
        return Task(**dict(d, steps=steps))


# ---------------------------------------------------------------- shell

def shell_word(arg, values):
    """One argument as shell: placeholders as "$VAR" (values names them),
    everything else quoted."""
    parts, pos, out = list(PLACEHOLDER.finditer(arg)), 0, []
    if not parts:
        return shlex.quote(arg)
    for m in parts:
        if m.start() > pos:
            out.append(shlex.quote(arg[pos:m.start()]))
        out.append(values.get(m.group(1), m.group(0)))
        pos = m.end()
    if pos < len(arg):
        out.append(shlex.quote(arg[pos:]))
    return "".join(out)


def shell_lines(task):
    """The task as shell lines: what each of its commands runs ($PARTS is
    the run's folder of task outputs, $TMP the task's scratch folder)."""
    lines = [f"# {task.id} ({'timing' if task.timing else 'no timing'}) -> {task.output}"]
    for k, s in enumerate(task.steps):
        out = f'"$PARTS/{task.id}.{k}{os.path.splitext(task.output)[1] or ".out"}"'
        part = f'"$PARTS/{task.id}{"" if task.kind == "dir" else os.path.splitext(task.output)[1]}"'
        values = dict(SHELL_VARS, OUT=out, PART=part)
        words = [f"{k}={shell_word(v, values)}" for k, v in s.env.items()]
        if s.limit:
            words.append(f"timeout {s.limit:g}")
        words += [shell_word(a, values) for a in s.argv]
        line = " ".join(words) + (f" > {out}" if s.stdout else "")
        if s.ok != (0,):
            line += " || [ $? = " + " -o $? = ".join(str(c) for c in s.ok if c) + " ]"
        lines.append(line)
    return lines


# ---------------------------------------------------------------- running

def node_values(plan):
    """{placeholder: value} of the node running a task: the build's
    programs and what `hardsoft info` says here."""
    hs = os.path.join(plan["build"], "hardsoft")
    info = subprocess.run([hs, "info"], capture_output=True, text=True, check=True).stdout
    isas = re.search(r"^supported: (.*)$", info, re.M).group(1).split()
    best = re.search(r"^chosen: ([a-z0-9]+)", info, re.M).group(1)
    mid = re.search(r"^machine id: (.*)$", info, re.M)
    return {"HS": hs, "BUILD": plan["build"], "PYTHON": plan["python"],
            "ISAS": ",".join(isas), "BEST": best,
            "WIDE": ",".join(i for i in isas if i.startswith("avx")),
            "MACHINE": mid.group(1).strip() if mid else "unknown"}


def fill(arg, values):
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), arg)


def run_step(step, values, log, env):
    """Runs one command; (exit status, seconds, stopped by its limit)."""
    argv = [fill(a, values) for a in step.argv]
    out = open(values["OUT"], "w", encoding="utf-8") if step.stdout else subprocess.DEVNULL
    t0 = time.monotonic()
    # its own process group, so that a limit stops its children too
    p = subprocess.Popen(argv, stdout=out, stderr=log, env=env, start_new_session=True)
    try:
        rc = p.wait(timeout=step.limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        rc = None
    except BaseException:  # interrupted or terminated: the command goes too
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    finally:
        if step.stdout:
            out.close()
    return rc, time.monotonic() - t0, rc is None


def join_csv(paths, walls=None, wall=None):
    """The rows of several CSV files under the first one's header (every
    header the same), with wall columns added when asked."""
    header, rows = None, []
    for k, path in enumerate(paths):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if not lines:
            continue
        if header is None:
            header = lines[0]
        elif lines[0] != header:
            raise RuntimeError(f"{path}: its header differs from {paths[0]}'s")
        extra = f",{walls[k]:.3f},{wall['limit']:g},{wall['max_n']}" if wall else ""
        rows += [l + extra for l in lines[1:] if l]
    if header is None:
        return None
    return "\n".join([header + (",wall_s,limit_s,max_n" if wall else "")] + rows) + "\n"


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
