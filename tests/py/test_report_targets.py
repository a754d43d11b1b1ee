# SPDX-License-Identifier: MIT
"""bench/report's targets, each in the section that measures it and again in
section Targets: online against auto on sweep-skip.csv and auto against
online on every formula (sweep-skip-suite.csv), the growth of a S b to
n = 2^20 (sweep-growth.csv, sweep-growth-stopped.txt), hard beside pe and
f64 beside f32 (sweep-hardf64.csv), the depth-6 aims (sweep-depth6.csv),
the default and dense paths per ISA (sweep-paths.csv); each from small
synthetic CSVs, each also absent. And bench/readme-results.py counting the
rows by status into the README, with a link to them."""
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "..", "bench", "report")
README_RESULTS = os.path.join(HERE, "..", "..", "bench", "readme-results.py")

HEADER = ("formula,mode,scale,isa,precision,threads,n,seconds_median,seconds_min,seconds_max,"
          "positions_per_s,peak_bytes,agree_fraction,max_attn_error,repeat,sign,skip,"
          "skipped_fraction,version,cpu,cores,memory_bytes,kernel,build,commit,date\n")
DEPTH4 = "(a S (b & X (c U Y a))) | G (b -> Y a)"
DEPTH6 = "G (a -> X (b U (c & Y (a S (b & X c)))))"


def row(f, sec, n=4096, mode="pe", mu=8, skip="auto", prec="f32", peak=1000, agree=1,
        frac="nan", isa="avx2"):
    return (f'"{f}",{mode},{mu},{isa},{prec},1,{n},{sec},{sec},{sec},1e6,{peak},{agree},'
            f'nan,3,layernorm,{skip},{frac},"hardsoft 0.3.0","cpu",2,1000,"Linux",'
            f'"cc","abc","2026-11-25T10:00:00Z"\n')


def run(tmp_path, files):
    for name, rows in files.items():
        text = rows if name.endswith(".txt") else HEADER + "".join(rows)
        (tmp_path / name).write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, REPORT, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return (tmp_path / "REPORT.md").read_text(encoding="utf-8")


def section(text, start):
    return text.split(start, 1)[1].split("\n## ", 1)[0]


def line(text, *parts):
    """The one table line containing every part."""
    found = [l for l in text.splitlines() if all(p in l for p in parts)]
    assert len(found) == 1, (parts, found)
    return found[0]


def test_every_file_absent(tmp_path):
    text = run(tmp_path, {})
    for name in ["sweep-skip.csv", "sweep-hardf64.csv", "sweep-paths.csv", "sweep-depth6.csv"]:
        assert f"{name}: not measured." in text
    l6 = section(text, "## Targets")
    for target in ["online / auto >= 20x, mu=8, n=16384", "online / auto >= 12x, mu=8, n=16384",
                   "default path: AVX2 / scalar speed-up >= 2x",
                   "default path: AVX-512 / scalar speed-up >= 3x",
                   "dense path: AVX-512 / scalar speed-up >= 8x, n=4096",
                   "auto <= 1.05x online, every formula", "t(n=262144) / t(n=16384) <= 64x",
                   "n=1048576 runs (agreement 1)", "hard / pe <= 1.0x, f32",
                   "f64 / f32 <= 2.5x, pe", "depth 6, n = 65536, 1 core: <= 0.56 s"]:
        assert line(l6, target).endswith("| **not measured** |")
    absent = line(text, "| files absent |")
    assert "sweep-skip-suite.csv" in absent and "sweep-growth.csv" in absent
    assert "sweep-hardf64.csv" in absent
    # information rows belong to their own section only, and with no data there is none
    assert "(information)" not in text


def test_auto_against_online_at_16384(tmp_path):
    rows = [row("a S b", 0.01, n=16384, skip="auto", frac="0.95"),
            row("a S b", 0.21, n=16384, skip="online"),
            row(DEPTH4, 0.10, n=16384, skip="auto"), row(DEPTH4, 1.15, n=16384, skip="online"),
            # mu = 32 and n = 4096 belong to the skipping table, not to the target
            row("a S b", 0.01, n=16384, mu=32, skip="auto"),
            row("a S b", 0.99, n=16384, mu=32, skip="online")]
    text = run(tmp_path, {"sweep-skip.csv": rows})
    l6 = section(text, "## Targets")
    asb = line(l6, "online / auto >= 20x")
    assert "| 210 vs 10.0 ms | 21.00× | **met** |" in asb
    d4 = line(l6, "online / auto >= 12x")
    assert "| 1150 vs 100 ms | 11.50× | **missed** |" in d4
    assert line(section(text, "## Exact skipping"), "online / auto >= 20x") == asb


