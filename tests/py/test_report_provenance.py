# SPDX-License-Identifier: MIT
"""bench/report: growth exponents with their uncertainty and the rule that
calls a target missed, the provenance read from CSV rows (fixture
tests/py/fixtures/provenance/), the stamp in each plot (below the x-axis
label), each mode's own bound line, and the README's quotation."""
import csv
import math
import os
import random
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
REPORT = os.path.join(HERE, "..", "..", "bench", "report")
FIXTURES = os.path.join(HERE, "fixtures", "provenance")

from report import fit, plots, reading  # noqa: E402
from report.context import Report  # noqa: E402
from report.main import build  # noqa: E402
from report.sections import accuracy, provenance  # noqa: E402


# ------------------------------------------------------------------ the fit

def test_fit_by_hand():
    # ln x = 0, 1, 2; ln y = 0, 1, 3: slope 3/2, intercept -1/6, residuals
    # 1/6, -1/3, 1/6, SSR = 1/6, s^2 = SSR/(3-2), Sxx = 2, se = sqrt(1/12)
    f = fit.fit_loglog([(1, 1), (math.e, math.e), (math.e ** 2, math.e ** 3)])
    assert f.slope == pytest.approx(1.5)
    assert f.se == pytest.approx(math.sqrt(1 / 12))
    assert f.hi - f.slope == pytest.approx(12.706 * math.sqrt(1 / 12))
    assert f.k == 3 and f.decades == pytest.approx(2 / math.log(10))


def test_fit_recovers_known_slope():
    ns = [64, 256, 1024, 2048, 4096, 8192]
    rng = random.Random(7)
    pts = [(n, 3e-9 * n ** 2 * math.exp(rng.gauss(0, 0.05))) for n in ns]
    f = fit.fit_loglog(pts)
    assert f.k == 6 and f.decades > 2
    assert f.lo < 2.0 < f.hi
    assert abs(f.slope - 2.0) < 0.05 and f.se > 0
    exact = fit.fit_loglog([(n, 5.0 * n ** 1.5) for n in ns])
    assert exact.slope == pytest.approx(1.5) and exact.se == pytest.approx(0, abs=1e-9)


def test_interval_covers_about_95_percent():
    ns = [64, 256, 1024, 2048, 4096, 8192]
    rng = random.Random(1)
    hit = 0
    for _ in range(400):
        f = fit.fit_loglog([(n, n ** 2 * math.exp(rng.gauss(0, 0.2))) for n in ns])
        hit += f.lo <= 2.0 <= f.hi
    assert 0.91 <= hit / 400 <= 0.99


def test_t_quantiles():
    assert fit.t975(1) == 12.706 and fit.t975(30) == 2.042
    assert fit.t975(40) == pytest.approx(2.0211, abs=2e-3)
    assert fit.t975(120) == pytest.approx(1.9799, abs=1e-3)
    assert fit.t975(0) == math.inf


def test_two_points_have_no_interval():
    f = fit.fit_loglog([(100, 1.0), (1000, 100.0)])
    assert f.slope == pytest.approx(2.0) and math.isnan(f.se)
    assert f.lo == -math.inf and f.hi == math.inf
    assert fit.fit_loglog([(100, 1.0)]) is None


# --------------------------------------------------- missed only outside

def mkfit(slope, half, k=6, decades=2.1):
    return fit.Fit(slope, half / 2.5, slope - half, slope + half, k, decades)


def test_judge_slope():
    j = fit.judge_slope
    assert j(mkfit(2.0, 0.05), 1.9, 2.1) == "met"
    assert j(mkfit(1.7, 0.1), 1.9, 2.1) == "missed"           # 1.6…1.8
    assert j(mkfit(1.7, 0.3), 1.9, 2.1) == "inconclusive"     # 1.4…2.0 reaches 1.9
    assert j(mkfit(2.4, 0.25), 1.9, 2.1) == "missed"          # 2.15…2.65
    assert j(mkfit(2.4, 0.35), 1.9, 2.1) == "inconclusive"    # 2.05…2.75
    assert j(mkfit(2.0, 0.05, k=4), 1.9, 2.1) == "not judged"
    assert j(mkfit(2.0, 0.05, decades=1.5), 1.9, 2.1) == "not judged"
    assert j(None, 1.9, 2.1) is None


