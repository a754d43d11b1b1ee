# SPDX-License-Identifier: MIT
"""The report across machines (bench/report RESULTS --machines): a column
per machine with every ratio computed inside one machine's run, the
ranges and the plot with a series per machine, a section per machine;
a folder pointed at from elsewhere joins; a malformed folder (its schema,
missing provenance, a duplicate ID, a name that is not its ID) is refused
with one line naming the file and the field, and nothing is written.

The machines are the first published folder of results/machines and a
synthetic second one: that folder copied, its CPU renamed to an AMD
EPYC's and its scalar rows made twice as slow."""
import csv
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
REPORT = os.path.join(ROOT, "bench", "report")
sys.path.insert(0, os.path.join(ROOT, "bench"))

from report import across, machine, machines  # noqa: E402
from report.context import Report  # noqa: E402
from test_report_phases import FakePlot  # noqa: E402

PUBLISHED = os.path.join(ROOT, "results", "machines")
AMD_CPU = "AMD EPYC (family 25 model 17 stepping 1)"
AMD = "amd-f25-m17-s1-avx512"


def published():
    """A published machine's folder other than the synthetic AMD's ID (the
    copy below takes that name)."""
    folders = sorted(d for d in os.listdir(PUBLISHED) if d != AMD) \
        if os.path.isdir(PUBLISHED) else []
    if not folders:
        pytest.skip("results/machines holds no published machine but " + AMD)
    return os.path.join(PUBLISHED, folders[0])


def copy_data(src, dst):
    os.makedirs(dst)
    for f in os.listdir(src):
        if f.endswith((".csv", ".json", ".txt")) or f in ("kernels.md", "hyperfine.md"):
            shutil.copy(os.path.join(src, f), dst)


def rewrite(path, fn):
    """Rewrites every row of a CSV through fn(row dict)."""
    with open(path, newline="", encoding="utf-8") as f:
        rd = csv.DictReader(f)
        head, rows = rd.fieldnames, [fn(dict(r)) for r in rd]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, head, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def slower_scalar(r):
    if r.get("isa") == "scalar" and "seconds_median" in r:
        for c in ("seconds_median", "seconds_min", "seconds_max"):
            r[c] = repr(float(r[c]) * 2)
    return r


def amd_copy(src, dst):
    """src's data as another machine's: the CPU renamed, scalar 2x slower,
    machine.json derived as bench/report derives it."""
    copy_data(src, dst)
    for f in os.listdir(dst):
        if f.endswith(".csv") and not f.startswith("web-"):
            rewrite(os.path.join(dst, f), lambda r: slower_scalar(dict(r, cpu=AMD_CPU)
                                                                  if "cpu" in r else r))
    for f in ("info.txt", "machine.json"):
        if os.path.exists(os.path.join(dst, f)):
            os.remove(os.path.join(dst, f))
    prov = Report(dst).machine
    machine.write(dst, prov)
    return prov


@pytest.fixture
def two(tmp_path):
    """RESULTS with the published machine and the synthetic AMD one."""
    src = published()
    res = tmp_path / "results"
    mine = res / "machines" / os.path.basename(src)
    copy_data(src, str(mine))
    machine.write(str(mine), Report(str(mine)).machine)
    prov = amd_copy(src, str(res / "machines" / AMD))
    assert prov["id"] == AMD and prov["vendor"] == "amd" and prov["family"] == 25
    return res, os.path.basename(src)


def run(res, *extra):
    return subprocess.run([sys.executable, REPORT, str(res), "--machines", *map(str, extra)],
                          capture_output=True, text=True)


def cells(text, label):
    """The cells after the label of the one table line starting with it."""
    found = [l for l in text.splitlines() if l.startswith(f"| {label} |")]
    assert len(found) == 1, (label, found)
    return [c.strip() for c in found[0].strip("|").split("|")[1:]]


def test_a_column_per_machine(two):
    res, xeon = two
    p = run(res)
    assert p.returncode == 0, p.stderr
    text = (res / "REPORT.md").read_text(encoding="utf-8")
    head = [l for l in text.splitlines() if l.startswith("|  | `")][0]
    assert head == f"|  | `{AMD}` | `{xeon}` |"        # columns in ID order
    # the ratio of each column is that machine's own: scalar twice as slow
    # on the AMD copy doubles its speed-up, where a ratio across machines
    # would have been the same
    amd, intel = (float(c.rstrip("×")) for c in
                  cells(text, "`a S b` n=4096 μ=4, default: AVX-512 / scalar"))
    assert amd == pytest.approx(2 * intel, rel=0.01)
    amd_ms, intel_ms = cells(text, "`a S b` n=4096 μ=4, default, scalar")
    assert float(amd_ms) == pytest.approx(2 * float(intel_ms), rel=0.01)
    # the ranges name both machines, low end from the Xeon, high from the copy
    rng = cells(text, "default path: AVX-512 / scalar")
    assert f"`{AMD}`:" in rng[1] and f"`{xeon}`:" in rng[1]
    for heading in ["## Machines", "## Targets per machine", f"## Machine `{AMD}`",
                    f"## Machine `{xeon}`"]:
        assert f"\n{heading}\n" in text, heading
    assert f"(machines/{AMD}/REPORT.md)" in text
    machines_section = text.split("## Machines\n", 1)[1].split("\n## ", 1)[0]
    assert cells(machines_section, f"`{AMD}`")[0] == AMD_CPU