def test_suite_every_formula(tmp_path):
    ok = [row("a S b", 0.00104, skip="auto", frac="0.9"), row("a S b", 0.001, skip="online"),
          row("X a", 0.002, skip="auto"), row("X a", 0.0021, skip="online")]
    text = run(tmp_path, {"sweep-skip-suite.csv": ok})
    m = section(text, "## Exact skipping")
    assert line(m, "| `a S b` | avx2 | 4096 |").endswith("| 1.04 | 1.00 | 0.96× | 0.900 | no |")
    assert line(m, "| `X a` | avx2 | 4096 |").endswith("| 2.00 | 2.10 | 1.05× | — | no |")
    target = line(section(text, "## Targets"), "auto <= 1.05x online")
    assert "worst of 2: `a S b`, avx2; 0 formula(s) over" in target
    assert target.endswith("| 1.04 vs 1.00 ms | 1.04× | **met** |")

    slow = ok + [row("Y a", 0.0015, skip="auto"), row("Y a", 0.001, skip="online"),
                 # another n: in the table, not in the target
                 row("G a", 0.009, n=256, skip="auto"), row("G a", 0.001, n=256, skip="online")]
    text = run(tmp_path, {"sweep-skip-suite.csv": slow})
    m = section(text, "## Exact skipping")
    assert line(m, "| `Y a` |").endswith("| 0.67× | — | **auto slower** |")
    assert line(m, "| `G a` | avx2 | 256 |").endswith("| **auto slower** |")
    target = line(section(text, "## Targets"), "auto <= 1.05x online")
    assert "worst of 3: `Y a`, avx2; 1 formula(s) over" in target
    assert target.endswith("| 1.50 vs 1.00 ms | 1.50× | **missed** |")


def growth(t18, big_agree=1, big=True):
    rows = [row("a S b", 0.02, n=16384, frac="0.95", peak=900000),
            row("a S b", t18, n=262144, peak=15 * 2 ** 20)]
    if big:
        rows.append(row("a S b", 5.0, n=1048576, peak=60 * 2 ** 20, agree=big_agree))
    return rows


def test_growth(tmp_path):
    text = run(tmp_path, {"sweep-growth.csv": growth(1.0)})
    m = section(text, "## Exact skipping")
    assert line(m, "| 16384 | avx2 |").endswith("| 20.0 | 879 KiB | 1 | 0.950 | — | — |")
    assert line(m, "| 262144 | avx2 |").endswith(
        f"| 1000 | 15.0 MiB | 1 | — | 50.00× | {math.log(50) / math.log(16):.3g} |")
    assert line(m, "| 1048576 | avx2 |").endswith(f"| 5.00× | {math.log(5) / math.log(4):.3g} |")
    l6 = section(text, "## Targets")
    assert line(l6, "t(n=262144) / t(n=16384) <= 64x (dense: 256x)").endswith(
        "| 1000 vs 20.0 ms | 50.00× | **met** |")
    big = line(l6, "n=1048576 runs (agreement 1)")
    assert "agreement 1 | 5.00 s, 60.0 MiB peak | — | **met** |" in big

    text = run(tmp_path, {"sweep-growth.csv": growth(1.4, big_agree=0.99)})
    l6 = section(text, "## Targets")
    assert line(l6, "t(n=262144) / t(n=16384)").endswith("| 70.00× | **missed** |")
    assert line(l6, "n=1048576 runs").endswith("| **missed** |")
    assert "agreement 0.9900" in line(l6, "n=1048576 runs")


def test_growth_stopped(tmp_path):
    stop = "n = 1048576: stopped by the suite after 60 s (timeout; HS_BENCH_GROWTH_LIMIT)\n"
    text = run(tmp_path, {"sweep-growth.csv": growth(1.0, big=False),
                          "sweep-growth-stopped.txt": stop})
    m = section(text, "## Exact skipping")
    assert "sweep-growth-stopped.txt: n = 1048576: stopped by the suite after 60 s" in m
    big = line(section(text, "## Targets"), "n=1048576 runs")
    assert big.endswith("| n = 1048576: stopped by the suite after 60 s (timeout; "
                        "HS_BENCH_GROWTH_LIMIT) | — | **missed** |")
    # a smoke run's stop names another n: the target's run is simply absent
    text = run(tmp_path, {"sweep-growth-stopped.txt": "n = 4096: stopped by the suite\n"})
    assert line(section(text, "## Targets"),
                "n=1048576 runs").endswith("| **not measured** |")