def test_judge_slope_interval_edges():
    # just outside on either side, and touching the range
    assert fit.judge_slope(mkfit(2.3, 0.19), 1.9, 2.1) == "missed"
    assert fit.judge_slope(mkfit(1.6, 0.29), 1.9, 2.1) == "missed"
    assert fit.judge_slope(mkfit(1.6, 0.3), 1.9, 2.1) == "inconclusive"


def test_fmt_fit():
    s = fit.fmt_fit(fit.fit_loglog([(n, n ** 2) for n in [64, 256, 1024, 4096, 8192]]),
                       "met")
    assert s.startswith("2.00 ± ") and "(95%: 2.00…2.00; 5 n, 2.1 decades) **met**" in s
    assert fit.fmt_fit(mkfit(1.7, 0.1), "missed").endswith("**missed**")
    assert fit.fmt_fit(mkfit(1.7, 0.3), "inconclusive").endswith("*inconclusive*")


# ------------------------------------------------------------- the bounds

def test_mode_bound():
    b = accuracy.mode_bound
    assert b("pe", math.log(7), 10 ** 6) == pytest.approx(0.25)   # S = 1/3
    assert b("temp", 4, 16) == b("pe", 4, 1) == b("rel", 4, 99)
    assert b("fixed", 8, 4) == pytest.approx(b("pe", 2, 1))       # mu/n
    assert b("fixed", 8, 1024) > 0.9
    assert b("hard", 4, 16) == 0


def test_bound_lines_per_mode():
    assert accuracy.bound_lines("hard", [16, 64]) == []
    pe = accuracy.bound_lines("pe", [16, 64])
    assert len(pe) == 1 and pe[0].startswith("fbound(x) ")
    fx = accuracy.bound_lines("fixed", [16, 64, 256])
    assert [c.split()[0] for c in fx] == ["fbound(x/16.0)", "fbound(x/64.0)",
                                          "fbound(x/256.0)"]
    assert "fbound(x)" not in " ".join(fx)


class FakePlot:
    """Records each plot's gnuplot body instead of running gnuplot."""

    def __init__(self):
        self.bodies, self.stamp, self.n = {}, "", 0

    def data(self, rows):
        self.n += 1
        return f"'d{self.n}'"

    def plot(self, name, width, height, body):
        self.bodies[name] = body
        return None


ACC_HEADER = ("formula,mode,scale,isa,precision,threads,n,seconds_median,seconds_min,"
              "seconds_max,positions_per_s,peak_bytes,agree_fraction,max_attn_error\n")


def test_accuracy_plot_draws_each_modes_bound(tmp_path):
    rows = []
    for m in ["pe", "fixed"]:
        for mu in [1, 4, 16]:
            for n in [16, 64]:
                err = accuracy.mode_bound(m, mu, n) / 2
                rows.append(f'"a S b",{m},{mu},avx2,f32,1,{n},1e-4,1e-4,1e-4,1e5,1000,1,{err}\n')
    (tmp_path / "sweep-accuracy.csv").write_text(ACC_HEADER + "".join(rows), encoding="utf-8")
    rep = Report(str(tmp_path))
    fake = FakePlot()
    text = build(rep, fake)
    body = fake.bodies["accuracy-error.png"]
    pe_panel, fixed_panel = body.split("set title")[1:3]
    assert "fbound(x) " in pe_panel and "x/16.0" not in pe_panel
    assert "fbound(x/16.0)" in fixed_panel and "fbound(x/64.0)" in fixed_panel
    assert "fbound(x) " not in fixed_panel
    assert "- fixed: the measured attention error stays within its bound S/(1+S) of mu/n" in text


# ------------------------------------------------------------- provenance

def run_report(d, *extra):
    return subprocess.run([sys.executable, REPORT, str(d), *extra], capture_output=True,
                          text=True)


