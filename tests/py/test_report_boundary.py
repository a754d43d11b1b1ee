# SPDX-License-Identifier: MIT
"""bench/report's boundary section: the significand predictions and the
table built from a boundary.csv fixture (every precision name of
`hardsoft boundary`, rel among the modes)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
REPORT = os.path.join(HERE, "..", "..", "bench", "report")

from report.sections import boundary  # noqa: E402

HEADER = ("formula,mode,scale,precision,largest_exact_n,first_failing_n,"
          "real_bound_n,cpu,build,commit,date\n")


def row(f, m, mu, p, exact, fail="", real="inf"):
    return f'"{f}",{m},{mu},{p},{exact},{fail},{real},"cpu","cc","abc","2026-01-01"\n'


def test_predictions():
    sl = boundary.significand_limit
    assert sl("a S b", "pe", 4, "f16s") == 2 ** 10     # mu (n + j) < 2 mu n
    assert sl("a U b", "pe", 4, "f16s") == 2 ** 11
    assert sl("a S b", "pe", 4, "bf16") == 2 ** 8      # keys hold j
    assert sl("a S b", "pe", 16, "f16") == 2 ** 11
    assert sl("a S b", "pe", 64, "f16") == 65504 // 64  # the query mu n overflows
    assert sl("a S b", "rel", 4, "bf16") == 2 ** 24
    assert sl("a S b", "rel", 4, "f64") == 2 ** 53
    assert sl("a S b", "fixed", 4, "f32") is None
    assert boundary.fmt_pred(2 ** 10) == "≈2^10"
    assert boundary.fmt_pred(1023) == "≈1023"


def write(tmp_path, rows):
    (tmp_path / "boundary.csv").write_text(HEADER + "".join(rows), encoding="utf-8")
    return subprocess.run([sys.executable, REPORT, str(tmp_path)],
                          capture_output=True, text=True)


def test_table(tmp_path):
    rows = []
    for p in boundary.PRECISIONS:
        low = p not in ("f64", "f32")
        rows.append(row("a S b", "pe", 4, p, "1024" if low else ">65536",
                        "1025" if low else ""))
        rows.append(row("a S b", "rel", 4, p, ">65536"))
        rows.append(row("a S b", "fixed", 4, p, "5", "6", "2"))
    r = write(tmp_path, rows)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    assert "| f64 | f32 | f16s | bf16s | f16 | bf16 |" in text
    assert "| `a S b` | pe | 4 | >65536 (≈2^52) | >65536 (≈2^23) | 1024 (≈2^10) |" in text
    assert "| `a S b` | fixed | 4 | 5 | 5 |" in text
    assert "rel in f16s, bf16s, f16, bf16: 4 of 4 cases exact up to n = 65536" in text
    assert "Where the predictions come from" in text


def test_bad_cell(tmp_path):
    r = write(tmp_path, [row("a S b", "rel", 4, "bf16", "lots")])
    assert r.returncode == 1
    assert "largest_exact_n 'lots'" in r.stderr


LONG_HEADER = HEADER.rstrip("\n") + ",wall_s,limit_s,max_n\n"


def long_target(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, REPORT, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    found = [l for l in text.split("## Targets", 1)[1].splitlines()
             if l.startswith("| rel bf16 boundary prints >1048576 within 120 s")]
    assert len(found) == 1, found
    return found[0]


def test_long_boundary_target(tmp_path):
    f = "H (a -> Y (b S c))"
    ok = row(f, "rel", 4, "bf16", ">1048576").rstrip("\n") + ",95.25,600,1048576\n"
    assert long_target(tmp_path, {"boundary-long.csv": LONG_HEADER + ok}).endswith(
        "| >1048576 in 95.2 s | — | **met** |")
    slow = ok.replace(",95.25,", ",121.0,")
    assert long_target(tmp_path, {"boundary-long.csv": LONG_HEADER + slow}).endswith(
        "| >1048576 in 121.0 s | — | **missed** |")
    # a model that failed before 2^20 misses it however fast
    failed = row(f, "rel", 4, "bf16", "4096", "4097").rstrip("\n") + ",3,600,1048576\n"
    assert "**missed**" in long_target(tmp_path, {"boundary-long.csv": LONG_HEADER + failed})


def test_long_boundary_stopped(tmp_path):
    line = long_target(tmp_path, {"boundary-long-stopped.txt":
                                  "n = 1048576: stopped by the suite after 600 s (timeout)\n"})
    assert "stopped by the suite after 600 s" in line and line.endswith("**missed** |")
    (tmp_path / "boundary-long-stopped.txt").unlink()
    assert long_target(tmp_path, {}).endswith("| **not measured** |")
