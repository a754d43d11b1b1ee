# SPDX-License-Identifier: MIT
"""bench/compare-kernels.py (each side's fastest round, the 10% verdicts,
rows on one side only, no partial output on bad input) and the report's
use of kernels-compare.json (the Kernels section and its Targets row)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "compare-kernels.py")
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))

from report.context import Report  # noqa: E402
from report.main import build  # noqa: E402
from test_report_phases import FakePlot, line, section  # noqa: E402


def bench_file(path, times, unit="ns"):
    rows = [{"name": n, "run_name": n, "run_type": "iteration", "real_time": t,
             "time_unit": unit} for n, t in times.items()]
    path.write_text(json.dumps({"context": {"cpu_model": "test cpu"}, "benchmarks": rows}),
                    encoding="utf-8")
    return str(path)


def run(tmp_path, *runs):
    out_json, out_md = tmp_path / "c.json", tmp_path / "c.md"
    p = subprocess.run([sys.executable, SCRIPT, "--base-commit", "a" * 40, "--new-commit",
                        "b" * 40, "--settings", "test", "--json", str(out_json), "--md",
                        str(out_md)] + list(runs), capture_output=True, text=True)
    return p, out_json, out_md


def test_fastest_round_and_verdicts(tmp_path):
    b1 = bench_file(tmp_path / "b1.json", {"k/avx2/1": 100, "k/avx2/2": 50, "k/scalar/1": 10,
                                           "gone/avx2/1": 5})
    b2 = bench_file(tmp_path / "b2.json", {"k/avx2/1": 300, "k/avx2/2": 52, "k/scalar/1": 10})
    # new in microseconds: 0.13 us = 130 ns
    n1 = bench_file(tmp_path / "n1.json", {"k/avx2/1": 0.13, "k/avx2/2": 0.04,
                                           "k/scalar/1": 0.0105, "new/avx2/1": 0.001}, "us")
    n2 = bench_file(tmp_path / "n2.json", {"k/avx2/1": 0.125, "k/avx2/2": 0.09,
                                           "k/scalar/1": 0.0108}, "us")
    p, out_json, out_md = run(tmp_path, f"base={b1}", f"new={n1}", f"base={b2}", f"new={n2}")
    assert p.returncode == 0, p.stderr
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    rows = {r["name"]: r for r in doc["rows"]}
    # fastest rounds: 100 vs 125 (slower by 25%), 50 vs 40 (faster), 10 vs 10.5
    assert rows["k/avx2/1"]["base"] == 100 and abs(rows["k/avx2/1"]["new"] - 125) < 1e-9
    assert rows["k/avx2/1"]["verdict"] == "slower"
    assert rows["k/avx2/2"]["verdict"] == "faster"
    assert rows["k/scalar/1"]["verdict"] == "same"
    assert doc["summary"]["slower"] == ["k/avx2/1"] and doc["summary"]["faster"] == 1
    assert doc["only_base"] == ["gone/avx2/1"] and doc["only_new"] == ["new/avx2/1"]
    md = out_md.read_text(encoding="utf-8")
    assert "| `k/avx2/1` | 100 | 125 | 1.250 | **slower** |" in md
    assert "Slower rows: `k/avx2/1`." in md


def test_bad_input_writes_nothing(tmp_path):
    b = bench_file(tmp_path / "b.json", {"k/avx2/1": 1})
    bad = tmp_path / "n.json"
    bad.write_text("{not json", encoding="utf-8")
    p, out_json, out_md = run(tmp_path, f"base={b}", f"new={bad}")
    assert p.returncode != 0 and "n.json" in p.stderr and p.stderr.count("\n") == 1
    assert not out_json.exists() and not out_md.exists()
    p, out_json, _ = run(tmp_path, f"old={b}")
    assert p.returncode != 0 and "expected base=FILE or new=FILE" in p.stderr
    assert not out_json.exists()


def test_list_slower(tmp_path):
    """The rows the script re-runs before its verdict: slower so far, by
    the fastest rounds; nothing written."""
    b = bench_file(tmp_path / "b.json", {"k/avx2/1": 100, "k/avx2/2": 100, "k/avx2/3": 100,
                                         "k/avx2/4": 100})
    n1 = bench_file(tmp_path / "n1.json", {"k/avx2/1": 150, "k/avx2/2": 150, "k/avx2/3": 105,
                                           "k/avx2/4": 80})
    n2 = bench_file(tmp_path / "n2.json", {"k/avx2/1": 120, "k/avx2/2": 105})
    p = subprocess.run([sys.executable, SCRIPT, "--list-slower", f"base={b}", f"new={n1}",
                        f"new={n2}"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["k/avx2/1"]
    assert sorted(os.listdir(tmp_path)) == ["b.json", "n1.json", "n2.json"]
    p = subprocess.run([sys.executable, SCRIPT, f"base={b}", f"new={n1}"],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "--json and --md are required" in p.stderr


def report(tmp_path, doc):
    if doc is not None:
        (tmp_path / "kernels-compare.json").write_text(json.dumps(doc), encoding="utf-8")
    return build(Report(str(tmp_path)), FakePlot())


def doc_with(slower):
    rows = [{"name": "k/avx2/1", "base": 100.0, "new": 130.0 if slower else 101.0,
             "ratio": 1.3 if slower else 1.01, "verdict": "slower" if slower else "same"}]
    return {"base_commit": "c" * 40, "new_commit": "d" * 40, "settings": "s", "seconds": 1,
            "threshold": 0.1, "rows": rows, "only_base": [], "only_new": [],
            "summary": {"rows": 1, "slower": ["k/avx2/1"] if slower else [],
                        "faster": 0, "same": 0 if slower else 1,
                        "median_ratio": rows[0]["ratio"]}}


def test_report_compare(tmp_path):
    text = report(tmp_path, doc_with(True))
    k = section(text, "## Kernels")
    assert "1 rows, 1 slower by more than 10%" in k
    assert line(k, "| `k/avx2/1` |").endswith("| 100 | 130 | 1.30× | slower |")
    t = section(text, "## Targets")
    assert line(t, "no kernel row slower").endswith(
        "| 1 of 1 rows slower than at cccccccccccc by > 10% | 1.30× (median) | **missed** |")


def test_report_compare_met_and_absent(tmp_path):
    text = report(tmp_path, doc_with(False))
    assert line(section(text, "## Targets"), "no kernel row slower").endswith("| **met** |")
    other = tmp_path / "absent"
    other.mkdir()
    text = report(other, None)
    assert "Kernel rows against this machine's last published ones: not measured" in text
    assert line(section(text, "## Targets"), "no kernel row slower").endswith(
        "| **not measured** |")


def test_report_compare_of_another_machine(tmp_path):
    """A comparison run on another machine than the folder's does not
    count for it."""
    doc = doc_with(False)
    doc["machine"] = "intel-f6-m167-s1-avx512"
    (tmp_path / "info.txt").write_text("machine id: amd-f25-m17-s1-avx512\n", encoding="utf-8")
    (tmp_path / "sweep-isa.csv").write_text(
        "formula,mode,scale,isa,precision,threads,n,seconds_median,seconds_min,seconds_max,"
        "positions_per_s,peak_bytes,agree_fraction,max_attn_error,cpu,cores,memory_bytes,"
        'kernel,build,commit,date\n"a S b",pe,4,avx2,f32,1,64,1,1,1,1,1,1,0,"AMD EPYC",2,1,'
        '"Linux","cc","abc","2026-12-01T00:00:00Z"\n', encoding="utf-8")
    text = report(tmp_path, doc)
    assert ("kernels-compare.json was measured on `intel-f6-m167-s1-avx512`, not on this "
            "folder's machine `amd-f25-m17-s1-avx512`") in section(text, "## Kernels")
    assert line(section(text, "## Targets"), "no kernel row slower").endswith(
        "| measured on `intel-f6-m167-s1-avx512`, not `amd-f25-m17-s1-avx512` | — | "
        "**not measured** |")
    doc["machine"] = "amd-f25-m17-s1-avx512"
    assert line(section(report(tmp_path, doc), "## Targets"),
                "no kernel row slower").endswith("| **met** |")


def test_no_earlier_results_for_this_machine(tmp_path):
    """A machine with no results of its own is compared with nothing (not
    with another machine's table), and the report says so."""
    out_json, out_md = tmp_path / "c.json", tmp_path / "c.md"
    p = subprocess.run([sys.executable, SCRIPT, "--no-earlier", "--machine", "amd-f25-m17-s1-avx512",
                        "--json", str(out_json), "--md", str(out_md)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    assert doc == {"machine": "amd-f25-m17-s1-avx512",
                   "no_earlier": "no earlier results for this machine"}
    assert "No earlier results for this machine (`amd-f25-m17-s1-avx512`)" in \
        out_md.read_text(encoding="utf-8")
    text = report(tmp_path, doc)
    assert ("Kernel rows against this machine's last published ones: no earlier results "
            "for this machine (`amd-f25-m17-s1-avx512`): nothing to compare with.") in text
    assert line(section(text, "## Targets"), "no kernel row slower").endswith(
        "| no earlier results for this machine (`amd-f25-m17-s1-avx512`) | — | "
        "**not measured** |")
    p = subprocess.run([sys.executable, SCRIPT, "--no-earlier", "--json", str(out_json),
                        "--md", str(out_md)], capture_output=True, text=True)
    assert p.returncode != 0 and "--no-earlier needs --machine" in p.stderr


def labelled_file(path, rows):
    """rows: {name: (ns, label)}"""
    out = [{"name": n, "run_name": n, "run_type": "iteration", "real_time": t,
            "time_unit": "ns", "label": lab} for n, (t, lab) in rows.items()]
    path.write_text(json.dumps({"context": {}, "benchmarks": out}), encoding="utf-8")
    return str(path)


def objects(root, sources):
    """Compiles {name: C source} to root/name.o with -g (debug sections
    name the directory, which differs between the two builds)."""
    root.mkdir()
    for name, src in sources.items():
        (root / f"{name}.c").write_text(src, encoding="utf-8")
        subprocess.run(["cc", "-O2", "-g", "-c", f"{name}.c", "-o", f"{name}.o"], cwd=root,
                       check=True)
    return str(root)


def test_same_code(tmp_path):
    """A row slower beyond 10% is *same code* when the object defining its
    label's symbol has the same instructions and constants in both
    builds; a changed instruction, a changed constant or a label that
    names no symbol keeps the verdict slower."""
    table = "static const float t[4] = {1, 2, 3, %s};\n" \
            "float hs_k3(int i) { return t[i & 3]; }\n"
    base = objects(tmp_path / "base", {
        "k1": "float hs_k1(float x) { return x * 2.0f; }\n",
        "k2": "float hs_k2(float x) { return x * 2.0f; }\n",
        "k3": table % "4"})
    new = objects(tmp_path / "new", {
        "k1": "float hs_k1(float x) { return x * 2.0f; }\n",
        "k2": "float hs_k2(float x) { return x * 3.0f + 1.0f; }\n",
        "k3": table % "5"})
    labels = {"k/scalar/1": "hs_k1", "k/scalar/2": "hs_k2", "k/scalar/3": "hs_k3",
              "k/scalar/4": "no_such_symbol", "k/scalar/5": "hs_k1"}
    b = labelled_file(tmp_path / "b.json", {n: (100, lab) for n, lab in labels.items()})
    n = labelled_file(tmp_path / "n.json", {n: (100 if n == "k/scalar/5" else 130, lab)
                                           for n, lab in labels.items()})
    objs = ["--base-objs", base, "--new-objs", new]
    p, out_json, out_md = run(tmp_path, *objs, f"base={b}", f"new={n}")
    assert p.returncode == 0, p.stderr
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    verdicts = {r["name"]: r["verdict"] for r in doc["rows"]}
    assert verdicts == {"k/scalar/1": "same code", "k/scalar/2": "slower",
                        "k/scalar/3": "slower", "k/scalar/4": "slower",
                        "k/scalar/5": "same"}
    assert doc["summary"]["slower"] == ["k/scalar/2", "k/scalar/3", "k/scalar/4"]
    assert doc["summary"]["same_code"] == ["k/scalar/1"]
    md = out_md.read_text(encoding="utf-8")
    assert "| `k/scalar/1` | 100 | 130 | 1.300 | same code |" in md
    assert "Slower with the same kernel code: `k/scalar/1`." in md
    # the rows confirmed by more rounds are the slower ones only
    p = subprocess.run([sys.executable, SCRIPT, "--list-slower", *objs, f"base={b}",
                        f"new={n}"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.split() == ["k/scalar/2", "k/scalar/3", "k/scalar/4"]
    # without the objects every row slower beyond 10% is slower
    p, out_json, _ = run(tmp_path, f"base={b}", f"new={n}")
    assert json.loads(out_json.read_text(encoding="utf-8"))["summary"]["same_code"] == []
    p, _, _ = run(tmp_path, "--base-objs", base, f"base={b}", f"new={n}")
    assert p.returncode != 0 and "go together" in p.stderr


def test_report_same_code(tmp_path):
    """A row slower with its kernel's code identical in both builds is
    quoted beside the slower ones but does not miss the target."""
    doc = doc_with(False)
    doc["rows"].append({"name": "dot/scalar/64", "base": 7.5, "new": 9.6, "ratio": 1.28,
                        "verdict": "same code"})
    doc["summary"].update(rows=2, same_code=["dot/scalar/64"])
    text = report(tmp_path, doc)
    k = section(text, "## Kernels")
    assert "1 more rows were slower by more than 10% with their kernel's object code" in k
    assert line(k, "| `dot/scalar/64` |").endswith("| 7.5 | 9.6 | 1.28× | same code |")
    t = line(section(text, "## Targets"), "no kernel row slower")
    assert "0 of 2 rows slower" in t and "(1 more with identical kernel code)" in t
    assert t.endswith("| **met** |")