def test_provenance_from_rows(tmp_path):
    shutil.copy(os.path.join(FIXTURES, "sweep-scaling.csv"), tmp_path)
    rows = reading.read_bench(str(tmp_path / "sweep-scaling.csv"))
    r = rows[0]
    assert r["cpu"] == "AMD EPYC (family 26 model 2 stepping 1)"
    assert r["cores"] == "2" and r["memory_bytes"] == "25276026880"
    assert r["kernel"] == "Linux 6.1.0-test x86_64" and r["commit"] == "0123456789ab"
    assert r["build"].startswith("gcc 12.2.0; -std=c11 -O2 (kernels:")
    assert {x["version"] for x in rows} == {"hardsoft 0.3.0", "NumPy 1.24.2",
                                           "PyTorch 2.1.2 eager, 1 thread; NumPy 1.24.2"}
    p = run_report(tmp_path)
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    assert "| AMD EPYC (family 26 model 2 stepping 1) |" in text
    assert "| 2 CPUs, 23.5 GiB, Linux 6.1.0-test x86_64 |" in text
    assert "| version: NumPy | NumPy 1.24.2 |" in text
    assert "| version: PyTorch | PyTorch 2.1.2 eager, 1 thread; NumPy 1.24.2 |" in text
    assert "| version: hardsoft | hardsoft 0.3.0 |" in text
    assert "| version: ONNX Runtime | not measured (no `ort` rows) |" in text
    # the commit the results were measured at, in the table and the headline,
    # with the check that holds them to it (no claim about this checkout)
    assert "| commit the results were measured at | `0123456789ab` |" in text
    assert "HEAD" not in text
    head = text.split("## Headline")[1].split("\n## ")[0]
    assert "at commit `0123456789ab`" in head and "make check" in head
    assert "`git diff --stat 0123456789ab -- src simd include`" in head
    assert "Measured on AMD EPYC (family 26 model 2 stepping 1) on 2026-11-25" in head
    # what each peer computes, next to its numbers
    assert "**PyTorch** (PyTorch 2.1.2 eager, 1 thread; NumPy 1.24.2)" in head
    assert "not a fused kernel" in head.lower() and "cblas_sgemm" not in head  # no OpenBLAS rows
    assert "exp(s − max) / sum" in head
    # AVX2: 6 lengths over 2.1 decades, t ~ n^2: judged and met; the
    # peers stop at 4096 (5 lengths, 1.8 decades): shown, not judged
    scal = text.split("## Scaling with n")[1].split("\n## ")[0]
    avx2 = next(l for l in scal.splitlines() if l.startswith("| AVX2 dense |"))
    assert "6 n, 2.1 decades) **met**" in avx2
    numpy = next(l for l in scal.splitlines() if l.startswith("| NumPy |"))
    assert "5 n, 1.8 decades)" in numpy and "met" not in numpy and "judged" not in numpy