def test_hard_and_f64(tmp_path):
    rows = []
    for f, hard32, pe32, hard64, pe64 in [("a S b", 0.002, 0.0025, 0.004, 0.005),
                                         (DEPTH4, 0.003, 0.002, 0.030, 0.006)]:
        rows += [row(f, hard32, mode="hard", mu=0), row(f, pe32, mu=4),
                 row(f, hard64, mode="hard", mu=0, prec="f64"), row(f, pe64, mu=4, prec="f64")]
    text = run(tmp_path, {"sweep-hardf64.csv": rows})
    m = section(text, "## hard beside pe")
    assert line(m, "| `a S b` | avx2 | 4096 |").endswith(
        "| 2.00 | 2.50 | 4.00 | 5.00 | 0.80× | 0.80× | 2.00× | 2.00× |")
    l6 = section(text, "## Targets")
    assert line(l6, "hard / pe <= 1.0x", "`a S b`").endswith("| 0.80× | **met** |")
    assert line(l6, "hard / pe <= 1.0x", "G (b").endswith("| 1.50× | **missed** |")
    assert line(l6, "f64 / f32 <= 2.5x", "`a S b`").endswith("| 2.00× | **met** |")
    assert line(l6, "f64 / f32 <= 2.5x", "G (b").endswith("| 3.00× | **missed** |")
    assert "(information)" not in l6
    assert line(m, "f64 / f32, hard, n=4096 (information)", "G (b").endswith(
        "| 30.0 vs 3.00 ms | 10.00× | information |")


def test_depth6_aim(tmp_path):
    for sec, status in [(0.5, "**met**"), (0.6, "**missed**")]:
        text = run(tmp_path, {"sweep-depth6.csv": [row(DEPTH6, sec, n=65536, mu=4,
                                                       peak=9 * 2 ** 20)]})
        l6 = section(text, "## Targets")
        assert line(l6, "<= 0.56 s (5x under 2.8 s)").endswith(
            f"| {sec:.2f} s, 9.0 MiB peak | — | {status} |")
        # the older depth-6 target stays
        assert line(l6, "< 10 s and < 64 MiB peak").endswith("| **met** |")


def test_bad_cell(tmp_path):
    (tmp_path / "sweep-growth.csv").write_text(HEADER + row("a S b", "fast"),
                                               encoding="utf-8")
    r = subprocess.run([sys.executable, REPORT, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.strip() == ("report: error: sweep-growth.csv:2: column "
                                "seconds_median: 'fast' is not a number")


def test_commands_listed(tmp_path):
    text = run(tmp_path, {})
    cmds = text.split("```sh", 1)[1].split("```", 1)[0]
    assert '--csv "$OUT/sweep-skip-suite.csv"' in cmds
    assert '--csv "$OUT/sweep-hardf64.csv"' in cmds
    assert 'if timeout "$growth_limit" "$HS" bench' in cmds
    assert "  rc=$?\n  [ $rc = 124 ] || exit $rc\n" in cmds
    assert 'growth_limit=${HS_BENCH_GROWTH_LIMIT:-60}' in cmds


def test_readme_counts_the_targets(tmp_path):
    report = run(tmp_path, {"sweep-depth6.csv": [row(DEPTH6, 0.5, n=65536, mu=4)],
                            "sweep-growth.csv": growth(1.0)})
    (tmp_path / "kernels.md").write_text(
        "# k\n\n## Targets\n\n| t | status | m |\n|---|---|---|\n| a | **met** | x |\n"
        "| b | **missed** | y |\n| c | **missed** | z |\n\n## softmax\n\n| d | **met** |\n",
        encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("x\n<!-- results:begin -->\nold\n<!-- results:end -->\n",
                      encoding="utf-8")
    r = subprocess.run([sys.executable, README_RESULTS, str(tmp_path), str(readme)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = readme.read_text(encoding="utf-8")
    assert "issue" not in text.lower()
    # the rows stay in the report; the README counts them and links there
    targets = section(report, "## Targets")
    assert line(targets, "<= 0.56 s (5x under 2.8 s)").endswith("| **met** |")
    assert line(targets, "t(n=262144) / t(n=16384)").endswith("| 50.00× | **met** |")
    assert line(targets, "auto <= 1.05x online").endswith("| **not measured** |")
    assert "<= 0.56 s (5x under 2.8 s)" not in text
    rows = targets.splitlines()
    met = sum(l.endswith("| **met** |") for l in rows)
    unmeasured = sum(l.endswith("| **not measured** |") for l in rows)
    assert met and unmeasured and met + unmeasured == sum(l.endswith("** |") for l in rows)
    forward = text.split("for the forward pass ", 1)[1].split(" (", 1)[0]
    assert sorted(forward.split(", ")) == sorted([f"{met} met", f"{unmeasured} not measured"])
    assert "(REPORT.md#targets)" in text
    assert "Sleef and glibc, 2 missed, 1 met ([kernels.md, section Targets](kernels.md#targets))" in text
