# SPDX-License-Identifier: MIT
"""bench/report on a user's own run: a folder holding only CSVs of
`hardsoft bench` and `hardsoft boundary` under names of their own gets its
provenance, a table and a plot per file (speed-ups from the file's own
rows), and none of the suite's sections; and a point measured by two
invocations (two files) is listed with both medians, the headline saying
why its two tables differ."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))

from report.context import Report  # noqa: E402
from report.main import build  # noqa: E402
from test_report_phases import FakePlot  # noqa: E402
from test_report_targets import BHEAD, HEADER, line, row, section  # noqa: E402


def write(d, name, text):
    (d / name).write_text(text, encoding="utf-8")


def test_a_folder_of_custom_csvs(tmp_path):
    rows = [row("a S b", t, n=n, isa=isa, mu=4) for n, isa, t in
            [(64, "scalar", 0.004), (64, "avx2", 0.001), (256, "scalar", 0.016),
             (256, "avx2", 0.004)]] + [row("Y a", 0.002, n=64, isa="avx2", mu=4)]
    write(tmp_path, "mine.csv", HEADER + "".join(rows))
    write(tmp_path, "edge.csv", BHEAD + '"a S b",pe,4,f16,2047,2048,inf\n')
    write(tmp_path, "other.csv", "x,y\n1,2\n")          # not hardsoft's: left alone
    fake = FakePlot()
    text = build(Report(str(tmp_path)), fake)
    assert "## Scaling with n" not in text and "not measured" not in text
    assert "| CPU (CSV `cpu` column: /proc/cpuinfo's model name) | cpu |" in text
    s = section(text, "## Other sweeps in this folder")
    assert line(s, "| `a S b` | pe | 4 | avx2 | f32 | 1 | auto | 256 |").endswith(
        "| 4.00× | 1.00× |")
    assert line(s, "| `Y a` | pe | 4 | avx2 |").endswith("| — | 1.00× |")
    assert line(s, "| `a S b` | pe | 4 | f16 |") == "| `a S b` | pe | 4 | f16 | 2047 | 2048 |"
    assert "other.csv" not in text
    body = fake.bodies["custom-mine.png"]
    assert body.count("using 1:2") == 3          # a S b on two ISAs, Y a on one
    assert "title 'a S b, scalar'" in body and "title 'Y a, AVX2'" in body


def test_the_same_point_in_two_runs(tmp_path):
    scal = [row("a S b", t, n=4096, isa=isa, mu=4, skip="auto") for isa, t in
            [("scalar", 0.0016), ("avx2", 0.000499)]]
    paths = [row("a S b", t, n=4096, isa=isa, mu=4, skip="auto") for isa, t in
             [("scalar", 0.00166), ("avx2", 0.00044)]]
    write(tmp_path, "sweep-scaling.csv", HEADER + "".join(scal))
    write(tmp_path, "sweep-paths.csv", HEADER + "".join(paths))
    text = build(Report(str(tmp_path)), FakePlot())
    s = section(text, "## The same configuration in more than one run")
    assert line(s, "| avx2 |").endswith(
        "| sweep-scaling.csv:3: 0.499<br>sweep-paths.csv:3: 0.44 | 1.13× |")
    assert line(s, "| scalar |").endswith(
        "| sweep-scaling.csv:2: 1.60<br>sweep-paths.csv:2: 1.66 | 1.04× |")
    head = section(text, "## Headline")
    assert "hardsoft's columns here come from sweep-scaling.csv" in head
    alone = tmp_path / "alone"
    alone.mkdir()
    write(alone, "sweep-scaling.csv", HEADER + "".join(scal))
    text = build(Report(str(alone)), FakePlot())
    assert "No point was measured by more than one `hardsoft bench` invocation." in text
    assert "hardsoft's columns here" not in text