def test_rows_without_provenance_columns(tmp_path):
    # the fixture cut before its version column: a file of an older hardsoft
    with open(os.path.join(FIXTURES, "sweep-scaling.csv"), encoding="utf-8") as f:
        table = list(csv.reader(f))
    cut = table[0].index("version")
    with open(tmp_path / "sweep-scaling.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(row[:cut] for row in table)
    rows = reading.read_bench(str(tmp_path / "sweep-scaling.csv"))
    assert rows[0]["cpu"] is None and rows[0]["version"] is None
    p = run_report(tmp_path)
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    assert "not recorded (files written before these columns)" in text
    assert "| version: NumPy | not recorded (rows written before the CSV's version column) |" \
        in text


def test_plot_stamp():
    p = plots.Plotter(".", ".")
    p.stamp = "hardsoft 0123456789ab, AMD EPYC, 2 CPUs, 2026-11-25"
    script = p.script("x.png", 100, 100, "plot x")
    assert ("set label 99 'hardsoft 0123456789ab, AMD EPYC, 2 CPUs, 2026-11-25' at screen "
            f"0.995, screen {plots.STAMP_Y} right") in script
    assert f"set bmargin {plots.STAMP_BMARGIN}\n" in script
    assert script.index("set label 99") < script.index("plot x")
    rep = Report(FIXTURES)
    assert provenance.stamp(rep) == ("hardsoft 0123456789ab, AMD EPYC (family 26 model 2 stepping 1), "
                           "2 CPUs, 2026-11-25")


def test_stamp_reaches_every_plot(tmp_path):
    shutil.copy(os.path.join(FIXTURES, "sweep-scaling.csv"), tmp_path)
    rep = Report(str(tmp_path))
    fake = FakePlot()
    build(rep, fake)
    assert fake.stamp.startswith("hardsoft 0123456789ab, AMD EPYC")
    assert "scaling-time.png" in fake.bodies


# ------------------------------------------------- the README's quotation

README_RESULTS = os.path.join(HERE, "..", "..", "bench", "readme-results.py")


def test_readme_quotes_the_machines_and_provenance(tmp_path):
    folder = tmp_path / "machines" / "amd-f26-m2-s1-avx2"
    folder.mkdir(parents=True)
    shutil.copy(os.path.join(FIXTURES, "sweep-scaling.csv"), folder)
    assert run_report(folder).returncode == 0
    p = run_report(tmp_path, "--machines")
    assert p.returncode == 0, p.stderr
    readme = tmp_path / "README.md"
    readme.write_text("x\n<!-- results:begin -->\nold\n<!-- results:end -->\n",
                      encoding="utf-8")
    p = subprocess.run([sys.executable, README_RESULTS, str(tmp_path), str(readme)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = readme.read_text(encoding="utf-8")
    assert "every ratio is computed within one machine's run" in text and "make check" in text
    assert "| `amd-f26-m2-s1-avx2` | AMD EPYC (family 26 model 2 stepping 1) | 2 CPUs, " in text
    assert "### Ranges across the machines" in text and "\nold\n" not in text
    # an opening without the check (an older report) is refused, README untouched
    rep = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    (tmp_path / "REPORT.md").write_text(rep.replace("make check", "X"), encoding="utf-8")
    p = subprocess.run([sys.executable, README_RESULTS, str(tmp_path), str(readme)],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "its opening lacks 'make check'" in p.stderr
    assert readme.read_text(encoding="utf-8") == text


# ------------------------------------------- the stamp clear of the labels

def changed_box(a, b):
    """The bounding box (rows, columns) of the pixels that differ."""
    import numpy as np
    diff = np.any(a != b, axis=-1)
    rows, cols = np.nonzero(diff)
    assert rows.size, "the two pictures are the same"
    return rows.min(), rows.max(), cols.min(), cols.max()


def overlaps(p, q):
    return not (p[1] < q[0] or q[1] < p[0] or p[3] < q[2] or q[3] < p[2])


@pytest.mark.skipif(shutil.which("gnuplot") is None, reason="gnuplot is not installed")
@pytest.mark.parametrize("layout,width,height", [("", 760, 480),
                                                  ("set multiplot layout 1,2", 1400, 560),
                                                  ("set multiplot layout 2,2", 1100, 800)])
def test_stamp_clear_of_the_axis_label(tmp_path, layout, width, height):
    """The stamp, drawn bottom right, shares no pixel row and column box
    with the x-axis label of any panel: the pixels each one changes
    (picture with it against picture without it) lie in disjoint boxes."""
    np = pytest.importorskip("numpy")
    image = pytest.importorskip("PIL.Image")
    p = plots.Plotter(str(tmp_path), str(tmp_path))
    if not p.term:
        pytest.skip(p.why_not())
    panels = 1 if not layout else int(layout[-1]) * int(layout[-3])
    stamp = "hardsoft 0123456789ab, AMD EPYC (family 26 model 2 stepping 1), 2 CPUs, 2026-11-25"

    def draw(name, with_stamp, xlabel):
        p.stamp = stamp if with_stamp else ""
        body = [layout] if layout else []
        body += [f"set xlabel '{xlabel}'", "set xrange [1:100000]", "set logscale x",
                 "set ylabel 'time (ms)'"]
        body += ["plot x with lines title 'a long key entry for the series'"] * panels
        body += ["unset multiplot"] if layout else []
        # the label without the stamp keeps the stamp's margin: only the
        # stamp differs between the two pictures
        err = p.plot(name, width, height, "\n".join(body) if with_stamp else
                     f"set bmargin {plots.STAMP_BMARGIN}\n" + "\n".join(body))
        assert err is None, err
        return np.asarray(image.open(tmp_path / name).convert("RGB"))

    label = "precision (by significand bits), n (string length) and more words"
    full = draw("full.png", True, label)
    stamp_box = changed_box(full, draw("nostamp.png", False, label))
    label_box = changed_box(full, draw("nolabel.png", True, ""))
    assert not overlaps(stamp_box, label_box), (stamp_box, label_box)


def test_ort_version_from_its_package(tmp_path):
    """The ort peer prints no version: the report takes onnxruntime-node's
    from the package.json under the build directory the suite ran."""
    with open(os.path.join(FIXTURES, "sweep-scaling.csv"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    ort = [l.replace(",numpy,", ",ort,").replace('"NumPy 1.24.2"', '"version not reported"')
           for l in lines if ",numpy," in l]
    assert ort
    (tmp_path / "sweep-scaling.csv").write_text("\n".join(lines + ort) + "\n", encoding="utf-8")
    build = tmp_path / "build"
    pkg = build / "node" / "node_modules" / "onnxruntime-node"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "onnxruntime-node", "version": "1.30.0"}')
    p = run_report(tmp_path, "--build", str(build))
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    assert "| version: ONNX Runtime | onnxruntime-node 1.30.0 (from its package.json) |" in text
    assert "**ONNX Runtime** (onnxruntime-node 1.30.0 (from its package.json))" in text
    assert "version not reported" not in text
    # without the package, the rows' own word stays
    p = run_report(tmp_path, "--build", str(tmp_path / "none"))
    assert p.returncode == 0, p.stderr
    assert "| version: ONNX Runtime | version not reported |" in \
        (tmp_path / "REPORT.md").read_text(encoding="utf-8")


def published_folders():
    """The machine folders of results/machines (none: an empty list)."""
    root = os.path.join(HERE, "..", "..", "results", "machines")
    return sorted(os.path.join(root, d) for d in os.listdir(root)
                  if os.path.isdir(os.path.join(root, d))) if os.path.isdir(root) else []


@pytest.mark.parametrize("res", published_folders() or [None],
                         ids=lambda p: os.path.basename(p) if p else "none")
def test_every_section_from_the_published_results(tmp_path, res):
    """The report of each published machine folder's own data files: every
    section is written from its file (none reads "not measured" where its
    file is present) and every plot gets a body."""
    if res is None or not os.path.exists(os.path.join(res, "sweep-scaling.csv")):
        pytest.skip("results/machines/ holds no measurements")
    data = [f for f in os.listdir(res) if f.endswith((".csv", ".json", ".txt"))
            or f in ("kernels.md", "hyperfine.md")]
    for f in data:
        shutil.copy(os.path.join(res, f), tmp_path)
    fake = FakePlot()
    text = build(Report(str(tmp_path)), fake)
    for f in data:
        assert f"{f}: not measured" not in text, f
    for heading in ["## Provenance", "## Headline", "## Scaling with n", "## Accuracy against μ",
                    "## Formula suite", "## Precision boundary", "## Kernels",
                    "## Whole-process timings (hyperfine)", "## Simulating hard models",
                    "## Counting: the two sign methods", "## Threads",
                    "## Exact skipping of underflowed key tiles", "## Time by phase",
                    "## Targets", "## Plots"]:
        assert f"\n{heading}\n" in text, heading
    assert {"scaling-time.png", "accuracy-error.png", "boundary.png"} <= set(fake.bodies)
    assert "issue" not in text.lower()