def test_a_series_per_machine(two):
    res, xeon = two
    got, refused = machines.load([str(res)])
    assert refused == [] and [p["id"] for p, _ in got] == [AMD, xeon]
    fake = FakePlot()
    across.write(str(res), got, fake)
    body = fake.bodies["machines-scaling.png"]
    first_panel = body.split("set title")[1]
    assert first_panel.count(" title '") == 2
    assert f"title '{AMD} (avx512)'" in first_panel and f"title '{xeon} (avx512)'" in first_panel


def test_a_folder_from_elsewhere_joins(two, tmp_path):
    res, xeon = two
    elsewhere = tmp_path / "theirs"
    shutil.move(str(res / "machines" / AMD), str(elsewhere / AMD))
    p = run(res)
    assert p.returncode == 0, p.stderr
    assert f"`{AMD}`" not in (res / "REPORT.md").read_text(encoding="utf-8")
    p = run(res, elsewhere / AMD)
    assert p.returncode == 0, p.stderr
    text = (res / "REPORT.md").read_text(encoding="utf-8")
    assert f"## Machine `{AMD}`" in text and f"(../theirs/{AMD}/REPORT.md)" in text


def refused(res, *extra):
    """The one line of a refused run; REPORT.md left as it was."""
    before = (res / "REPORT.md").read_bytes() if (res / "REPORT.md").exists() else None
    p = run(res, *extra)
    assert p.returncode == 1
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("report: refused: "), p.stderr
    after = (res / "REPORT.md").read_bytes() if (res / "REPORT.md").exists() else None
    assert after == before
    return lines[0][len("report: refused: "):]


def test_missing_provenance(two):
    res, _ = two
    amd = res / "machines" / AMD
    os.remove(amd / "machine.json")
    assert refused(res) == f"{amd}/machine.json: missing (the folder's provenance, written " \
        "by bench/report and make bench)"
    machine.write(str(amd), Report(str(amd)).machine)
    # rows without the provenance columns
    with open(amd / "sweep-paths.csv", newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    cut = table[0].index("cpu")
    with open(amd / "sweep-paths.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(r[:cut] + r[cut + 1:] for r in table)
    assert refused(res) == f"{amd}/sweep-paths.csv: cpu: column missing (rows without " \
        "provenance)"


def test_another_schema(two):
    res, _ = two
    amd = res / "machines" / AMD
    path = amd / "sweep-threads.csv"
    text = path.read_text(encoding="utf-8").replace("seconds_median", "seconds_p50", 1)
    path.write_text(text, encoding="utf-8")
    assert refused(res) == f"{amd}/sweep-threads.csv: header lacks column(s) seconds_median"


def test_a_machine_json_of_another_schema(two):
    res, _ = two
    path = res / "machines" / AMD / "machine.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"schema": 1', '"schema": 2'),
                    encoding="utf-8")
    assert refused(res) == f"{path}: schema: 2, this report reads 1"


def test_rows_of_another_cpu(two):
    res, xeon = two
    amd = res / "machines" / AMD
    rewrite(str(amd / "sweep-isa.csv"), lambda r: dict(r, cpu="Intel(R) Core(TM) i9"))
    assert refused(res) == (f"{amd}/sweep-isa.csv:2: cpu: 'Intel(R) Core(TM) i9', where "
                            f"machine.json says '{AMD_CPU}'")


def test_duplicate_id(two, tmp_path):
    res, xeon = two
    other = tmp_path / "theirs" / xeon
    amd_copy(str(res / "machines" / xeon), str(other))
    # the copy derives its own ID; claim the Xeon's
    prov = machine.load(str(other))
    prov["id"] = xeon
    machine.write(str(other), prov)
    line = refused(res, other)
    assert line == (f"{other}/machine.json: id: '{xeon}' is also {res}/machines/{xeon}'s, whose "
                    f"cpu differs ('{AMD_CPU}' against "
                    f"'{machine.load(str(res / 'machines' / xeon))['cpu']}')")
    # the same machine given twice
    assert refused(res, res / "machines" / xeon).endswith("the same machine given twice")


def test_folder_named_otherwise(two):
    res, _ = two
    shutil.move(str(res / "machines" / AMD), str(res / "machines" / "amd-box"))
    assert refused(res) == (f"{res}/machines/amd-box/machine.json: id: '{AMD}', but the "
                            "folder is named 'amd-box'")


def test_counting_rows_across(two):
    """A machine's counting rows: t(2^20) / t(2^16) in its column, where
    the suite stopped one, the length it stopped at."""
    res, xeon = two
    amd = res / "machines" / AMD
    with open(amd / "sweep-isa.csv", newline="", encoding="utf-8") as f:
        rd = csv.DictReader(f)
        head, base = rd.fieldnames, next(rd)
    rows = [dict(base, formula="#<(a) > #<(b)", mode=m, isa="avx512", n=str(n),
                 seconds_median=repr(t), skip="auto")
            for m, n, t in [("pe", 65536, 0.01), ("pe", 1048576, 0.17), ("rel", 65536, 3.0)]]
    with open(amd / "sweep-counting-scale.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, head, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    (amd / "sweep-counting-scale-stopped.txt").write_text(
        "#<(a) > #<(b) rel n = 131072: stopped by the suite after 10 s (timeout; "
        "HS_BENCH_COUNT_LIMIT); larger n not run\n", encoding="utf-8")
    p = run(res)
    assert p.returncode == 0, p.stderr
    text = (res / "REPORT.md").read_text(encoding="utf-8")
    assert cells(text, "counting, `#<(a) > #<(b)` pe: t(2^20) / t(2^16)") == ["17.00×", "—"]
    assert cells(text, "counting, `#<(a) > #<(b)` rel: t(2^20) / t(2^16)") == [
        "n = 131072: stopped", "—"]
    assert cells(text, "counting: t(2^20) / t(2^16)")[0] == "17.00×"
