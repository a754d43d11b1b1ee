# SPDX-License-Identifier: MIT
"""bench/report on sweep-paths.csv (fixture tests/py/fixtures/paths/): the
headline's default path beside the dense path per ISA, the targets on
them, the time-by-phase table and plot when the CSV has the columns of
`hardsoft bench --phases` (and a plain line when it has not); and the
scaling section's exponents, each path judged against what it should do,
with the n where the default path starts skipping."""
import csv
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
REPORT = os.path.join(HERE, "..", "..", "bench", "report")
PATHS = os.path.join(HERE, "fixtures", "paths", "sweep-paths.csv")

from report.context import Report  # noqa: E402
from report.main import build  # noqa: E402
from report.reading import PHASE_COLS  # noqa: E402

D4 = "(a S (b & X (c U Y a))) | G (b -> Y a)"


class FakePlot:
    """Records each plot's gnuplot body and data instead of running gnuplot."""

    def __init__(self):
        self.bodies, self.data_rows, self.stamp = {}, [], ""

    def data(self, rows):
        self.data_rows.append([list(r) for r in rows])
        return f"'d{len(self.data_rows)}'"

    def plot(self, name, width, height, body):
        self.bodies[name] = body
        return None


def section(text, start):
    return text.split(start, 1)[1].split("\n## ", 1)[0]


def line(text, *parts):
    found = [l for l in text.splitlines() if all(p in l for p in parts)]
    assert len(found) == 1, (parts, found)
    return found[0]


def report(tmp_path, files):
    for name, src in files.items():
        if os.path.isabs(src):
            shutil.copy(src, tmp_path / name)
        else:
            (tmp_path / name).write_text(src, encoding="utf-8")
    rep = Report(str(tmp_path))
    fake = FakePlot()
    return build(rep, fake), fake


def test_paths_side_by_side(tmp_path):
    text, _ = report(tmp_path, {"sweep-paths.csv": PATHS})
    head = section(text, "## Headline")
    assert line(head, "| `a S b` | 16384, μ = 8 | default").endswith(
        "| 5.60 | 4.00 | 1.75 | 1.40× | 3.20× |")
    assert line(head, "| `a S b` | 16384, μ = 8 | dense (").endswith(
        "| 120 | 24.0 | 12.0 | 5.00× | 10.00× |")
    assert line(head, "| `a S b` | 16384, μ = 8 | dense / default").endswith(
        "| 21.43× | 6.00× | 6.86× |  |  |")
    t = section(text, "## Targets")
    assert line(t, "default path: AVX2 / scalar speed-up >= 2x", "`a S b` pe mu=4, n=4096") \
        .endswith("| 1.60 vs 1.20 ms | 1.33× | **missed** |")
    assert line(t, "default path: AVX-512 / scalar speed-up >= 3x", "mu=8, n=16384",
                "G (b").endswith("| 3.33× | **met** |")
    assert line(t, "dense path: AVX-512 / scalar speed-up >= 8x", "G (b").endswith(
        "| 60.0 vs 7.50 ms | 8.00× | **met** |")
    # the dense path's target is at n = 4096 only
    assert "dense path" not in line(t, "AVX-512 / scalar", "`a S b` pe mu=8, n=16384")


