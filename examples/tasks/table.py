#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tasks table: for every task of examples/tasks/ its class, the
model's size, its agreement with the task's reference function
(reference.py) at n = 2^10 ... 2^20 in modes pe and rel, the largest
exact n when queries, keys and values are stored in f16 and bf16, and
the time of a forward pass at n = 2^16; written as OUTDIR/tasks.csv and
OUTDIR/tasks.md.

    python3 examples/tasks/table.py OUTDIR [--log2 10,12,14,16,18,20]
        [--modes pe,rel] [--scale 16] [--boundary-max-n 4096]
        [--tasks NAME,...] [--threads N] [--max-time S] [--quick] [--check]

Everything runs through the command line of the build (BUILD, default
build/): `compile --explain` for the class and sizes, `eval` on one
string per length for the agreement (the reference computes the truth
from the paper's definition, not the automaton), `boundary` for the
precision limits, `bench` for the time (the best ISA, one thread, the
median of 3). The strings are drawn from each language's own shape (a
sampler per task below) with one token changed at a random place in the
last quarter (possibly to "x", a token no task names, read with
--unknown other), so the answer is 1 at many positions and changes for
good after the change. A run the command line predicts to take more than
--max-time seconds (600) is left out with the longer lengths (with the
present build none is: every task runs to 2^20). --quick: n up to 2^12,
boundary up to 1024, for a smoke run. Tasks the theory refuses get their
class and witness and no numbers. --check: exit 1 (naming them) when a
compiled task disagrees with its reference at some position or a length
was left out, or a task the theory allows was not compiled.
"""
import argparse
import csv
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import reference  # noqa: E402

HS = os.path.join(ROOT, os.environ.get("BUILD", "build"), "hardsoft")


def header(path):
    meta = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith(("#", "//")):
                break
            m = line.lstrip("#/ ").rstrip("\n")
            if ": " in m:
                k, v = m.split(": ", 1)
                meta[k] = v
    return meta


# ------------------------------------------------------------ samplers

def walk(n, r, opens, closes, limit):
    """A random bracket walk of depth 0..limit (None: unbounded), drifting
    back to 0, over matched pairs opens[k] / closes[k]."""
    out, stack = [], []
    for i in range(n):
        room = limit is None or len(stack) < limit
        if stack and (not room or r.random() < 0.5 + 0.3 * (len(stack) > 8)):
            out.append(closes[stack.pop()])
        else:
            k = r.randrange(len(opens))
            stack.append(k)
            out.append(opens[k])
    return out


def blocks(n, r, letters, equal=False):
    k = len(letters)
    if equal:
        sizes = [n // k] * k
        sizes[-1] += n - sum(sizes)
    else:
        cuts = sorted(r.sample(range(1, n), k - 1))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
    return [c for c, s in zip(letters, sizes) for _ in range(s)]


def no_three_zeros(n, r):
    out = []
    for _ in range(n):
        out.append("1" if out[-2:] == ["0", "0"] or r.random() < 0.4 else "0")
    return out


def flip_flop(n, r):
    out, bit = [], r.choice("01")
    while len(out) < n:
        op = "w" if not out else r.choice("wri")
        b = bit if op == "r" else r.choice("01")
        if op == "w":
            bit = b
        out += [op, b]
    return out[:n]


def tomita_3(n, r):
    """Runs with the odd-1s-then-odd-0s pattern avoided."""
    out, odd_ones = [], False
    while len(out) < n:
        ones = r.randrange(1, 6)
        zeros = r.randrange(1, 6)
        if ones % 2 == 1 and zeros % 2 == 1:
            zeros += 1
        out += ["1"] * ones + ["0"] * zeros
    return out[:n]


def shuffle_2(n, r):
    a = walk(n // 2, r, ["("], [")"], None)
    b = walk(n - n // 2, r, ["["], ["]"], None)
    out, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        if i < len(a) and (j == len(b) or r.random() < 0.5):
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out


SAMPLERS = {
    **{"bhattamishra-d%d" % k: (lambda n, r, k=k: walk(n, r, ["a"], ["b"], k))
       for k in range(1, 5)},
    "bhattamishra-ab-star": lambda n, r: ["a", "b"] * (n // 2) + ["a"] * (n % 2),
    "bhattamishra-aa-bb-cc-dd-ee": lambda n, r: blocks(n, r, "abcde"),
    "tomita-1": lambda n, r: ["1"] * n,
    "tomita-2": lambda n, r: ["1", "0"] * (n // 2) + ["1"] * (n % 2),
    "tomita-3": tomita_3,
    "tomita-4": no_three_zeros,
    "tomita-7": lambda n, r: blocks(n, r, "0101"),
    "flare-first": lambda n, r: ["1"] + [r.choice("01") for _ in range(n - 1)],
    "flare-even-pairs": lambda n, r: [r.choice("01") for _ in range(n)],
    "flare-repeat-01": lambda n, r: ["0", "1"] * (n // 2) + ["0"] * (n % 2),
    "flare-dyck-2-3": lambda n, r: walk(n, r, ["(", "["], [")", "]"], 3),
    "flare-majority": lambda n, r: ["1" if r.random() < 0.502 else "0" for _ in range(n)],
    **{"kneedeep-l%d" % k: (lambda n, r, k=k: blocks(n, r, ("ab" * k)[:k]))
       for k in range(3, 13)},
    "flip-flop": flip_flop,
    "aa-star": lambda n, r: ["a"] * n,
    "dyck-1": lambda n, r: walk(n, r, ["("], [")"], None),
    "shuffle-2": shuffle_2,
    "anbn": lambda n, r: blocks(n, r, "ab", equal=True),
    "anbncn": lambda n, r: blocks(n, r, "abc", equal=True),
}


def sample(name, tokens, n, r):
    w = SAMPLERS.get(name, lambda n, r: [r.choice(tokens) for _ in range(n)])(n, r)
    at = r.randrange(3 * n // 4, n)
    w[at] = r.choice([t for t in tokens + ["x"] if t != w[at]])
    return w


# ------------------------------------------------------------ measures

def run(args, stdin=None):
    p = subprocess.run([HS] + args, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("hardsoft %s: %s" % (" ".join(args[:4]), p.stderr.strip()))
    return p.stdout


def explain(path, scale):
    out = run(["compile", "-f", path, "--explain", "--mode", "pe", "--scale", str(scale)])
    info = {"states": "", "monoid": "", "levels": "", "layers": "", "heads": "",
            "width": "", "witness": ""}
    for line in out.split("\n"):
        w = line.split()
        if line.startswith("minimal automaton:"):
            info["states"] = w[2]
        elif line.startswith("transition monoid:"):
            info["monoid"] = w[2]
        elif line.startswith("construction:"):
            info["levels"] = w[4]
        elif line.startswith("model (mode pe):"):
            info["layers"], info["heads"], info["width"] = w[3], w[5], w[8]
        elif "witness of" in line:
            info["witness"] = line.split(": ", 1)[1]
    return info


def agreement(path, mode, scale, tokens, ref, n, r, a):
    """(fraction of positions agreeing, positions in the language), or
    None when the run is predicted to take more than --max-time."""
    w = sample(os.path.splitext(os.path.basename(path))[0], tokens, n, r)
    # (the sample's one token no task names, "x", is read as other on request)
    args = ["eval", "-f", path, "--mode", mode, "--scale", str(scale), "--quiet", "--unknown", "other",
            "--threads", str(a.threads), "--max-time", str(a.max_time)]
    p = subprocess.run([HS] + args, input=" ".join(w) + "\n", capture_output=True, text=True)
    if p.returncode != 0 and "predicted" in p.stderr:
        return None
    if p.returncode != 0:
        raise RuntimeError("hardsoft eval -f %s: %s" % (path, p.stderr.strip()))
    out = p.stdout.split("\n")[0]
    want = ref(w)
    if len(out) != n:
        raise RuntimeError("%s: %d outputs for %d tokens" % (path, len(out), n))
    agree = sum(1 for a, b in zip(out, want) if int(a) == b)
    return agree / n, sum(want)


def boundary(path, mode, scale, precision, a):
    args = ["boundary", "-f", path, "--mode", mode, "--scale", str(scale), "--precision",
            precision, "--max-n", str(a.boundary_max_n), "--quiet", "--max-time", str(a.max_time)]
    p = subprocess.run([HS] + args, capture_output=True, text=True)
    if p.returncode != 0:
        return "—" if "predicted" in p.stderr else "error"
    return next(csv.reader([p.stdout.strip().split("\n")[-1]]))[4]


def best_isa():
    for line in run(["info"]).split("\n"):
        if line.startswith("chosen:"):
            return line.split()[1]
    return "scalar"


def seconds(path, mode, scale, isa, n):
    out = run(["bench", "-f", path, "--modes", mode, "--scales", str(scale), "--lengths",
               str(n), "--isas", isa, "--repeat", "3", "--threads", "1", "--quiet"])
    rows = list(csv.DictReader(out.strip().split("\n")))
    return float(rows[0]["seconds_median"])


# ------------------------------------------------------------ the table

def measure(path, a, isa):
    name = os.path.splitext(os.path.basename(path))[0]
    meta = header(path)
    row = {"task": meta["task"], "file": os.path.basename(path),
           "written_in": meta["written in"].split(" (")[0], "class": meta["class"]}
    row.update(explain(path, a.scale))
    if meta["class"] == "not quasi-aperiodic":
        return row
    tokens, ref = meta["tokens"].split(), reference.TASKS[name]
    r = random.Random(name)
    for mode in a.modes:
        for k in a.log2:
            got = agreement(path, mode, a.scale, tokens, ref, 1 << k, r, a)
            if got is None:   # longer ones would take longer still
                break
            row["%s_agree_2^%d" % (mode, k)] = "%.6f" % got[0]
            row["%s_members_2^%d" % (mode, k)] = got[1]
        for prec in ("f16", "bf16"):
            row["%s_%s_exact_n" % (mode, prec)] = boundary(path, mode, a.scale, prec, a)
        row["%s_seconds_2^16" % mode] = "%.4g" % seconds(path, mode, a.scale, isa, 1 << 16)
    return row


def agree_cell(row, mode, log2):
    """"all" when every position of every length agreed, else the worst
    fraction; the lengths run ("to 2^k") when the longer were predicted
    past --max-time."""
    vals = [(k, row["%s_agree_2^%d" % (mode, k)]) for k in log2
            if "%s_agree_2^%d" % (mode, k) in row]
    if not vals:
        return "—"
    worst = min(float(v) for _, v in vals)
    cell = "all" if worst == 1.0 else "min %.6f" % worst
    return cell if len(vals) == len(log2) else "%s (to 2^%d)" % (cell, vals[-1][0])


def write(outdir, rows, a):
    keys = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    with open(os.path.join(outdir, "tasks.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, keys)
        w.writeheader()
        w.writerows(rows)
    lines = ["# The tasks of examples/tasks/", "",
             "Agreement with each task's reference function at every position of one "
             "string per n = %s (μ = %g); largest exact n with queries, keys and values "
             "stored in f16 / bf16 (searched up to %d); seconds of one forward pass at "
             "n = 2^16 (one thread). Written by `examples/tasks/table.py`." %
             (", ".join("2^%d" % k for k in a.log2), a.scale, a.boundary_max_n), "",
             "| task | written in | class | layers, heads, width | " +
             " | ".join("%s agreement | %s f16 / bf16 exact n | %s s at 2^16" % (m, m, m)
                        for m in a.modes) + " |",
             "|---|---|---|---|" + "---|---|---|" * len(a.modes)]
    for row in rows:
        size = ", ".join(row[k] for k in ("layers", "heads", "width")) if row.get("layers") \
            else "refused: " + row.get("witness", "")
        cells = [row["task"], row["written_in"], row["class"], size]
        for m in a.modes:
            cells += [agree_cell(row, m, a.log2),
                      "%s / %s" % (row.get("%s_f16_exact_n" % m, "—"),
                                   row.get("%s_bf16_exact_n" % m, "—")),
                      row.get("%s_seconds_2^16" % m, "—")]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    with open(os.path.join(outdir, "tasks.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def failures(rows, a):
    """What --check refuses: per compiled task, a length that disagreed
    or was not run; a task the theory allows without a model."""
    bad = []
    for row in rows:
        if row["class"] == "not quasi-aperiodic":
            continue
        if not row.get("layers"):
            bad.append("%s: not compiled" % row["file"])
        for m in a.modes:
            for k in a.log2:
                v = row.get("%s_agree_2^%d" % (m, k))
                if v != "1.000000":
                    bad.append("%s (%s) at n = 2^%d: %s" % (row["file"], m, k,
                                                         "agreement " + v if v else "not run"))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--log2", default="10,12,14,16,18,20")
    ap.add_argument("--modes", default="pe,rel")
    ap.add_argument("--scale", type=float, default=16)
    ap.add_argument("--boundary-max-n", type=int, default=4096)
    ap.add_argument("--tasks", default="")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-time", type=float, default=600,
                    help="skip a run predicted to take longer (seconds)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every compiled task agrees at every length")
    a = ap.parse_args()
    a.log2 = [int(x) for x in a.log2.split(",")]
    a.modes = a.modes.split(",")
    if a.quick:
        a.log2, a.boundary_max_n = [k for k in a.log2 if k <= 12] or [10], 1024
    os.makedirs(a.outdir, exist_ok=True)
    # the regular expressions first, then the C-RASP programs
    files = sorted((os.path.join(HERE, f) for f in os.listdir(HERE)
                    if f.endswith((".re", ".cr"))), key=lambda f: (f.endswith(".cr"), f))
    if a.tasks:
        files = [f for f in files if os.path.splitext(os.path.basename(f))[0] in a.tasks.split(",")]
    isa, rows, t0 = best_isa(), [], time.time()
    for path in files:
        t = time.time()
        rows.append(measure(path, a, isa))
        print("%-40s %6.1f s" % (os.path.basename(path), time.time() - t), file=sys.stderr,
              flush=True)
        write(a.outdir, rows, a)
    print("tasks table: %d tasks in %.0f s, %s" % (len(rows), time.time() - t0,
                                                 os.path.join(a.outdir, "tasks.md")))
    bad = failures(rows, a) if a.check else []
    for line in bad:
        print("table.py: disagrees: " + line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
