# SPDX-License-Identifier: MIT
"""The inputs: the CSVs of `hardsoft bench`, `hardsoft boundary` and
`hardsoft simulate` (columns found by header name), kernels.json and the
quoted Markdown files. A missing file reads as None ("not measured"); a
malformed one raises ReportError naming the file, line and column."""
import csv
import json
import math
import os
import re

BENCH_COLS = ["formula", "mode", "scale", "isa", "precision", "threads", "n",
              "seconds_median", "seconds_min", "seconds_max", "positions_per_s",
              "peak_bytes", "agree_fraction", "max_attn_error"]
BENCH_NUM = ["scale", "threads", "n", "seconds_median", "seconds_min", "seconds_max",
             "positions_per_s", "peak_bytes", "agree_fraction", "max_attn_error"]
# `hardsoft bench --phases`: seconds per phase of the forward pass (median
# over the repeats), absent from files written without it
PHASES = ["gemm", "bounds", "search", "attn", "finish", "wait"]
PHASE_COLS = [f"phase_{p}_s" for p in PHASES]
# and the keys the attention kernels took, in how many runs
ATTN_COLS = ["attn_keys", "attn_segments"]
BOUNDARY_COLS = ["formula", "mode", "scale", "precision", "largest_exact_n",
                 "first_failing_n", "real_bound_n"]
# `hardsoft simulate --csv`
SIMULATE_NUM = ["n", "strings", "positions", "mu", "gamma", "gamma_measured", "tau",
                "bound", "attn_error", "max_deviation", "agree_fraction", "heads_hard",
                "heads_uniform", "heads_tieless", "heads_tied", "heads_tied_unique",
                "gamma_before", "heads_tiebroken"]
SIMULATE_COLS = ["model", "precision", "layer_deviations"] + SIMULATE_NUM
# provenance columns; older files lack some or all of them, and bench rows
# add version (hardsoft's or a peer's)
META_COLS = ["cpu", "cores", "memory_bytes", "kernel", "build", "commit", "date",
             "version"]
# numeric columns newer than some published files: NaN where absent
LATE_COLS = {"gamma_before", "heads_tiebroken"} | set(PHASE_COLS) | set(ATTN_COLS)

# runners.csv (bench/sweep runners): a task group's time under each runner
RUNNER_COLS = ["group", "runner", "slots", "tasks", "wall_s", "rows_equal", "note"]
# (attribute, file) of every bench CSV the report reads
BENCH_FILES = [("scaling", "sweep-scaling.csv"), ("long", "sweep-scaling-long.csv"),
               ("accuracy", "sweep-accuracy.csv"), ("suite", "sweep-suite.csv"),
               ("rel_time", "sweep-rel.csv"), ("counting", "sweep-counting.csv"),
               ("threads", "sweep-threads.csv"), ("skip", "sweep-skip.csv"),
               ("isa", "sweep-isa.csv"), ("depth6", "sweep-depth6.csv"),
               ("programs", "sweep-programs.csv"), ("skip_suite", "sweep-skip-suite.csv"),
               ("growth", "sweep-growth.csv"), ("hardf64", "sweep-hardf64.csv"),
               ("paths", "sweep-paths.csv"), ("counting_scale", "sweep-counting-scale.csv")]


class ReportError(Exception):
    pass


