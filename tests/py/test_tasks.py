# SPDX-License-Identifier: MIT
"""The tasks of examples/tasks/: each file's language (its automaton or
program interpreter) equals the reference function written from the
paper's definition (examples/tasks/reference.py), and what the theory
allows compiles and agrees with it in hard and pe mode at every position:
every string up to a length (the string count kept near 2000) over the
task's tokens and one other (read as other on request: unknown="other"),
and 20 longer ones (random, and members glued together); what it does
not allow is refused with the class the file states."""
import glob
import itertools
import os
import random
import sys

import subprocess

import pytest

from conftest import BUILD, ROOT
import hardsoft

TASKS = os.path.join(ROOT, "examples", "tasks")
sys.path.insert(0, TASKS)
import reference  # noqa: E402


def header(path):
    meta = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = line.lstrip("#/ ").rstrip("\n")
            if not line.startswith(("#", "//")):
                break
            if ": " in m:
                k, v = m.split(": ", 1)
                meta[k] = v
    return meta


FILES = sorted(glob.glob(os.path.join(TASKS, "*.re")) + glob.glob(os.path.join(TASKS, "*.cr")))


def strings(tokens, ref, seed):
    """All strings up to a length over the tokens plus "x", then longer
    ones: random, and members (short strings in the language) glued."""
    syms = tokens + ["x"]
    n = 1
    while sum(len(syms) ** k for k in range(1, n + 2)) <= 2000:
        n += 1
    out = [list(p) for k in range(1, n + 1) for p in itertools.product(syms, repeat=k)]
    members = [w for w in out if ref(w)[-1]]
    r = random.Random(seed)
    for _ in range(10):
        out.append([r.choice(syms) for _ in range(r.randrange(20, 200))])
        w = []
        while members and len(w) < 150:
            w += r.choice(members)
        out.append(w or [tokens[0]])
    return out


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p) for p in FILES])
def test_task(path):
    name, ext = os.path.splitext(os.path.basename(path))
    meta = header(path)
    for k in ("task", "source", "definition", "written in", "theory", "class", "tokens",
              "reference"):
        assert k in meta, "%s: no '%s:' line" % (path, k)
    ref = reference.TASKS[name]
    lang = "regex" if ext == ".re" else "crasp"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    cls = meta["class"]
    if lang == "regex":
        assert "class: %s" % cls in hardsoft.explain(text), name
    inputs = strings(meta["tokens"].split(), ref, hash(name) & 0xffff)
    if cls == "not quasi-aperiodic":
        with pytest.raises(hardsoft.Error) as e:
            hardsoft.compile(text, lang=lang, mode="pe")
        assert "not quasi-aperiodic" in str(e.value)
        models = []
    else:
        models = [hardsoft.compile(text, lang=lang, mode=m, scale=16) for m in ("hard", "pe")]
    if models:
        truths = [list(models[0].truth(tokens=w, unknown="other")) for w in inputs]
    else:   # no model: the automaton through the command line
        r = subprocess.run([os.path.join(BUILD, "hardsoft"), "eval", "-f", path, "--mode",
                            "truth", "--unknown", "other", "--"] + [" ".join(w) for w in inputs],
                           capture_output=True, text=True, check=True)
        truths = [[int(c) for c in line] for line in r.stdout.split("\n")[:len(inputs)]]
    for w, truth in zip(inputs, truths):
        want = ref(w)
        assert truth == want, "%s: truth on %s: %s, reference %s" % (name, w, truth, want)
        for m in models:
            got = list(m.eval(tokens=w, unknown="other"))
            assert got == want, "%s (%s) on %s: %s, reference %s" % (name, m.mode, w, got, want)


def test_table_smoke(tmp_path):
    """examples/tasks/table.py writes the CSV and Markdown table (two
    tasks, --quick): a compiled task agrees everywhere, a refused one has
    its witness and no numbers; --check passes, and fails on a length
    the agreement was not measured at."""
    cmd = [sys.executable, os.path.join(TASKS, "table.py"), str(tmp_path), "--quick", "--check",
           "--tasks", "kneedeep-l3,parity", "--log2", "10"]
    subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ, BUILD=BUILD))
    with open(tmp_path / "tasks.csv", encoding="utf-8") as f:
        rows = {r["file"]: r for r in __import__("csv").DictReader(f)}
    l3, parity = rows["kneedeep-l3.re"], rows["parity.re"]
    assert l3["class"] == "star-free" and l3["pe_agree_2^10"] == "1.000000"
    assert l3["rel_agree_2^10"] == "1.000000" and int(l3["pe_members_2^10"]) > 0
    assert float(l3["pe_seconds_2^16"]) > 0 and l3["layers"].isdigit()
    assert parity["class"] == "not quasi-aperiodic" and "u = " in parity["witness"]
    assert "pe_agree_2^10" not in parity or not parity["pe_agree_2^10"]
    assert "| L3 | regular expression | star-free |" in (tmp_path / "tasks.md").read_text()
    rows = [dict(l3)]
    table = __import__("importlib").import_module("table")
    a = __import__("argparse").Namespace(modes=["pe", "rel"], log2=[10])
    assert table.failures(rows, a) == []
    a.log2 = [10, 12]
    assert table.failures(rows, a) == ["kneedeep-l3.re (pe) at n = 2^12: not run",
                                       "kneedeep-l3.re (rel) at n = 2^12: not run"]
    rows[0]["rel_agree_2^10"] = "0.999023"
    assert "kneedeep-l3.re (rel) at n = 2^10: agreement 0.999023" in table.failures(rows, a)
