# SPDX-License-Identifier: MIT
"""bench/report's LaTeX tables (results/*.tex, for a paper to \\input):
the conversion of Markdown cells, and the structure of every file the
report writes: one booktabs tabular, a column spec as wide as each row,
ASCII only, balanced braces, LaTeX's special characters escaped. Where
pdflatex and booktabs are installed, each file also compiles."""
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
REPORT = os.path.join(HERE, "..", "..", "bench", "report")
FIXTURES = os.path.join(HERE, "fixtures", "provenance")

from report import tex  # noqa: E402


def test_cells():
    c = tex.cell
    assert c("`(a S b) \\| G (b -> Y a)`") == r"\texttt{(a S b) | G (b -> Y a)}"
    assert c("**met**") == r"\textbf{met}" and c("*inconclusive*") == r"\emph{inconclusive}"
    assert c("572.09×") == r"572.09$\times$"
    assert c("online / auto >= 20x, mu=8") == r"online / auto $\geq$ 20x, mu=8"
    assert c("≤ 1.10") == r"$\leq$ 1.10" and c("—") == "---"
    assert c("50% of 1_000 & #3 {x} ~ $^") == (r"50\% of 1\_000 \& \#3 \{x\} "
                                                r"\textasciitilde{} \$\^{}")
    assert c("`#<(a) > #>(b)`") == r"\texttt{\#<(a) > \#>(b)}"
    assert c("n < 2") == "n $<$ 2"
    assert c("2.00 ± 0.1 (95%: 1.9…2.1)") == r"2.00 $\pm$ 0.1 (95\%: 1.9\ldots{}2.1)"
    assert c("a<br>b") == "a; b"


def test_tabular():
    t = tex.tabular(["formula", "n", "ms"], [["`a S b`", 4096, "2.54"]],
                    ["---", "--:", "--:"], note="a note")
    assert t.splitlines() == [
        "% a note", "% needs \\usepackage{booktabs}", r"\begin{tabular}{@{}lrr@{}}",
        r"\toprule", r"formula & n & ms \\", r"\midrule", r"\texttt{a S b} & 4096 & 2.54 \\",
        r"\bottomrule", r"\end{tabular}"]


def strip_math_and_escapes(line):
    line = re.sub(r"\$[^$]*\$", "", line)
    return re.sub(r"\\[a-zA-Z]+(\{\})?|\\[%&#_{}$^]", "", line)


def check_structure(text, name):
    lines = text.splitlines()
    assert all(ord(ch) < 128 for ch in text), name
    body = [l for l in lines if not l.startswith("%")]
    m = re.fullmatch(r"\\begin\{tabular\}\{@\{\}([lrc]+)@\{\}\}", body[0])
    assert m, name
    ncols = len(m.group(1))
    assert body[1] == r"\toprule" and body[3] == r"\midrule", name
    assert body[-2:] == [r"\bottomrule", r"\end{tabular}"], name
    rows = body[2:3] + body[4:-2]
    assert len(rows) >= 2, name
    for r in rows:
        assert r.endswith(r" \\"), (name, r)
        plain = strip_math_and_escapes(r[:-3])
        assert plain.count("&") == ncols - 1, (name, r)
        assert not re.search(r"[%#_^~]", plain), (name, r)
        assert plain.count("$") == 0, (name, r)
    depth = 0
    for ch in re.sub(r"\\[{}]", "", text):
        depth += ch == "{"
        depth -= ch == "}"
        assert depth >= 0, name
    assert depth == 0, name


@pytest.fixture
def written(tmp_path):
    shutil.copy(os.path.join(FIXTURES, "sweep-scaling.csv"), tmp_path)
    shutil.copy(os.path.join(HERE, "fixtures", "paths", "sweep-paths.csv"), tmp_path)
    p = subprocess.run([sys.executable, REPORT, str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return tmp_path


def test_files(written):
    names = sorted(f for f in os.listdir(written) if f.endswith(".tex"))
    assert names == ["paths.tex", "peers.tex", "phases.tex", "speedups.tex", "targets.tex"]
    for n in names:
        check_structure((written / n).read_text(encoding="ascii"), n)
    report = (written / "REPORT.md").read_text(encoding="utf-8")
    assert "[paths.tex](paths.tex)" in report and "\\usepackage{booktabs}" in report
    # the same numbers as the Markdown table
    paths = (written / "paths.tex").read_text(encoding="ascii")
    assert r"\texttt{a S b} & 4096, $\mu$ = 4 & default (\texttt{--skip auto}) & 1.60 & " \
        r"1.20 & 0.5 & 1.33$\times$ & 3.20$\times$ \\" in paths


@pytest.mark.skipif(shutil.which("pdflatex") is None or subprocess.run(
    ["kpsewhich", "booktabs.sty"], capture_output=True).returncode != 0,
    reason="pdflatex with booktabs is not installed")
def test_compiles(written, tmp_path):
    for n in sorted(f for f in os.listdir(written) if f.endswith(".tex")):
        doc = tmp_path / "doc.tex"
        doc.write_text("\\documentclass{article}\\usepackage{booktabs}\\begin{document}\n"
                       f"\\input{{{written / n}}}\n\\end{{document}}\n", encoding="ascii")
        p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                            "doc.tex"], cwd=tmp_path, capture_output=True, text=True)
        assert p.returncode == 0, (n, p.stdout[-2000:])