def read_csv(path, required, numeric, ints=()):
    """Rows of a CSV as dicts (by header), numeric columns converted.
    None if the file does not exist; ReportError if malformed."""
    if not os.path.exists(path):
        return None
    name = os.path.basename(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames
            if not header:
                raise ReportError(f"{name}: empty file (no header line)")
            late = [c for c in numeric if c in LATE_COLS and c not in header]
            missing = [c for c in required if c not in header and c not in late]
            if missing:
                raise ReportError(f"{name}: header lacks column(s) {', '.join(missing)}")
            no_meta = [c for c in META_COLS if c not in header]
            rows = []
            for row in reader:
                line = reader.line_num
                if None in row or any(v is None for v in row.values()):
                    raise ReportError(f"{name}:{line}: {len(header)} columns expected, "
                                      "row has a different number")
                for c in late:
                    row[c] = math.nan
                for c in numeric:
                    if c in late:
                        continue
                    try:
                        row[c] = float(row[c])
                    except ValueError:
                        raise ReportError(f"{name}:{line}: column {c}: "
                                          f"'{row[c]}' is not a number") from None
                for c in ints:
                    v = row[c]
                    if not (isinstance(v, float) and v.is_integer() and v >= 0):
                        raise ReportError(f"{name}:{line}: column {c}: '{v}' is not a "
                                          "whole number")
                    row[c] = int(v)
                for c in no_meta:
                    row[c] = None
                row["_line"] = line
                rows.append(row)
    except csv.Error as e:
        raise ReportError(f"{name}: {e}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{name}: not UTF-8 text") from None
    return rows


def read_bench(path):
    return read_csv(path, BENCH_COLS, BENCH_NUM + PHASE_COLS + ATTN_COLS,
                    ints=["n", "threads", "peak_bytes"])


def read_boundary(path):
    rows = read_csv(path, BOUNDARY_COLS, ["scale"])
    if rows is None:
        return None
    name = os.path.basename(path)
    for r in rows:
        v = r["largest_exact_n"]
        m = re.fullmatch(r"(>?)(\d+)", v.strip())
        if not m:
            raise ReportError(f"{name}:{r['_line']}: largest_exact_n '{v}' is "
                              "neither N nor >N")
        r["exact_open"] = m.group(1) == ">"
        r["exact_n"] = int(m.group(2))
        ff = r["first_failing_n"].strip()
        if ff and not ff.isdigit():
            raise ReportError(f"{name}:{r['_line']}: first_failing_n '{ff}' is "
                              "not a whole number")
        r["fail_n"] = int(ff) if ff else None
    return rows


def read_boundary_long(path):
    """The suite's timed long boundary search: boundary.csv's columns plus
    its wall time, the suite's limit on it and the --max-n it asked for."""
    rows = read_csv(path, BOUNDARY_COLS + ["wall_s", "limit_s", "max_n"],
                    ["scale", "wall_s", "limit_s", "max_n"], ints=["max_n"])
    if rows is None:
        return None
    for r in rows:
        v = r["largest_exact_n"].strip()
        r["exact_open"] = v.startswith(">")
        if not v.lstrip(">").isdigit():
            raise ReportError(f"boundary-long.csv:{r['_line']}: largest_exact_n '{v}' is "
                              "neither N nor >N")
        r["exact_n"] = int(v.lstrip(">"))
    return rows


def read_simulate(path):
    return read_csv(path, SIMULATE_COLS, SIMULATE_NUM, ints=["n", "strings", "positions"])


def read_text(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def read_json(path):
    """A JSON file's value; None if absent or not JSON (kernels.json is
    quoted, never required)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def package_version(path):
    """The "version" of an npm package.json; None if absent or unreadable."""
    v = read_json(path)
    return v.get("version") if isinstance(v, dict) and isinstance(v.get("version"), str) \
        else None


KNOWN_CSVS = {n for _, n in BENCH_FILES} | {"boundary.csv", "boundary-long.csv",
                                           "boundary-formulas.csv", "simulate.csv",
                                           "runners.csv", "web-wasm.csv"}


def header_of(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return next(csv.reader(f), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def read_custom(d):
    """[(file name, kind, rows)] of the folder's other CSVs: a user's own
    `hardsoft bench` sweeps (kind bench) and `hardsoft boundary` searches
    (kind boundary), known by their header; other CSVs are left alone."""
    out = []
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if not name.endswith(".csv") or name in KNOWN_CSVS or not os.path.isfile(path):
            continue
        head = header_of(path)
        if all(c in head for c in BENCH_COLS):
            out.append((name, "bench", read_bench(path)))
        elif all(c in head for c in BOUNDARY_COLS):
            out.append((name, "boundary", read_boundary(path)))
    return out


class Data:
    """Every input of one results directory, by attribute (None where the
    file is absent)."""

    def __init__(self, d):
        self.dir = d
        for attr, name in BENCH_FILES:
            setattr(self, attr, read_bench(os.path.join(d, name)))
        self.boundary = read_boundary(os.path.join(d, "boundary.csv"))
        self.boundary_formulas = read_boundary(os.path.join(d, "boundary-formulas.csv"))
        self.counting_scale_stopped = read_text(os.path.join(d,
                                                             "sweep-counting-scale-stopped.txt"))
        # one group's tasks timed under each runner of the sweep
        self.runners = read_csv(os.path.join(d, "runners.csv"), RUNNER_COLS, [])
        self.simulate = read_simulate(os.path.join(d, "simulate.csv"))
        self.growth_stopped = read_text(os.path.join(d, "sweep-growth-stopped.txt"))
        self.boundary_long = read_boundary_long(os.path.join(d, "boundary-long.csv"))
        self.boundary_long_stopped = read_text(os.path.join(d, "boundary-long-stopped.txt"))
        self.kernels_md = read_text(os.path.join(d, "kernels.md"))
        self.kernels_json = os.path.exists(os.path.join(d, "kernels.json"))
        self.kernels_data = read_json(os.path.join(d, "kernels.json"))
        # bench/compare-kernels.sh: the kernel rows against the last published
        self.kernels_compare = read_json(os.path.join(d, "kernels-compare.json"))
        self.hyperfine = read_text(os.path.join(d, "hyperfine.md"))
        # examples/tasks/table.py: the literature's tasks
        self.tasks_md = read_text(os.path.join(d, "tasks.md"))
        # `hardsoft info` of the run (the machine's ID, its ISAs)
        self.info = read_text(os.path.join(d, "info.txt"))
        # CSVs of `hardsoft bench` and `hardsoft boundary` under other names
        self.custom = read_custom(d)
        # the run's commands as shell, and its record (bench/sweep merge)
        self.commands = read_text(os.path.join(d, "commands.sh"))
        self.run_record = read_json(os.path.join(d, "run.json"))

    def files(self):
        """[(file name, rows or None)] of every CSV, in report order."""
        named = dict((a, n) for a, n in BENCH_FILES)
        named["boundary_long"] = "boundary-long.csv"
        named["boundary_formulas"] = "boundary-formulas.csv"
        order = ["scaling", "long", "accuracy", "suite", "boundary", "boundary_long",
                 "simulate", "counting",
                 "threads", "skip", "isa", "depth6", "programs", "skip_suite", "growth",
                 "hardf64", "paths", "counting_scale", "boundary_formulas"]
        return [(named.get(a, a + ".csv"), getattr(self, a)) for a in order] + \
            [(name, rows) for name, _, rows in self.custom]

    def suite_files(self):
        """Whether any file of the suite (make bench) is here."""
        return any(rows is not None for name, rows in self.files()
                   if name not in {n for n, _, _ in self.custom})