def test_phases(tmp_path):
    text, fake = report(tmp_path, {"sweep-paths.csv": PATHS})
    ph = section(text, "## Time by phase")
    assert line(ph, "| `a S b` | 16384, μ = 8 | dense | AVX2 | 24.0 |").endswith(
        "| 24.0 | 2.40 (10%) | 0 (0%) | 0 (0%) | 19.2 (80%) | 1.20 (5%) | 0 (0%) | 1.20 |")
    assert line(ph, "| `a S b` | 4096, μ = 4 | default | AVX-512 | 3.20× |").endswith(
        "| 3.20× | — | 3.20× |")
    # Amdahl's ceiling of the default path: scalar 5.6 ms over the AVX-512
    # run's bounds + search + finish + wait = 0.0875 + 0.2625 + 0.175 + 0
    assert line(ph, "| `a S b` | 16384, μ = 8 | AVX-512 | 3.20× |").endswith(
        "| 3.20× | 3.00× | 10.67× | attn (45%) |")
    assert "| dense |" not in section(ph, "What binds")
    body = fake.bodies["phases.png"]
    assert body.count("set title") == 3 and "rowstacked" in body
    assert "'scalar: time by phase'" in body and "'AVX-512: time by phase'" in body
    # bars relative to the scalar total of the same run: the scalar panel's
    # bars are the shares, the AVX-512 dense a S b bar at 16384 is 1/10
    panels = fake.data_rows[-3:]
    assert [round(sum(v), 9) for v in panels[0]] == [1.0] * 8
    keys = [(f, n, p) for f, n in [("a S b", 4096), ("a S b", 16384), (D4, 4096), (D4, 16384)]
            for p in ("auto", "online")]
    assert math.isclose(sum(panels[2][keys.index(("a S b", 16384, "online"))]), 0.1)


def test_no_phase_columns(tmp_path):
    with open(PATHS, encoding="utf-8") as f:
        table = list(csv.reader(f))
    keep = [i for i, c in enumerate(table[0]) if c not in PHASE_COLS]
    with open(tmp_path / "sweep-paths.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([r[i] for i in keep] for r in table)
    text, fake = report(tmp_path, {})
    assert "sweep-paths.csv has no phase columns" in section(text, "## Time by phase")
    assert "phases.png" not in fake.bodies
    assert "| `a S b` | 4096, μ = 4 | default" in section(text, "## Headline")


HEADER = ("formula,mode,scale,isa,precision,threads,n,seconds_median,seconds_min,seconds_max,"
          "positions_per_s,peak_bytes,agree_fraction,max_attn_error,repeat,sign,skip,"
          "skipped_fraction\n")


def test_exponents_per_path(tmp_path):
    rows = []
    for n in [64, 256, 1024, 2048, 4096, 8192, 16384, 65536, 262144]:
        # the default path is dense below 2048, then linear
        auto = 1e-9 * n * n if n < 2048 else 1e-9 * 2048 * n
        frac = "nan" if n < 2048 else "0.9"
        rows.append(f'"a S b",pe,4,avx2,f32,1,{n},{auto},{auto},{auto},1,{64 * n},1,nan,3,'
                    f"layernorm,auto,{frac}\n")
        if n <= 8192:
            dense = 1e-9 * n * n
            rows.append(f'"a S b",pe,4,avx2,f32,1,{n},{dense},{dense},{dense},1,{64 * n},1,nan,'
                        "3,layernorm,online,nan\n")
    text, fake = report(tmp_path, {"sweep-scaling.csv": HEADER + "".join(rows)})
    sc = section(text, "## Scaling with n")
    default = line(sc, "| AVX2 default |", "| n = 2048 |")
    assert "| n = 2048 | 1.00 ± " in default and "6 n, 2.1 decades) **met**" in default
    dense = line(sc, "| AVX2 dense |", "| 2.00 ± ")
    assert "| — | 2.00 ± " in dense and "6 n, 2.1 decades) **met**" in dense
    assert "dt 2 title 'AVX2 dense" in fake.bodies["scaling-time.png"]
    # a default path that never skipped is not judged as either
    never = [r.replace(",0.9\n", ",nan\n") for r in rows]
    text, _ = report(tmp_path, {"sweep-scaling.csv": HEADER + "".join(never)})
    default = line(section(text, "## Scaling with n"), "| AVX2 default |", "| never |")
    assert "| never | " in default and "*not judged: never skipped*" in default


def test_whole_run(tmp_path):
    shutil.copy(PATHS, tmp_path)
    p = subprocess.run([sys.executable, REPORT, str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "phases.tex").exists()
