#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write RESULTS_DIR/REPORT.md and its plots from the CSVs of `make bench`.

    /usr/bin/python3 bench/report.py RESULTS_DIR

Reads (each optional; a missing one is reported as "not measured"):
  sweep-scaling.csv (+ sweep-scaling-long.csv)  time, memory against n
  sweep-accuracy.csv                            agreement, attention error against mu
  sweep-suite.csv                               bench/formulas.txt, f32 and f64
  boundary.csv                                  largest exact n per precision
  sweep-rel.csv                                 rel beside pe, forward-pass time
  sweep-skip-suite.csv, sweep-growth.csv (+ sweep-growth-stopped.txt),
  sweep-hardf64.csv                             issue 14's targets (section m)
  simulate.csv                                  hard models simulated by softmax
  kernels.md / kernels.json                     kernel microbenchmarks (quoted)
  hyperfine.md                                  whole-process timings (quoted)
and writes REPORT.md plus scaling-*.png, accuracy-*.png and boundary.png (gnuplot, when
installed). The CSV columns are those of `hardsoft bench` and `hardsoft
boundary` (src/cli/bench.c, src/cli/boundary.c), found by header name.
Every number in the report is computed here from those files. Standard
library only; deterministic (no clock, no randomness: only git, asked
whether src/ and simd/ changed since the data's commit); REPORT.md and the
PNGs are written to temporary names and renamed into place. Exit status 1
with one line "report.py: error: ..." on malformed input.

Provenance comes from the CSV rows themselves (cpu, cores, memory_bytes,
kernel, build, commit, date; bench rows add version: hardsoft's or the
peer's own), kernels.json (Google Benchmark, oneDNN, XNNPACK, Sleef) and
hyperfine.md (hyperfine); it heads the report, and a one-line stamp is
written in a corner of every plot. Growth exponents carry their standard
error and 95% interval (fit_loglog) and are judged by judge_slope.
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import NamedTuple

LN7 = math.log(7.0)
HS_ISAS = ["scalar", "avx2", "avx512"]
PEERS = ["numpy", "torch", "openblas", "ort"]
ISA_LABEL = {"scalar": "scalar", "avx2": "AVX2", "avx512": "AVX-512",
             "numpy": "NumPy", "torch": "PyTorch", "openblas": "OpenBLAS",
             "ort": "ONNX Runtime"}
MODES = ["hard", "pe", "temp", "fixed", "rel"]
# boundary precisions: f16s/bf16s round the scores q.k, f16/bf16 store the
# queries, keys and values in the format (hardsoft boundary --precision)
PRECISIONS = ["f64", "f32", "f16s", "bf16s", "f16", "bf16"]
SIGNIFICAND = {"f64": 53, "f32": 24, "f16s": 11, "f16": 11, "bf16s": 8, "bf16": 8}
F16_MAX = 65504.0
BENCH_COLS = ["formula", "mode", "scale", "isa", "precision", "threads", "n",
              "seconds_median", "seconds_min", "seconds_max", "positions_per_s",
              "peak_bytes", "agree_fraction", "max_attn_error"]
BOUNDARY_COLS = ["formula", "mode", "scale", "precision", "largest_exact_n",
                 "first_failing_n", "real_bound_n"]
# `hardsoft simulate --csv` (src/cli/simulate.c)
SIMULATE_NUM = ["n", "strings", "positions", "mu", "gamma", "gamma_measured", "tau",
                "bound", "attn_error", "max_deviation", "agree_fraction", "heads_hard",
                "heads_uniform", "heads_tieless", "heads_tied", "heads_tied_unique",
                "gamma_before", "heads_tiebroken"]
SIMULATE_COLS = ["model", "precision", "layer_deviations"] + SIMULATE_NUM
# provenance columns (cli_meta_columns, src/cli/main.c); older files lack
# some or all of them, and bench rows add version (hardsoft's or a peer's)
META_COLS = ["cpu", "cores", "memory_bytes", "kernel", "build", "commit", "date",
             "version"]
# columns newer than some published files: NaN where absent
LATE_COLS = {"gamma_before", "heads_tiebroken"}
# targets of the scaling section
EXP_LO, EXP_HI = 1.9, 2.1          # time ~ n^2 (one attention row per query)
MEM_LO, MEM_HI = 0.85, 1.15        # peak memory ~ n (no n x n matrix)
# Growth exponents are fitted over every length measured (FIT_MIN_N = 0)
# and judged only with at least FIT_MIN_POINTS lengths spanning
# FIT_MIN_DECADES decades of n.
FIT_MIN_N = 0
FIT_MIN_POINTS, FIT_MIN_DECADES = 5, 2.0
NM = "not measured"
# issue 14's targets (section m; the rows also go into section l)
DEPTH4 = "(a S (b & X (c U Y a))) | G (b -> Y a)"
I14_SKIP_N, I14_SKIP_WANT = 16384, {"a S b": 5, DEPTH4: 2}   # online / auto, mu = 8
I14_SUITE_N, I14_SUITE_SLACK = 4096, 1.05       # auto / online, every formula
# t ~ n^1.5 at most: 16^1.5 = 64 where dense attention grows 16^2 = 256
I14_GROWTH_N, I14_GROWTH_MAX, I14_GROWTH_BIG = (16384, 262144), 64, 1048576
I14_HF_N, I14_HARD_PE_MAX, I14_F64_F32_MAX = 4096, 1.0, 2.5
I14_DEPTH6_S = 0.56                              # 5x under the 2.8 s first measured
TARGET_HEAD = ["target", "run", "compared (first / second)", "ratio", "status"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODATA = "\0"  # prefix of a plot's reason when there was nothing to draw


class ReportError(Exception):
    pass


# ------------------------------------------------------------------ input

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
            # numeric columns added after a file was written read as NaN
            late = [c for c in numeric if c in LATE_COLS and c not in header]
            missing = [c for c in required if c not in header and c not in late]
            if missing:
                raise ReportError(f"{name}: header lacks column(s) {', '.join(missing)}")
            # older files lack the provenance columns: kept, and said so
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
    return read_csv(path, BENCH_COLS,
                    ["scale", "threads", "n", "seconds_median", "seconds_min",
                     "seconds_max", "positions_per_s", "peak_bytes",
                     "agree_fraction", "max_attn_error"],
                    ints=["n", "threads", "peak_bytes"])


def read_boundary(path):
    rows = read_csv(path, BOUNDARY_COLS, ["scale"])
    if rows is None:
        return None
    for r in rows:
        v = r["largest_exact_n"]
        m = re.fullmatch(r"(>?)(\d+)", v.strip())
        if not m:
            raise ReportError(f"boundary.csv:{r['_line']}: largest_exact_n '{v}' is "
                              "neither N nor >N")
        r["exact_open"] = m.group(1) == ">"
        r["exact_n"] = int(m.group(2))
        ff = r["first_failing_n"].strip()
        if ff and not ff.isdigit():
            raise ReportError(f"boundary.csv:{r['_line']}: first_failing_n '{ff}' is "
                              "not a whole number")
        r["fail_n"] = int(ff) if ff else None
    return rows


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


def cpuinfo():
    """(model, isa flags) of the machine running the report."""
    model, flags = "unknown", []
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "model name" and model == "unknown":
                    model = v.strip()
                elif k == "flags" and not flags:
                    have = set(v.split())
                    flags = [x for x in ["sse4_2", "avx", "fma", "f16c", "avx2",
                                         "avx512f", "avx512bw", "avx512vl",
                                         "avx512_bf16", "avx512_fp16"] if x in have]
    except OSError:
        pass
    return model, flags


# --------------------------------------------------------------- helpers

def isnum(x):
    return isinstance(x, (int, float)) and not math.isnan(x)


def fmt_ms(sec):
    if not isnum(sec):
        return "—"
    ms = sec * 1e3
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3g}"


def fmt_x(v):
    return f"{v:.2f}×" if isnum(v) else "—"


def fmt_g(v, digits=3):
    return f"{v:.{digits}g}" if isnum(v) else "—"


def fmt_err(v):
    if not isnum(v):
        return "—"
    return "0" if v == 0 else f"{v:.1e}"


def fmt_agree(v):
    if not isnum(v):
        return "—"
    return "1" if v == 1 else f"{v:.4f}"


def fmt_mu(v):
    return f"{v:g}"


def code(s):
    """A formula as inline code inside a Markdown table cell."""
    return "`" + s.replace("|", "\\|") + "`"


def order_isas(isas):
    known = HS_ISAS + PEERS
    return [i for i in known if i in isas] + sorted(i for i in isas if i not in known)


class Fit(NamedTuple):
    """A growth exponent: the slope of ln y on ln x, its standard error,
    the 95% interval slope ± t(0.975, k-2) se, the number of points k and
    the decades of x they span."""
    slope: float
    se: float
    lo: float
    hi: float
    k: int
    decades: float


# Student's t, two-sided 95% (the 0.975 quantile), df = 1..30
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    """The 0.975 quantile of Student's t with df degrees of freedom; past
    the table, the Cornish-Fisher expansion around z (error < 1e-3)."""
    if df < 1:
        return math.inf
    if df <= len(T975):
        return T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def fit_loglog(points, min_x=0):
    """Least squares of ln y on ln x over the points with x >= min_x and
    y > 0. With k points, residual variance s^2 = SSR/(k-2), the slope's
    standard error is s/sqrt(Sxx) and its 95% interval slope ± t(k-2) se
    (infinite with two points). None with fewer than two distinct x."""
    pts = [(math.log(x), math.log(y)) for x, y in points
           if x >= min_x and isnum(y) and y > 0]
    if len(pts) < 2 or len({p[0] for p in pts}) < 2:
        return None
    k = len(pts)
    mx = sum(p[0] for p in pts) / k
    my = sum(p[1] for p in pts) / k
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
    icpt = my - slope * mx
    if k > 2:
        ssr = sum((p[1] - icpt - slope * p[0]) ** 2 for p in pts)
        se = math.sqrt(ssr / (k - 2) / sxx)
        half = t975(k - 2) * se
    else:
        se, half = math.nan, math.inf
    xs = [p[0] for p in pts]
    return Fit(slope, se, slope - half, slope + half, k,
               (max(xs) - min(xs)) / math.log(10))


def fit_exponent(points):
    """The slope alone, over the points with n >= FIT_MIN_N."""
    f = fit_loglog(points, FIT_MIN_N)
    return f.slope if f else None


def judge_slope(fit, lo, hi):
    """'met' when the fitted slope lies in the target range [lo, hi];
    'missed' only when the whole 95% interval lies outside it; between the
    two 'inconclusive'; 'not judged' with fewer than FIT_MIN_POINTS
    lengths or less than FIT_MIN_DECADES decades; None without a fit."""
    if fit is None:
        return None
    if fit.k < FIT_MIN_POINTS or fit.decades < FIT_MIN_DECADES - 1e-9:
        return "not judged"
    if lo <= fit.slope <= hi:
        return "met"
    if fit.hi < lo or fit.lo > hi:
        return "missed"
    return "inconclusive"


def fmt_fit(fit, status=None):
    """'1.97 ± 0.03 (95%: 1.89…2.05; 6 n, 2.1 decades) **met**'."""
    if fit is None:
        return "—"
    if isnum(fit.se):
        s = (f"{fit.slope:.2f} ± {fit.se:.2g} (95%: {fit.lo:.2f}…{fit.hi:.2f}; "
             f"{fit.k} n, {fit.decades:.1f} decades)")
    else:
        s = f"{fit.slope:.2f} (2 n: no interval)"
    if status in ("met", "missed"):
        s += " " + mark(status == "met")
    elif status:
        s += f" *{status}*"
    return s


def mode_bound(mode, mu, n):
    """The weight a softmax head may put off its hard target, as the
    compiler states it (hs_bound_at, src/compile/compile.c): S/(1+S) with
    S = 2e^-m/(1-e^-m), m = mu for pe, temp and rel at every n, m = mu/n
    for fixed (tau = 1/mu on bounded scores 1/n apart); 0 for hard."""
    if mode == "hard":
        return 0.0
    m = mu / max(n, 1) if mode == "fixed" else mu
    if not m > 0:
        return 1.0
    s = 2 * math.exp(-m) / -math.expm1(-m)
    return s / (1 + s)


def attn_bound(mu):
    """Weight off the target with every competitor mu below: S/(1+S)."""
    return mode_bound("pe", mu, 1)


BOUND_FN = "fbound(m) = (2*exp(-m)/(1-exp(-m))) / (1 + 2*exp(-m)/(1-exp(-m)))"


def bound_lines(mode, ns):
    """gnuplot plot clauses of mode's bound against mu (x) on the accuracy
    error plot: one line for pe, temp, rel (the bound does not depend on
    n), one per n for fixed (m = mu/n, coloured as that n's series), none
    for hard. Needs BOUND_FN defined."""
    if mode in ("pe", "temp", "rel"):
        return ["fbound(x) with lines lw 2 lc rgb '#000000' dt 2 "
                "title 'bound S/(1+S), S = 2e^-mu/(1-e^-mu)'"]
    if mode == "fixed":
        return [f"fbound(x/{n}.0) with lines lw 1 lc rgb '{PALETTE[i % len(PALETTE)]}' "
                f"dt 2 title 'bound at n = {n} (S of mu/n)'" for i, n in enumerate(ns)]
    return []


def mark(ok):
    return "**met**" if ok else "**missed**"


def fmt_mib(b):
    if not isnum(b):
        return "—"
    return f"{b / 2 ** 20:.1f} MiB" if b >= 2 ** 20 else f"{b / 2 ** 10:.0f} KiB"


def fmt_frac(v):
    """skipped_fraction: a string of the CSV (nan where every head ran
    online), absent from older files."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return "—"
    return f"{v:.3f}" if isnum(v) else "—"


def nm_row(target, where):
    """A target row whose runs are absent."""
    return [target, where, NM, "—", f"**{NM}**"]


def ratio_row(target, run, first, second, ok):
    """A target row comparing two bench rows: first / second of their
    medians, judged by ok (None: shown as information, no target)."""
    a, b = first["seconds_median"], second["seconds_median"]
    if not (isnum(a) and isnum(b) and b > 0):
        return nm_row(target, run)
    v = a / b
    return [target, run, f"{fmt_ms(a)} vs {fmt_ms(b)} ms", fmt_x(v),
            "information" if ok is None else mark(ok(v))]


def md_table(header, rows, align=None):
    align = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def index(rows, keys):
    """{key tuple: row}, the last row winning when a key repeats."""
    d = {}
    for r in rows:
        d[tuple(r[k] for k in keys)] = r
    return d


def unique(seq):
    seen, out = set(), []
    for x in seq:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


# ----------------------------------------------------------------- gnuplot

class Plotter:
    """Runs gnuplot scripts with data files in a temporary directory and
    moves the finished PNGs into the results directory."""

    def __init__(self, outdir, workdir):
        self.outdir, self.work = outdir, workdir
        self.gnuplot = shutil.which("gnuplot")
        self.term = None
        self.nfiles = 0
        self.stamp = ""  # provenance, small in each plot's corner
        if self.gnuplot:
            try:
                terms = subprocess.run([self.gnuplot, "-e", "set terminal"],
                                       capture_output=True, text=True, timeout=20)
                text = terms.stdout + terms.stderr
                if re.search(r"^\s*pngcairo\s", text, re.M):
                    self.term = "pngcairo"
                elif re.search(r"^\s*png\s", text, re.M):
                    self.term = "png"
            except (OSError, subprocess.SubprocessError):
                self.term = None

    def why_not(self):
        if not self.gnuplot:
            return "gnuplot is not installed"
        return "gnuplot has neither the pngcairo nor the png terminal"

    def data(self, rows):
        """Writes rows (tuples) as a whitespace-separated file; NaN for
        missing values. Returns a gnuplot-quoted path."""
        self.nfiles += 1
        path = os.path.join(self.work, f"d{self.nfiles}.dat")
        with open(path, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(" ".join("NaN" if not isnum(v) else repr(float(v)) for v in r)
                        + "\n")
        return gq(path)

    def script(self, png, width, height, body):
        """The whole gnuplot script of one plot: terminal, common settings,
        the provenance stamp in the bottom right corner, then body."""
        term = self.term or "pngcairo"
        font = "Sans,11" if term == "pngcairo" else "arial 10"
        return (f"set terminal {term} size {width},{height} font {gq(font)}\n"
                "set termoption noenhanced\n"
                f"set output {gq(png)}\n"
                "set datafile missing 'NaN'\n"
                "set grid lc rgb '#dddddd'\n"
                "set key box opaque samplen 2\n"
                + (f"set label 99 {gq(self.stamp)} at screen 0.995, screen 0.012 "
                   "right font ',7' textcolor rgb '#777777'\n" if self.stamp else "")
                + body + "\nunset output\n")

    def plot(self, name, width, height, body):
        """Draws body (gnuplot commands) into RESULTS_DIR/name; returns
        None on success, else a one-line reason."""
        if not self.term:
            return self.why_not()
        tmp_png = os.path.join(self.work, name)
        script = self.script(tmp_png, width, height, body)
        spath = os.path.join(self.work, name + ".gp")
        with open(spath, "w", encoding="utf-8") as f:
            f.write(script)
        try:
            p = subprocess.run([self.gnuplot, spath], capture_output=True, text=True,
                               timeout=60)
        except (OSError, subprocess.SubprocessError) as e:
            return f"gnuplot did not run: {e}"
        errs = [l for l in p.stderr.splitlines() if l.strip() and "warning" not in l]
        if p.returncode != 0 or not os.path.exists(tmp_png):
            return "gnuplot failed: " + (errs[-1].strip() if errs else f"exit {p.returncode}")
        move_atomic(tmp_png, os.path.join(self.outdir, name))
        return None


def gq(s):
    return "'" + str(s).replace("'", "''") + "'"


def move_atomic(src, dst):
    """Copies src beside dst under a temporary name, then renames it."""
    tmp = os.path.join(os.path.dirname(dst), "." + os.path.basename(dst) + ".tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


STYLE = {  # line colour and point type per series
    "scalar": ("#444444", 7), "avx2": ("#1f77b4", 5), "avx512": ("#d62728", 9),
    "numpy": ("#2ca02c", 4), "torch": ("#ff7f0e", 6), "openblas": ("#9467bd", 8),
    "ort": ("#8c564b", 10),
}
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#17becf"]


def style(key, i):
    c, pt = STYLE.get(key, (PALETTE[i % len(PALETTE)], 4 + i % 10))
    return f"lw 2 lc rgb '{c}' pt {pt} ps 1.1"


def short(formula, width=44):
    return formula if len(formula) <= width else formula[:width - 1] + "…"


PREDICTION_TEXT = (
    "Where the predictions come from. *Exact arithmetic* (last column): the "
    "bound stated by the compiler (`hardsoft compile --print`), weight off the "
    "target <= S/(1+S) with S = 2e^-mu/(1-e^-mu) for pe, temp and rel at every n, "
    "and only while n <= mu/ln 7 for fixed. *Significand* (in brackets), for a "
    "format with p significand bits (f64 53, f32 24, f16 11, bf16 8), from the "
    "values that must stay apart: pe's scores for S (O, H) are mu (j + n s_j) < "
    "2 mu n, so neighbouring positions stay distinct while n <= 2^(p-1); for U (F, "
    "G) they are below mu n and for Y, X mu j: n <= 2^p; "
    "stored, its keys hold j itself, exact while n <= 2^p, and for f16 the query "
    "mu n must stay below 65504. temp's keys and scores hold j/n (+ s_j), whose "
    "neighbours 1/n apart need n <= ~2^(p-1) to 2^p (the measured ones fall "
    "between, as i/n is rounded twice). rel's queries and keys hold 0 and ±1 (exact "
    "in every format) and its position term -mu |i - j| and content -mu n are "
    "added in f32 by the kernels: distinct while n < 2^24 in every f32-based "
    "precision, 2^53 in f64. fixed has no significand prediction: exact "
    "arithmetic already stops it at mu/ln 7. These are first-order estimates "
    "for the one-operator formulas; the measured value is the result.")


def significand_limit(formula, mode, mu, prec):
    """The n at which prec's significand (and f16's range) predicts the
    construction stops being exact (PREDICTION_TEXT); None if unknown."""
    p = SIGNIFICAND.get(prec)
    if p is None or mode not in ("pe", "temp", "rel", "fixed"):
        return None
    if mode == "fixed":
        return None  # exact arithmetic stops it first
    if mode == "rel":
        return 2 ** 53 if prec == "f64" else 2 ** 24
    # past operators with a selector: scores up to mu (n + j), twice those
    # of the future ones (mu (n - j)) and of Y / X (mu j)
    since = any(op in formula for op in "SOH")
    if mode == "pe":
        if prec in ("f16", "bf16"):
            lim = 2 ** p
            if prec == "f16" and any(op in formula for op in "SUFGOHX"):
                lim = min(lim, int(F16_MAX / mu))  # the query holds mu n
            return lim
        return 2 ** (p - 1) if since else 2 ** p
    # temp: j/n (+ s_j)
    return 2 ** (p - 1) if since and prec not in ("f16", "bf16") else 2 ** p


def fmt_pred(n):
    e = int(round(math.log2(n)))
    return f"≈2^{e}" if 2 ** e == n else f"≈{n}"


# ------------------------------------------------------------- provenance

# What each implementation in the scaling and headline tables computes
# (bench/peers/forward.py, bench/peers/openblas.c, src/run/), so that a
# ratio is read as a ratio against that code and nothing faster.
PEER_DOC = {
    "hardsoft": "hardsoft's own forward pass (`hardsoft bench`): per head, one "
                "attention row at a time with hand-vectorized kernels (fused "
                "online softmax, or two passes skipping key tiles whose weights "
                "underflow), O(n) memory, no n×n matrix",
    "numpy": "`bench/peers/forward.py` with NumPy: per head a dense matmul for "
             "the full (n+1)×(n+1) score matrix Q Kᵀ (NumPy's matmul, i.e. the BLAS "
             "it links), the mask applied with −inf, a softmax written as "
             "exp(s − max) / sum along the rows, then P V; weights converted to "
             "f32 inside each pass; one thread",
    "torch": "`bench/peers/forward.py --torch`: the same code on eager PyTorch "
             "tensors, one thread (`torch.set_num_threads(1)`): dense matmul for "
             "the (n+1)×(n+1) scores, `torch.where` mask, `torch.softmax`, P V. Not "
             "a fused kernel: no `scaled_dot_product_attention`, no `torch.compile`",
    "openblas": "`bench/peers/openblas.c`: every product a single-threaded "
                "`cblas_sgemm` over all positions, the full (n+1)×(n+1) score "
                "matrix per head, then a plain scalar three-pass masked softmax "
                "loop (max, sum of `expf`, divide; no SIMD, no online rescaling), "
                "then P V by gemm",
}


def isa_groups(isas):
    """[(first isa, its group)]: hardsoft's ISAs together, each peer alone."""
    ordered = order_isas(isas)
    hs = [i for i in ordered if i in HS_ISAS]
    return ([(hs[0], hs)] if hs else []) + [(i, [i]) for i in ordered if i not in HS_ISAS]


def peer_doc(isa):
    if isa in HS_ISAS:
        return PEER_DOC["hardsoft"]
    return PEER_DOC.get(isa, f"peer `{isa}` (see bench/peers/ for what it computes)")


def git_run(repo, *args):
    """stdout of git -C repo ARGS, stripped; None if git fails."""
    try:
        p = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def git_freshness(commits, repo):
    """One sentence per commit found in the data: is it this checkout's
    HEAD, and which files under src/ and simd/ differ between it and the
    working tree (committed since, or changed locally)?"""
    head = git_run(repo, "rev-parse", "HEAD")
    if head is None:
        return ["the report was not run inside a git checkout: whether src/ or simd/ "
                "changed since the data's commit is not checked"]
    out = []
    for c in commits or ["unknown"]:
        base, dirty = c.split("+")[0], "+dirty" in c
        full = git_run(repo, "rev-parse", "--verify", "--quiet", base + "^{commit}") \
            if re.fullmatch(r"[0-9a-f]{4,40}", base) else None
        if full is None:
            out.append(f"`{c}` is not a commit of this checkout (HEAD `{head[:12]}`): "
                       "the code that made the data cannot be compared with it")
            continue
        changed = (git_run(repo, "diff", "--name-only", full, "--", "src", "simd")
                   or "").split()
        ahead = git_run(repo, "rev-list", "--count", f"{full}..HEAD") or "?"
        s = (f"`{c}` is this checkout's HEAD (when this report was written)" if full == head else
             f"`{c}` is {ahead} commit(s) behind this checkout's HEAD `{head[:12]}`")
        if dirty:
            s += " and was built with local changes (+dirty), which are not recorded"
        if changed:
            s += (f"; {len(changed)} file(s) under src/ and simd/ differ from it now: "
                  + ", ".join(changed[:10]) + (" …" if len(changed) > 10 else "")
                  + " — **the results may not describe the current code**")
        else:
            s += "; nothing under src/ or simd/ differs from it now"
        out.append(s)
    return out


def versions_from(text_md, kernels_json):
    """{name: version} of the tools the report quotes but does not run
    itself: Google Benchmark, oneDNN, XNNPACK, Sleef (kernels.json's
    package table) and hyperfine (hyperfine.md's tool row)."""
    v = {}
    if kernels_json:
        ctx = kernels_json.get("context", {})
        pk = ctx.get("hardsoft", {}).get("packages", {}) or {}
        for name, pkg in [("Google Benchmark", "libbenchmark-dev"),
                          ("oneDNN", "libdnnl-dev"), ("XNNPACK", "libxnnpack-dev"),
                          ("Sleef", "libsleef-dev"), ("OpenBLAS (kernels)", "libopenblas-dev")]:
            if pkg in pk:
                v[name] = f"{pk[pkg]} (Debian {pkg})"
        if "oneDNN" not in v and ctx.get("onednn_version"):
            v["oneDNN"] = ctx["onednn_version"]
    if text_md:
        m = re.search(r"^\| tool \| (.+?) \|\s*$", text_md, re.M)
        if m:
            v["hyperfine"] = m.group(1)
    return v


def fmt_mem(b):
    try:
        return f"{int(b) / 2 ** 30:.1f} GiB"
    except (TypeError, ValueError):
        return str(b)


# ----------------------------------------------------------------- report

class Report:
    def __init__(self, d):
        self.dir = d
        self.out = []
        self.notes = []
        self.scaling = read_bench(os.path.join(d, "sweep-scaling.csv"))
        self.long = read_bench(os.path.join(d, "sweep-scaling-long.csv"))
        self.accuracy = read_bench(os.path.join(d, "sweep-accuracy.csv"))
        self.suite = read_bench(os.path.join(d, "sweep-suite.csv"))
        self.boundary = read_boundary(os.path.join(d, "boundary.csv"))
        self.rel_time = read_bench(os.path.join(d, "sweep-rel.csv"))
        self.counting = read_bench(os.path.join(d, "sweep-counting.csv"))
        self.threads = read_bench(os.path.join(d, "sweep-threads.csv"))
        self.skip = read_bench(os.path.join(d, "sweep-skip.csv"))
        self.isa = read_bench(os.path.join(d, "sweep-isa.csv"))
        self.depth6 = read_bench(os.path.join(d, "sweep-depth6.csv"))
        self.programs = read_bench(os.path.join(d, "sweep-programs.csv"))
        self.skip_suite = read_bench(os.path.join(d, "sweep-skip-suite.csv"))
        self.growth = read_bench(os.path.join(d, "sweep-growth.csv"))
        self.growth_stopped = read_text(os.path.join(d, "sweep-growth-stopped.txt"))
        self.hardf64 = read_bench(os.path.join(d, "sweep-hardf64.csv"))
        self.simulate = read_csv(os.path.join(d, "simulate.csv"), SIMULATE_COLS,
                                 SIMULATE_NUM, ints=["n", "strings", "positions"])
        self.kernels_md = read_text(os.path.join(d, "kernels.md"))
        self.kernels_json = os.path.exists(os.path.join(d, "kernels.json"))
        self.kernels_data = read_json(os.path.join(d, "kernels.json"))
        self.hyperfine = read_text(os.path.join(d, "hyperfine.md"))
        self.run_suite = read_text(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                "run-suite.sh"))
        # scaling points: f32, one thread, pe (the sweep's setting)
        pts = (self.scaling or []) + (self.long or [])
        self.scal = [r for r in pts if r["precision"] == "f32" and r["threads"] == 1]
        self.scal_formulas = unique(r["formula"] for r in self.scal)
        self.by_fin = index(self.scal, ["formula", "isa", "n"])

    def w(self, *lines):
        self.out.extend(lines)

    # ---------------------------------------------------------- provenance
    def provenance(self):
        files = [("sweep-scaling.csv", self.scaling), ("sweep-scaling-long.csv", self.long),
                 ("sweep-accuracy.csv", self.accuracy), ("sweep-suite.csv", self.suite),
                 ("boundary.csv", self.boundary), ("simulate.csv", self.simulate),
                 ("sweep-counting.csv", self.counting), ("sweep-threads.csv", self.threads),
                 ("sweep-skip.csv", self.skip), ("sweep-isa.csv", self.isa),
                 ("sweep-depth6.csv", self.depth6),
                 ("sweep-programs.csv", self.programs),
                 ("sweep-skip-suite.csv", self.skip_suite),
                 ("sweep-growth.csv", self.growth), ("sweep-hardf64.csv", self.hardf64)]
        present = [(n, rows) for n, rows in files if rows]
        allrows = [r for _, rows in present for r in rows]
        model, flags = cpuinfo()
        self.w("# hardsoft benchmark report", "",
               "Generated by `bench/report.py` from the CSV files of `make bench` in this "
               "directory; every number below is computed from them.", "",
               "## Provenance", "")
        if not allrows:
            self.w("No benchmark CSV was found in this directory: nothing was measured.", "")
        cpus = unique(r["cpu"] for r in allrows if r["cpu"] is not None)
        builds = unique(r["build"] for r in allrows if r["build"] is not None)
        commits = unique(r["commit"] for r in allrows if r["commit"] is not None)
        machines = unique((r["cores"], r["memory_bytes"], r["kernel"]) for r in allrows
                          if r["cores"] is not None)
        rows = []
        rows.append(["CPU (CSV `cpu` column: /proc/cpuinfo's model name)",
                     "; ".join(cpus) or NM])
        rows.append(["logical CPUs, memory, kernel (CSV `cores`, `memory_bytes`, `kernel`)",
                     "<br>".join(f"{c} CPUs, {fmt_mem(m)}, {k}" for c, m, k in machines)
                     or "not recorded (files written before these columns)"])
        rows.append(["machine running this report (/proc/cpuinfo)",
                     f"{model}; ISA flags: {' '.join(flags) or 'none of interest'}"])
        rows.append(["compiler and flags (CSV `build` column)",
                     "<br>".join(f"`{b}`" for b in builds) or NM])
        if len(commits) <= 1:
            rows.append(["commit", f"`{commits[0]}`" if commits else NM])
        else:
            per = []
            for c in commits:
                fs = [n for n, rs in present if any(r["commit"] == c for r in rs)]
                per.append(f"`{c}` ({', '.join(fs)})")
            rows.append(["commits (several)", "<br>".join(per)])
        for n, rs in present:
            ds = sorted(unique(r["date"] for r in rs if r["date"] is not None))
            span = (ds[0] if len(ds) == 1 else f"{ds[0]} … {ds[-1]}") if ds else \
                "not recorded (the file has no cpu/build/commit/date columns)"
            rows.append([f"date, {n} ({len(rs)} rows)", span])
        rows.append(["freshness: the data's commit against this checkout (git)",
                     "<br>".join(git_freshness(commits, REPO))])
        for name, v in self.versions(allrows):
            rows.append([f"version: {name}", v])
        absent = [n for n, rows_ in files if rows_ is None and n != "sweep-scaling-long.csv"]
        if absent:
            rows.append(["files absent", ", ".join(absent)])
        self.w(*md_table(["", ""], rows), "")
        self.commands()

    def versions(self, allrows):
        """[(name, version)] of hardsoft and every peer: the CSV's version
        column for what `hardsoft bench` ran, kernels.json and
        hyperfine.md for the rest."""
        out = []
        for isa, group in isa_groups({r["isa"] for r in allrows if r.get("isa")}):
            vs = unique(r["version"] for r in allrows if r.get("isa") in group
                        and r["version"] is not None)
            name = "hardsoft" if isa in HS_ISAS else ISA_LABEL.get(isa, isa)
            out.append((name, "; ".join(vs) if vs else
                        "not recorded (rows written before the CSV's version column)"))
        if not any(r.get("isa") == "ort" for r in allrows):
            out.append(("ONNX Runtime", "not measured (no `ort` rows)"))
        for name, v in versions_from(self.hyperfine, self.kernels_data).items():
            out.append((name, v))
        return out

    def stamp(self):
        """The provenance line written small in every plot's corner."""
        rows = [r for rs in (self.scaling, self.accuracy, self.boundary, self.simulate)
                for r in (rs or [])]
        commits = unique(r["commit"] for r in rows if r["commit"])
        # the model name and family; cpuid's rewrite stays in the report
        cpus = unique(re.sub(r"; cpuid brand: [^)]*", "", r["cpu"]) for r in rows if r["cpu"])
        cores = unique(str(r["cores"]) for r in rows if r["cores"])
        dates = sorted(r["date"][:10] for r in rows if r["date"])
        parts = ["hardsoft " + ("/".join(commits) if commits else "commit unknown"),
                 "; ".join(cpus) or "CPU unknown"]
        if cores:
            parts.append("/".join(cores) + " CPUs")
        if dates:
            parts.append(dates[0] if dates[0] == dates[-1] else f"{dates[0]}…{dates[-1]}")
        return ", ".join(parts)

    def commands(self):
        self.w("Commands: `make bench` runs `sh bench/run-suite.sh` (`make bench-full`: "
               "the same with `HS_BENCH_FULL=1`), with `OMP_NUM_THREADS=OPENBLAS_NUM_THREADS="
               "MKL_NUM_THREADS=1`. The `hardsoft` commands it runs (`HS=$BUILD/hardsoft`, "
               "`OUT=results`), as written in `bench/run-suite.sh`:", "")
        lines = extract_commands(self.run_suite) if self.run_suite else None
        if lines:
            self.w("```sh", *lines, "```", "")
        else:
            self.w("(bench/run-suite.sh not found beside this script; its commands are "
                   "`hardsoft bench ... --csv results/sweep-*.csv` and "
                   "`hardsoft boundary ... >> results/boundary.csv`)", "")
        # the values this run actually used, read back from the data
        vals = []
        if self.scaling:
            vals.append(["scaling sweep: lengths, isas",
                         ", ".join(str(n) for n in sorted({r["n"] for r in self.scaling}))
                         + "; " + ", ".join(order_isas({r["isa"] for r in self.scaling}))])
        if self.long:
            vals.append(["long scaling sweep: lengths, isas",
                         ", ".join(str(n) for n in sorted({r["n"] for r in self.long}))
                         + "; " + ", ".join(order_isas({r["isa"] for r in self.long}))])
        if self.accuracy:
            vals.append(["accuracy sweep: scales, lengths",
                         ", ".join(fmt_mu(s) for s in sorted({r["scale"] for r in self.accuracy
                                                              if r["mode"] != "hard"}))
                         + "; " + ", ".join(str(n) for n in
                                            sorted({r["n"] for r in self.accuracy}))])
        if self.boundary:
            vals.append(["boundary: largest n searched", str(self.max_searched())])
        if vals:
            self.w("Values of the variables in this run (read back from the data):", "",
                   *md_table(["", ""], vals), "")

    def max_searched(self):
        """The --max-n of the boundary search: the largest N of the '>N'
        entries (nothing failed up to N), else the largest n tried."""
        opens = [r["exact_n"] for r in self.boundary if r["exact_open"]]
        if opens:
            return max(opens)
        return max((r["fail_n"] or r["exact_n"]) for r in self.boundary)

    # ---------------------------------------------------------- a headline
    def headline_points(self):
        """[(formula, n, note)] for the headline: a S b at n = 4096, the
        other formula at the largest n of sweep-scaling.csv."""
        if not self.scaling:
            return []
        base = [r for r in self.scaling if r["precision"] == "f32" and r["threads"] == 1]
        out = []
        forms = unique(r["formula"] for r in base)
        if "a S b" in forms:
            ns = sorted({r["n"] for r in base if r["formula"] == "a S b"})
            if 4096 in ns:
                out.append(("a S b", 4096, ""))
            else:
                out.append(("a S b", ns[-1], f" (n = 4096 absent; largest n present)"))
        other = [f for f in forms if f != "a S b"]
        if other:
            f = other[0]
            ns = sorted({r["n"] for r in base if r["formula"] == f})
            out.append((f, ns[-1], ""))
        return out

    def t(self, formula, isa, n):
        r = self.by_fin.get((formula, isa, n))
        return r["seconds_median"] if r else float("nan")

    def section_headline(self):
        self.w("## a. Headline", "")
        pts = self.headline_points()
        if not pts:
            self.w(f"sweep-scaling.csv: {NM}.", "")
            return
        r0 = self.by_fin.get((pts[0][0], "avx2", pts[0][1])) or next(
            iter(self.scal), None)
        setting = (f"mode {r0['mode']}, mu = {fmt_mu(r0['scale'])}, f32, 1 thread"
                   if r0 else "")
        rows_ = self.scal
        commits = unique(r["commit"] for r in rows_ if r["commit"])
        cpus = unique(r["cpu"] for r in rows_ if r["cpu"])
        dates = sorted(r["date"][:10] for r in rows_ if r["date"])
        self.w("Measured on " + ("; ".join(cpus) or "an unrecorded CPU")
               + (f" on {dates[0]}" if dates else "") + ", commit "
               + (", ".join(f"`{c}`" for c in commits) or "unrecorded") + ": "
               + "; ".join(git_freshness(commits, REPO))
               + " (full provenance: `results/REPORT.md`).", "")
        self.w(f"Forward pass, median seconds of the timed runs ({setting}), in ms; "
               "the peers (NumPy, PyTorch, OpenBLAS; ONNX Runtime on the same model "
               "exported to ONNX) run the same model file on the same string.", "")
        cols = HS_ISAS + PEERS
        rows = []
        for f, n, note in pts:
            rows.append([code(f), f"{n}{note}"] + [fmt_ms(self.t(f, i, n)) if isnum(
                self.t(f, i, n)) else NM for i in cols])
        self.w(*md_table(["formula", "n"] + [f"{ISA_LABEL[i]} ms" for i in cols], rows,
                         ["---", "--:"] + ["--:"] * len(cols)), "")
        self.w("Speed-ups (t_other / t_ISA; above 1 means the ISA is faster):", "")
        rows = []
        for f, n, _ in pts:
            for isa in ["avx2", "avx512"]:
                ti = self.t(f, isa, n)
                cells = []
                for o in ["scalar"] + PEERS:
                    to = self.t(f, o, n)
                    cells.append(fmt_x(to / ti) if isnum(to) and isnum(ti) else NM)
                rows.append([code(f), n, ISA_LABEL[isa]] + cells)
        self.w(*md_table(["formula", "n", "ISA", "vs scalar"] +
                         [f"vs {ISA_LABEL[p]}" for p in PEERS], rows,
                         ["---", "--:", "---"] + ["--:"] * (1 + len(PEERS))), "")
        self.peer_notes()
        self.w("Targets (AVX2, both formulas):", "")
        rows = []
        for other, need, label in [("scalar", 6, "AVX2 ≥ 6× scalar"),
                                   ("torch", 20, "AVX2 ≥ 20× PyTorch"),
                                   ("openblas", 4, "AVX2 ≥ 4× the OpenBLAS baseline")]:
            for f, n, _ in pts:
                ta, to = self.t(f, "avx2", n), self.t(f, other, n)
                if isnum(ta) and isnum(to) and ta > 0:
                    v = to / ta
                    rows.append([label, code(f), n, mark(v >= need), fmt_x(v)])
                else:
                    rows.append([label, code(f), n, f"**{NM}**", "—"])
        self.w(*md_table(["target", "formula", "n", "status", "measured"], rows,
                         ["---", "---", "--:", "---", "--:"]), "")

    def peer_notes(self):
        """What each column of the headline computes, with the version its
        rows record: a ratio is against that code, not a tuned kernel."""
        lines = []
        for isa, group in isa_groups({r["isa"] for r in self.scal}):
            vs = unique(r["version"] for r in self.scal if r["isa"] in group and r["version"])
            name = (f"hardsoft ({', '.join(ISA_LABEL[i] for i in group)})"
                    if isa in HS_ISAS else ISA_LABEL.get(isa, isa))
            ver = f" ({'; '.join(vs)})" if vs else " (version not recorded in the CSV)"
            lines.append(f"- **{name}**{ver}: {peer_doc(isa)}.")
        if lines:
            self.w("What each column computes — the peers are straightforward "
                   "implementations of the same model, not tuned attention kernels, so "
                   "\"N× PyTorch\" means N times faster than eager PyTorch doing a dense "
                   "matmul and softmax per head, not N times a fused attention kernel "
                   "(FlashAttention, `scaled_dot_product_attention`, oneDNN's fused "
                   "primitives):", "", *lines, "")

    # ---------------------------------------------------------- b scaling
    def section_scaling(self, plot):
        self.w("## b. Scaling with n", "")
        if not self.scal:
            self.w(f"sweep-scaling.csv: {NM}.", "")
            return
        src = "sweep-scaling.csv" + (" and sweep-scaling-long.csv" if self.long else "")
        self.w(f"From {src} (f32, 1 thread). Exponents are least-squares slopes of "
               "ln(value) against ln(n) over every length measured, given as slope ± "
               "standard error with the 95% interval (slope ± t(k−2)·se, k lengths); the "
               f"targets are time ∝ n^{EXP_LO}…n^{EXP_HI} (one attention row of length "
               f"≤ n per query) and peak memory ∝ n (exponent {MEM_LO}…{MEM_HI}: no n×n "
               "matrix kept) for hardsoft's own ISAs. A target is **met** when the "
               "slope lies in its range, **missed** only when the whole 95% interval "
               "lies outside it, *inconclusive* in between, and *not judged* with fewer "
               f"than {FIT_MIN_POINTS} lengths or less than {FIT_MIN_DECADES:g} decades "
               "of n. The peers' exponents (often over fewer lengths: they hold the "
               "(n+1)² score matrix) are shown for comparison, not judged.", "")
        self.exps = {}
        for f in self.scal_formulas:
            rows_f = [r for r in self.scal if r["formula"] == f]
            ns = sorted({r["n"] for r in rows_f})
            isas = order_isas({r["isa"] for r in rows_f})
            self.w(f"### {code(f)}", "")
            trows, mrows, prows = [], [], []
            for isa in isas:
                tpts = [(n, self.t(f, isa, n)) for n in ns]
                rr = [self.by_fin.get((f, isa, n)) for n in ns]
                mpts = [(n, r["peak_bytes"] if r else float("nan")) for n, r in zip(ns, rr)]
                te = fit_loglog(tpts, FIT_MIN_N)
                me = fit_loglog(mpts, FIT_MIN_N)
                self.exps[(f, isa)] = te
                hs = isa in HS_ISAS
                tstat = fmt_fit(te, judge_slope(te, EXP_LO, EXP_HI) if hs else None)
                mstat = fmt_fit(me, judge_slope(me, MEM_LO, MEM_HI) if hs else None)
                trows.append([ISA_LABEL.get(isa, isa)] + [fmt_ms(t) for _, t in tpts] + [tstat])
                mrows.append([ISA_LABEL.get(isa, isa)] +
                             [fmt_g(b / 2 ** 20) if isnum(b) else "—" for _, b in mpts] + [mstat])
                prows.append([ISA_LABEL.get(isa, isa)] +
                             [fmt_g(r["positions_per_s"]) if r else "—" for r in rr])
            al = ["---"] + ["--:"] * len(ns)
            self.w("Time (ms, median):", "",
                   *md_table(["ISA"] + [f"n={n}" for n in ns] + ["exponent"], trows, al + ["---"]),
                   "", "Peak memory (MiB):", "",
                   *md_table(["ISA"] + [f"n={n}" for n in ns] + ["exponent"], mrows, al + ["---"]),
                   "", "Throughput (positions per second):", "",
                   *md_table(["ISA"] + [f"n={n}" for n in ns], prows, al), "")
        self.plot_scaling(plot)

    def plot_scaling(self, plot):
        forms = self.scal_formulas[:2]
        if not forms:
            return
        # 1. time against n, every ISA and peer, one panel per formula
        body = [f"set multiplot layout 1,{len(forms)}",
                "set logscale xy 2", "set format y '%g'", "set xlabel 'n (string length)'",
                "set ylabel 'time per forward pass (ms)'", "set key top left font ',9'"]
        for f in forms:
            isas = order_isas({r["isa"] for r in self.scal if r["formula"] == f})
            ns = sorted({r["n"] for r in self.scal if r["formula"] == f})
            series = []
            for i, isa in enumerate(isas):
                d = plot.data([(n, self.t(f, isa, n) * 1e3) for n in ns])
                e = self.exps.get((f, isa))
                lab = ISA_LABEL.get(isa, isa) + (
                    f" (slope {e.slope:.2f}" + (f" ± {e.se:.2g})" if isnum(e.se) else ")")
                    if e is not None else "")
                series.append(f"{d} using 1:2 with linespoints {style(isa, i)} title {gq(lab)}")
            body.append(f"set title {gq('time against n: ' + short(f))}")
            body.append("plot " + ", \\\n  ".join(series))
        body.append("unset multiplot")
        self.plots.append(("scaling-time.png",
                           plot.plot("scaling-time.png", 700 * len(forms), 560, "\n".join(body)),
                           "time against n, log-log, slopes ± standard error fitted "
                           "over every n"))
        # 2. AVX2 and AVX-512 speed-up over scalar against n
        series, k = [], 0
        for f in forms:
            ns = sorted({r["n"] for r in self.scal if r["formula"] == f})
            for isa in ["avx2", "avx512"]:
                pts = [(n, self.t(f, "scalar", n) / self.t(f, isa, n)) for n in ns]
                if not any(isnum(v) for _, v in pts):
                    continue
                d = plot.data(pts)
                dash = "dt 1" if f == forms[0] else "dt 2"
                series.append(f"{d} using 1:2 with linespoints {style(isa, k)} {dash} "
                              f"title {gq(ISA_LABEL[isa] + ': ' + short(f, 30))}")
                k += 1
        if series:
            series.append("6 with lines lw 1 lc rgb '#888888' dt 3 title 'target 6x (AVX2)'")
            body = ["set logscale x 2", "set xlabel 'n (string length)'",
                    "set ylabel 'speed-up over scalar (t_scalar / t_ISA)'",
                    "set yrange [0:*]", "set key outside right top vertical font ',9'",
                    "set title 'SIMD speed-up over the scalar kernels "
                    "(solid: first formula, dashed: second)'",
                    "plot " + ", \\\n  ".join(series)]
            self.plots.append(("scaling-speedup.png",
                               plot.plot("scaling-speedup.png", 1250, 560, "\n".join(body)),
                               "AVX2 and AVX-512 speed-up over scalar against n"))
        # 3. the peers against n: t_peer / t_AVX2
        series, k = [], 0
        for f in forms:
            ns = sorted({r["n"] for r in self.scal if r["formula"] == f})
            for peer in PEERS:
                pts = [(n, self.t(f, peer, n) / self.t(f, "avx2", n)) for n in ns]
                if not any(isnum(v) for _, v in pts):
                    continue
                d = plot.data(pts)
                dash = "dt 1" if f == forms[0] else "dt 2"
                series.append(f"{d} using 1:2 with linespoints {style(peer, k)} {dash} "
                              f"title {gq(ISA_LABEL[peer] + ': ' + short(f, 30))}")
                k += 1
        if series:
            body = ["set logscale xy 2", "set format y '%g'", "set xlabel 'n (string length)'",
                    "set ylabel 't_peer / t_AVX2 (times slower than AVX2)'",
                    "set key outside right top vertical font ',9'",
                    "set title 'peers (dense matmul + softmax, not fused kernels) / "
                    "hardsoft AVX2; solid: first formula, dashed: second'",
                    "plot " + ", \\\n  ".join(series)]
            self.plots.append(("scaling-peers.png",
                               plot.plot("scaling-peers.png", 1250, 560, "\n".join(body)),
                               "the peers against n, as time relative to AVX2"))
        else:
            self.plots.append(("scaling-peers.png", NODATA + "no peer rows (numpy, torch, "
                               "openblas) in sweep-scaling.csv", "the peers against n"))

    # ---------------------------------------------------------- c accuracy
    def section_accuracy(self, plot):
        self.w("## c. Accuracy against mu", "")
        if not self.accuracy:
            self.w(f"sweep-accuracy.csv: {NM}.", "")
            return
        rows = [r for r in self.accuracy if r["precision"] == "f32"] or self.accuracy
        isa = ", ".join(unique(r["isa"] for r in rows))
        self.w(f"From sweep-accuracy.csv (random strings, ISA {isa}, "
               f"{'/'.join(unique(r['precision'] for r in rows))}). Each cell is "
               "*agreement with the logic* / *largest attention error of any layer* "
               "(the weight a softmax head puts off its hard-attention target). The "
               f"compiler states ln 7 = {LN7:.3f} as the smallest mu at which pe and temp "
               "are exact at every n in exact arithmetic (weight off the target at most "
               "S/(1+S) < 1/4 with S = 2e^-mu/(1-e^-mu)); fixed is only guaranteed up to "
               "n = mu/ln 7.", "")
        forms = unique(r["formula"] for r in rows)
        idx = index(rows, ["formula", "mode", "scale", "n"])
        summary = []
        for f in forms:
            fr = [r for r in rows if r["formula"] == f]
            ns = sorted({r["n"] for r in fr})
            modes = [m for m in MODES if any(r["mode"] == m for r in fr)] + sorted(
                {r["mode"] for r in fr} - set(MODES))
            table = []
            sentences = []
            for m in modes:
                mus = sorted({r["scale"] for r in fr if r["mode"] == m})
                for mu in mus:
                    cells = []
                    for n in ns:
                        r = idx.get((f, m, mu, n))
                        cells.append(f"{fmt_agree(r['agree_fraction'])} / "
                                     f"{fmt_err(r['max_attn_error'])}" if r else "—")
                    table.append([m, "—" if m == "hard" else fmt_mu(mu)] + cells)
                sentences.append(self.exact_sentence(f, m, mus, ns, idx))
                summary.append((f, m, self.smallest_exact(f, m, mus, ns, idx)))
            self.w(f"### {code(f)}", "",
                   *md_table(["mode", "mu"] + [f"n={n}" for n in ns], table,
                             ["---", "--:"] + ["---"] * len(ns)), "")
            self.w(*[f"- {s}" for s in sentences], "")
        if len(forms) > 1:
            modes_s = unique(m for _, m, _ in summary if m != "hard")
            tab = []
            for m in modes_s:
                cells = []
                for f in forms:
                    v = next((mu for ff, mm, mu in summary if ff == f and mm == m), None)
                    top = max((r["scale"] for r in rows if r["formula"] == f
                               and r["mode"] == m), default=float("nan"))
                    cells.append(fmt_mu(v) if v is not None else f"none up to {fmt_mu(top)}")
                tab.append([m] + cells)
            self.w("Smallest mu with agreement 1 at every n, per formula "
                   f"(compare ln 7 = {LN7:.3f}):", "",
                   *md_table(["mode"] + [code(f) for f in forms], tab,
                             ["---"] + ["--:"] * len(forms)), "")
        # the bound check for pe and temp
        chk = []
        for m in ["pe", "temp", "rel", "fixed"]:
            rs = [r for r in rows if r["mode"] == m and isnum(r["max_attn_error"])]
            if rs:
                bd = lambda r: mode_bound(m, r["scale"], r["n"])
                worst = max(rs, key=lambda r: r["max_attn_error"] / bd(r))
                over = [r for r in rs if r["max_attn_error"] > bd(r) * (1 + 1e-6)]
                which = "S/(1+S) of mu/n" if m == "fixed" else "S/(1+S) of mu"
                chk.append(f"- {m}: the measured attention error "
                           + ("stays within" if not over else "**exceeds**")
                           + f" its bound {which} ({len(over)} of {len(rs)} "
                           f"points above it; closest to it: {fmt_err(worst['max_attn_error'])} "
                           f"against {fmt_err(bd(worst))} at mu = "
                           f"{fmt_mu(worst['scale'])}, n = {worst['n']}, {code(worst['formula'])}).")
        if chk:
            self.w("Attention error against the bound:", "", *chk, "")
        self.plot_accuracy(plot, rows, forms, idx)

    @staticmethod
    def smallest_exact(f, m, mus, ns, idx):
        for mu in mus:
            if all(idx.get((f, m, mu, n)) and idx[(f, m, mu, n)]["agree_fraction"] == 1
                   for n in ns):
                return mu
        return None

    def exact_sentence(self, f, m, mus, ns, idx):
        if m == "hard":
            r = [idx.get((f, m, mus[0], n)) for n in ns] if mus else []
            ok = r and all(x and x["agree_fraction"] == 1 for x in r)
            return ("hard: exact at every n measured (the reference)." if ok else
                    "hard: **not exact at every n** — the reference itself disagrees "
                    "with the logic.")
        mu0 = self.smallest_exact(f, m, mus, ns, idx)
        nlist = f"n = {ns[0]}…{ns[-1]}" if len(ns) > 1 else f"n = {ns[0]}"
        if m == "fixed":
            parts = []
            for mu in mus:
                good = [n for n in ns if idx.get((f, m, mu, n)) and
                        idx[(f, m, mu, n)]["agree_fraction"] == 1]
                bad = [n for n in ns if idx.get((f, m, mu, n)) and
                       idx[(f, m, mu, n)]["agree_fraction"] < 1]
                if not bad:
                    parts.append(f"mu = {fmt_mu(mu)}: exact at every n measured "
                                 f"(guarantee up to n = {mu / LN7:.1f})")
                else:
                    parts.append(f"mu = {fmt_mu(mu)}: "
                                 + (f"exact up to n = {max(n for n in good if n < min(bad))}, "
                                    if any(n < min(bad) for n in good) else "")
                                 + f"fails at n = {min(bad)} (mu/ln 7 = {mu / LN7:.1f})")
            return "fixed: " + "; ".join(parts) + "."
        if mu0 is None:
            return (f"{m}: not exact at every n ({nlist}) for any mu measured "
                    f"(up to {fmt_mu(mus[-1])})." if mus else f"{m}: {NM}.")
        later_bad = [mu for mu in mus if mu > mu0 and self.smallest_exact(
            f, m, [mu], ns, idx) is None]
        prev = [mu for mu in mus if mu < mu0]
        s = f"{m}: exact at every n ({nlist}) from mu = {fmt_mu(mu0)}"
        if mu0 <= LN7:
            s += (f", at or below the stated ln 7 = {LN7:.3f} (the bound is sufficient, "
                  "not necessary" + ("; already the smallest mu measured)" if not prev
                                     else f"; mu = {fmt_mu(prev[-1])} fails)"))
        elif not prev or prev[-1] < LN7:
            s += (f": consistent with the stated ln 7 = {LN7:.3f}, the first mu measured "
                  "above it" + (f" (mu = {fmt_mu(prev[-1])}, below ln 7, fails)" if prev else ""))
        else:
            s += (f", **above** the stated ln 7 = {LN7:.3f}: mu = {fmt_mu(prev[-1])} ≥ ln 7 "
                  "still fails, so the guarantee is not met")
        if later_bad:
            s += f"; but mu = {', '.join(fmt_mu(x) for x in later_bad)} fails again"
        return s + "."

    def plot_accuracy(self, plot, rows, forms, idx):
        modes = [m for m in ["pe", "temp", "fixed", "rel"] if any(r["mode"] == m for r in rows)]
        if not modes:
            return
        ns = sorted({r["n"] for r in rows})
        mus = sorted({r["scale"] for r in rows if r["mode"] != "hard"})
        nf = len(forms)
        what = "worst over the formulas" if nf > 1 else short(forms[0])

        def agg(m, mu, n, col, fn):
            vs = [idx[(f, m, mu, n)][col] for f in forms if (f, m, mu, n) in idx
                  and isnum(idx[(f, m, mu, n)][col])]
            return fn(vs) if vs else float("nan")

        # agreement against mu, one panel per mode, one line per n
        body = [f"set multiplot layout 1,{len(modes)}", "set logscale x 2",
                "set xlabel 'mu (scale)'", "set ylabel 'agreement with the logic'",
                "set yrange [0:1.05]", "set key bottom right font ',9'",
                f"set xrange [{min(mus) / 1.3}:{max(mus) * 1.3}]"]
        for m in modes:
            series = []
            for i, n in enumerate(ns):
                d = plot.data([(mu, agg(m, mu, n, "agree_fraction", min)) for mu in mus])
                series.append(f"{d} using 1:2 with linespoints {style('', i)} title 'n = {n}'")
            body.append(f"set title {gq(f'{m}: agreement ({what})')}")
            body.append("plot " + ", \\\n  ".join(series))
        body.append("unset multiplot")
        self.plots.append(("accuracy-agree.png",
                           plot.plot("accuracy-agree.png", 500 * len(modes), 480, "\n".join(body)),
                           f"agreement against mu, one line per n ({what})"))
        # attention error against mu, log y, with the bound
        body = [f"set multiplot layout 1,{len(modes)}", "set logscale x 2", "set logscale y",
                "set format y '%.0e'",
                "set xlabel 'mu (scale)'", "set ylabel 'max attention error'",
                "set key bottom left font ',9'", "set samples 200",
                f"set xrange [{min(mus) / 1.3}:{max(mus) * 1.3}]", BOUND_FN]
        for m in modes:
            series = []
            for i, n in enumerate(ns):
                pts = [(mu, agg(m, mu, n, "max_attn_error", max)) for mu in mus]
                pts = [(x, y if isnum(y) and y > 0 else float("nan")) for x, y in pts]
                d = plot.data(pts)
                series.append(f"{d} using 1:2 with linespoints {style('', i)} title 'n = {n}'")
            series += bound_lines(m, ns)  # each mode's own bound
            series.append("0.25 with lines lw 1 lc rgb '#888888' dt 3 title '1/4'")
            body.append(f"set title {gq(f'{m}: attention error ({what})')}")
            body.append("plot " + ", \\\n  ".join(series))
        body.append("unset multiplot")
        self.plots.append(("accuracy-error.png",
                           plot.plot("accuracy-error.png", 500 * len(modes), 480, "\n".join(body)),
                           "max attention error against mu (log y) with each mode's bound: "
                           "S/(1+S) of mu for pe, temp, rel; of mu/n, one line per n, for "
                           "fixed"))
        # time against mu at the largest n, one panel per formula (the soft
        # modes; hard has no mu and is given in the text)
        nmax = ns[-1]
        allm = [m for m in MODES if any(r["mode"] == m for r in rows)]
        soft = [m for m in allm if m != "hard"]
        cols = min(nf, 2)
        nrows = (nf + cols - 1) // cols
        body = [f"set multiplot layout {nrows},{cols}", "set logscale x 2",
                "set xlabel 'mu (scale)'", "set ylabel 'time (ms, median)'",
                "set yrange [0:*]", "set key outside right top font ',9'",
                f"set xrange [{min(mus) / 1.3}:{max(mus) * 1.3}]"]
        for f in forms:
            series = []
            for i, m in enumerate(soft):
                d = plot.data([(mu, (idx[(f, m, mu, nmax)]["seconds_median"] * 1e3)
                               if (f, m, mu, nmax) in idx else float("nan")) for mu in mus])
                series.append(f"{d} using 1:2 with linespoints {style('', i)} title '{m}'")
            body.append(f"set title {gq(f'n = {nmax}: ' + short(f, 40))}")
            body.append("plot " + ", \\\n  ".join(series))
        body.append("unset multiplot")
        self.plots.append(("accuracy-time.png",
                           plot.plot("accuracy-time.png", 1100, 400 * nrows, "\n".join(body)),
                           f"time against mu at n = {nmax} (pe, temp, fixed): does the "
                           "magnitude change the speed?"))
        # the same question in numbers
        lines = []
        for m in soft:
            ratios = []
            for f in forms:
                ts = [idx[(f, m, mu, nmax)]["seconds_median"] for mu in mus
                      if (f, m, mu, nmax) in idx]
                if len(ts) > 1 and min(ts) > 0:
                    ratios.append(max(ts) / min(ts))
            if ratios:
                lines.append(f"- {m}: slowest / fastest over mu: "
                             f"{min(ratios):.2f}…{max(ratios):.2f}× across the formulas")
        hard = [(f, idx[k]["seconds_median"]) for f in forms for k in idx
                if k[0] == f and k[1] == "hard" and k[3] == nmax]
        if hard:
            lines.append("- hard (no mu), for comparison: "
                         + ", ".join(f"{code(f)} {fmt_ms(t)} ms" for f, t in hard))
        if lines:
            self.w(f"Does mu change the speed? Time at n = {nmax} (sweep-accuracy.csv; "
                   "the runs per point are those of the sweep):", "", *lines, "")

    # ---------------------------------------------------------- d suite
    def section_suite(self):
        self.w("## d. Formula suite", "")
        if not self.suite:
            self.w(f"sweep-suite.csv: {NM}.", "")
            return
        ns = sorted({r["n"] for r in self.suite})
        n = 1024 if 1024 in ns else ns[-1]
        rows = [r for r in self.suite if r["n"] == n]
        idx = index(rows, ["formula", "mode", "scale", "precision"])
        precs = [p for p in ["f32", "f64"] if any(r["precision"] == p for r in rows)]
        isa = ", ".join(unique(r["isa"] for r in rows))
        self.w(f"Every formula of bench/formulas.txt at n = {n} (ISA {isa}): median ms, "
               "agreement with the logic and largest attention error, per precision; "
               "last column the f64/f32 time ratio.", "")
        keys = unique((r["formula"], r["mode"], r["scale"]) for r in rows)
        out = []
        ratios = []
        for f, m, mu in keys:
            cells = []
            for p in precs:
                r = idx.get((f, m, mu, p))
                cells += ([fmt_ms(r["seconds_median"]), fmt_agree(r["agree_fraction"]),
                           fmt_err(r["max_attn_error"])] if r else [NM, "—", "—"])
            a, b = idx.get((f, m, mu, "f32")), idx.get((f, m, mu, "f64"))
            ratio = (b["seconds_median"] / a["seconds_median"]
                     if a and b and a["seconds_median"] > 0 else float("nan"))
            if isnum(ratio):
                ratios.append(ratio)
            out.append([code(f), m, "—" if m == "hard" else fmt_mu(mu)] + cells + [fmt_x(ratio)])
        head = ["formula", "mode", "mu"]
        for p in precs:
            head += [f"{p} ms", f"{p} agree", f"{p} attn err"]
        self.w(*md_table(head + ["f64/f32"], out,
                         ["---", "---", "--:"] + ["--:"] * (3 * len(precs) + 1)), "")
        bad = [(f, m, mu, p) for (f, m, mu, p), r in idx.items() if r["agree_fraction"] < 1]
        s = (f"Every point agrees with the logic." if not bad else
             f"{len(bad)} of {len(idx)} points disagree with the logic somewhere: "
             + "; ".join(f"{code(f)} {m} mu={fmt_mu(mu)} {p}" for f, m, mu, p in bad[:8])
             + (" …" if len(bad) > 8 else "") + ".")
        if ratios:
            srt = sorted(ratios)
            s += (f" f64/f32 time ratio: median {srt[len(srt) // 2]:.2f}×, "
                  f"range {srt[0]:.2f}…{srt[-1]:.2f}×.")
        self.w(s, "")

    # ---------------------------------------------------------- e boundary
    def section_boundary(self, plot):
        self.w("## e. Precision boundary", "")
        if not self.boundary:
            self.w(f"boundary.csv: {NM}.", "")
            return
        rows = self.boundary
        idx = index(rows, ["formula", "mode", "scale", "precision"])
        keys = unique((r["formula"], r["mode"], r["scale"]) for r in rows)
        precs = [p for p in PRECISIONS if any(r["precision"] == p for r in rows)]
        nmax = self.max_searched()
        self.w("Largest n at which the compiled model is still exact on the adversarial "
               "strings of `hardsoft boundary` (y^n with one x near an edge), found by "
               f"doubling then bisection up to n = {nmax}; \">N\" means nothing failed up "
               "to N. Precisions: f64 and f32 throughout; **f16s / bf16s** round the "
               "attention scores q·k to that format (the rest in f32); **f16 / bf16** "
               "store the queries, keys and values in it, as inference engines do "
               "(products, softmax and sums in f32). Each cell is the measured n, then "
               "in brackets the limit the format's significand predicts (≈, see below). "
               "The last column is where exact arithmetic stops guaranteeing exactness "
               "(inf for pe, temp and rel at mu ≥ ln 7, floor(mu/ln 7) for fixed).", "")
        out = []
        for f, m, mu in keys:
            cells = []
            real = ""
            for p in precs:
                r = idx.get((f, m, mu, p))
                pred = significand_limit(f, m, mu, p)
                cells.append((r["largest_exact_n"] if r else NM)
                             + (f" ({fmt_pred(pred)})" if pred else ""))
                if r:
                    real = r["real_bound_n"]
            out.append([code(f), m, "—" if m == "hard" else fmt_mu(mu)] + cells + [real or "—"])
        self.w(*md_table(["formula", "mode", "mu"] + precs + ["exact-arithmetic bound"], out,
                         ["---", "---", "--:"] + ["--:"] * (len(precs) + 1)), "")
        self.w(PREDICTION_TEXT, "")
        self.w(self.boundary_paragraph(rows, nmax), "")
        self.plot_boundary(plot, rows, precs)

    def plot_boundary(self, plot, rows, precs):
        """Largest exact n against precision (by significand bits), one line
        per mode: the smallest over the formulas at the smallest mu; ">N"
        (nothing failed) is drawn at N."""
        mus = sorted({r["scale"] for r in rows})
        if not mus:
            return
        mu = mus[0]
        order = sorted(precs, key=lambda p: (SIGNIFICAND[p], p.endswith("s")))
        modes = [m for m in MODES if any(r["mode"] == m for r in rows)]
        body = ["set logscale y 2", "set format y '%.0f'",
                "set ylabel 'largest exact n (worst formula)'",
                "set xlabel 'precision (by significand bits)'",
                f"set xrange [-0.5:{len(order) - 0.5}]",
                "set xtics (" + ", ".join(f"{gq(p)} {i}" for i, p in enumerate(order)) + ")",
                "set key top left font ',9'",
                f"set title {gq(f'precision boundary, mu = {fmt_mu(mu)} (a line at the top: nothing failed up to the largest n searched)')}"]
        series = []
        for i, m in enumerate(modes):
            pts = []
            for k, p in enumerate(order):
                rs = [r for r in rows if r["mode"] == m and r["scale"] == mu
                      and r["precision"] == p]
                pts.append((k, min(r["exact_n"] for r in rs) if rs else float("nan")))
            d = plot.data(pts)
            series.append(f"{d} using 1:2 with linespoints {style('', i)} title {gq(m)}")
        if not series:
            return
        body.append("plot " + ", \\\n  ".join(series))
        self.plots.append(("boundary.png",
                           plot.plot("boundary.png", 760, 480, "\n".join(body)),
                           "largest exact n against precision, one line per mode "
                           f"(mu = {fmt_mu(mu)}, the smallest over the formulas)"))

    @staticmethod
    def boundary_paragraph(rows, nmax):
        def rng(p, modes):
            rs = [r for r in rows if r["precision"] == p and r["mode"] in modes]
            if not rs:
                return None
            closed = [r["exact_n"] for r in rs if not r["exact_open"]]
            return (min(closed) if closed else None, max(closed) if closed else None,
                    sum(r["exact_open"] for r in rs), len(rs))

        parts = []
        for p, what in [("f16s", "scores rounded to f16 (11-bit significand, largest "
                                 "finite value 65504)"),
                        ("bf16s", "scores rounded to bf16 (8-bit significand)"),
                        ("f16", "Q, K, V stored in f16"), ("bf16", "Q, K, V stored in bf16")]:
            x = rng(p, ("pe", "temp"))
            if x is None:
                continue
            if x[0] is None:
                parts.append(f"With {what}: nothing failed up to n = {nmax} in pe or temp.")
            else:
                parts.append(f"With {what}, pe and temp are exact only up to n = "
                             f"{x[0]}…{x[1]} depending on formula and mode"
                             + (f" ({x[2]} of {x[3]} cases held to the end)" if x[2] else "")
                             + ".")
        low = [p for p in ("f16s", "bf16s", "f16", "bf16") if rng(p, ("rel",))]
        if low:
            xs = [rng(p, ("rel",)) for p in low]
            held = sum(x[2] for x in xs)
            tot = sum(x[3] for x in xs)
            worst = min((x[0] for x in xs if x[0] is not None), default=None)
            parts.append(f"rel in {', '.join(low)}: {held} of {tot} cases exact up to "
                         f"n = {nmax}, the largest n searched"
                         + (f"; the others break from n = {worst}" if worst else "")
                         + ": its queries and keys hold only 0 and ±1 and its position "
                           "term is added in f32.")
        hi = []
        for p in ["f32", "f64"]:
            x = rng(p, ("pe", "temp", "rel"))
            if x is None:
                continue
            if x[0] is None:
                hi.append(f"{p}: nothing failed up to n = {nmax}, the largest n searched")
            else:
                hi.append(f"{p}: {x[2]} of {x[3]} cases exact to n = {nmax}; the others break "
                          f"at n = {x[0]}…{x[1]}")
        if hi:
            if all("nothing failed" in h for h in hi):
                parts.append("With f32 and f64 pe, temp and rel were exact at every length "
                             f"searched, up to n = {nmax}: their limit lies beyond what was run.")
            else:
                parts.append("f32 and f64 (pe, temp, rel): " + "; ".join(hi) + ".")
        fx = [r for r in rows if r["mode"] == "fixed"]
        if fx:
            descs = []
            for mu in sorted({r["scale"] for r in fx}):
                ex = sorted({r["exact_n"] for r in fx if r["scale"] == mu})
                span = str(ex[0]) if len(ex) == 1 else f"{ex[0]}…{ex[-1]}"
                descs.append(f"mu = {fmt_mu(mu)}: largest exact n {span} "
                             f"(guaranteed up to mu/ln 7 = {mu / LN7:.1f})")
            desc = "; ".join(descs)
            short_ = [r for r in fx if r["real_bound_n"].isdigit()
                      and r["exact_n"] < int(r["real_bound_n"])]
            parts.append("fixed (constant temperature) fails after a handful of positions "
                         f"in every precision — {desc}. "
                         + ("Every measured boundary is at or beyond floor(mu/ln 7): that "
                            "bound holds and is sufficient, not tight."
                            if not short_ else
                            f"In {len(short_)} case(s) the boundary falls short of "
                            "floor(mu/ln 7): **the bound does not hold there**."))
        return " ".join(parts)

    # ---------------------------------------------------------- e2 rel timing
    def section_rel_time(self):
        self.w("### rel beside pe: forward-pass time", "")
        rows = self.rel_time
        if not rows:
            self.w(f"sweep-rel.csv: {NM}.", "")
            return
        idx = index(rows, ["formula", "mode", "isa", "n"])
        out = []
        for f, isa, n in unique((r["formula"], r["isa"], r["n"]) for r in rows):
            pe, rel = idx.get((f, "pe", isa, n)), idx.get((f, "rel", isa, n))
            if not pe or not rel:
                continue
            ratio = rel["seconds_median"] / pe["seconds_median"]
            out.append([code(short(f)), isa, str(n), f"{pe['seconds_median'] * 1e3:.3f}",
                        f"{rel['seconds_median'] * 1e3:.3f}", f"{ratio:.3f}",
                        mark(ratio <= 1.10)])
        self.w("The same formulas compiled in pe and rel (mu = 4), one thread, median of "
               "the repeats (`hardsoft bench --modes pe,rel`); target: rel within 10% of "
               "pe. A shared machine: differences of a few percent are noise.", "")
        self.w(*md_table(["formula", "isa", "n", "pe (ms)", "rel (ms)", "rel / pe",
                          "≤ 1.10"], out), "")

    # ---------------------------------------------------------- f kernels
    def section_kernels(self):
        self.w("## f. Kernels", "")
        if self.kernels_md is None:
            self.w(f"kernels.md: {NM}" + (" (kernels.json is present)" if self.kernels_json
                                          else "") + ".", "")
            return
        self.w("The kernel microbenchmarks (Google Benchmark, `bench/run-kernels.sh`) are "
               "reported in [kernels.md](kernels.md)"
               + (" (raw data: [kernels.json](kernels.json))" if self.kernels_json else "")
               + ". Its targets section, quoted:", "")
        lines = self.kernels_md.splitlines()
        start = next((i for i, l in enumerate(lines)
                      if re.match(r"^#+\s*targets\b", l.strip(), re.I)), None)
        if start is None:
            self.w("(kernels.md has no targets section)", "")
            return
        level = len(lines[start]) - len(lines[start].lstrip("#"))
        end = next((j for j in range(start + 1, len(lines))
                    if re.match(r"^#{1,%d}\s" % level, lines[j])), len(lines))
        body = lines[start + 1:end]
        while body and not body[0].strip():
            body.pop(0)
        while body and not body[-1].strip():
            body.pop()
        self.w(*[("> " + l) if l.strip() else ">" for l in body], "")

    # ---------------------------------------------------------- g hyperfine
    def section_hyperfine(self):
        self.w("## g. Whole-process timings (hyperfine)", "")
        if self.hyperfine is None:
            self.w(f"hyperfine.md: {NM}.", "")
            return
        lines = self.hyperfine.splitlines()
        # from the first table heading on; the header block is in the file
        start = next((i for i, l in enumerate(lines) if l.startswith("### ")), None)
        self.w("From [hyperfine.md](hyperfine.md) (`bench/hyperfine.sh`; machine, commit and "
               "the exact command are in its header):", "")
        if start is None:
            self.w("(hyperfine.md has no tables)", "")
        else:
            self.w(*lines[start:], "")

    # ---------------------------------------------------------- h simulate
    def section_simulate(self):
        self.w("## h. Simulating hard models", "")
        rows = self.simulate
        if not rows:
            self.w(f"simulate.csv: {NM}.", "")
            return
        ns = sorted({r["n"] for r in rows})
        mus = unique(fmt_mu(r["mu"]) for r in rows)
        precs = unique(r["precision"] for r in rows)
        strings = unique(str(r["strings"]) for r in rows)
        self.w("`hardsoft simulate` runs each hard-attention model exactly, measures gamma "
               "(the smallest gap between a maximal and a non-maximal score over every hard "
               "head, query and string), replaces every hard head by softmax at "
               "tau = gamma / (mu + ln(n+1)) — which bounds the weight off the maximal "
               "positions by (n+1) e^(-gamma/tau) = e^(-mu) per head — and runs both "
               f"(simulate.csv: {', '.join(strings)} random string(s) over the alphabet per "
               f"n, mu = {', '.join(mus)}, precision {', '.join(precs)}). Heads: u uniform "
               "(all scores equal), tl tieless, t tied, as measured after ties are broken: "
               "a unique-hard head seen with tied maxima first gets a position term "
               "±delta·j/n (delta = half its gap), the same choice as a unique maximum with "
               "gap ≥ gamma/(2n) (tb: how many heads; gamma before: the gap before that); "
               "a head still tied after it (**tied unique-hard**) is not simulable "
               "(softmax averages tied maxima). attn err: the largest weight the "
               "softmax run put off a head's hard choice; deviation: the largest "
               "|softmax − hard| of the residual stream over layers, positions and "
               "coordinates; agree: fraction of decisions that agree.", "")
        out = []
        for r in rows:
            heads = (f"{r['heads_uniform']:g} u, {r['heads_tieless']:g} tl, "
                     f"{r['heads_tied']:g} t")
            if r["heads_tiebroken"] > 0:
                heads += f", {r['heads_tiebroken']:g} tb"
            if r["heads_tied_unique"] > 0:
                heads += f" (**{r['heads_tied_unique']:g} tied unique-hard**)"
            bound = "0 (no gap)" if not math.isfinite(r["gamma_measured"]) else fmt_g(r["bound"])
            out.append([r["model"], heads, r["n"], fmt_g(r["gamma_before"], 4),
                        fmt_g(r["gamma"], 4), fmt_g(r["tau"], 4),
                        bound, fmt_err(r["attn_error"]), fmt_err(r["max_deviation"]),
                        fmt_agree(r["agree_fraction"])])
        self.w(*md_table(["model", "hard heads", "n", "gamma before", "gamma", "tau",
                          "bound", "attn err", "deviation", "agree"], out,
                         ["---", "---", "--:", "--:", "--:", "--:", "--:", "--:", "--:",
                          "--:"]), "")
        ok = [r for r in rows if r["heads_tied_unique"] == 0]
        bad = [r for r in rows if r["heads_tied_unique"] > 0]
        parts = []
        if ok:
            models = unique(r["model"] for r in ok)
            dis = [r for r in ok if r["agree_fraction"] < 1]
            over = [r for r in ok if isnum(r["attn_error"]) and r["attn_error"] > r["bound"] * (1 + 1e-3) + 1e-6]
            parts.append(f"Models without tied unique-hard heads ({', '.join(models)}): "
                         + ("every decision agrees at every n" if not dis else
                            f"{len(dis)} of {len(ok)} points disagree somewhere ("
                            + "; ".join(f"{r['model']} n={r['n']}" for r in dis) + ")")
                         + f", n = {ns[0]}…{ns[-1]}; the measured weight off the hard choice is "
                         + ("within the bound everywhere" if not over else
                            f"above the bound at {len(over)} point(s)")
                         + f", and the largest deviation is {fmt_err(max(r['max_deviation'] for r in ok))}.")
        if bad:
            for m in unique(r["model"] for r in bad):
                rs = [r for r in bad if r["model"] == m]
                worst = min(r["agree_fraction"] for r in rs)
                parts.append(f"{m} has a tied unique-hard head: "
                             + ("its decisions still agree and the deviation stays at "
                                f"{fmt_err(max(r['max_deviation'] for r in rs))} (the positions "
                                "it ties over hold equal values on these inputs), though "
                                f"softmax puts up to {fmt_g(max(r['attn_error'] for r in rs))} "
                                "of the weight off the hard choice" if worst == 1 else
                                f"decisions agree only on a fraction {fmt_agree(worst)} at worst "
                                "— softmax averages what the hard head picks one of")
                             + ".")
        self.w(" ".join(parts), "")

    # ---------------------------------------------------------- i counting
    def section_counting(self):
        self.w("## i. Counting: the two sign methods", "")
        rows = self.counting
        if not rows:
            self.w(f"sweep-counting.csv: {NM}.", "")
            return
        self.w("From sweep-counting.csv: counting comparisons compiled with `--sign "
               "layernorm` (layer normalization of [u, -u] with epsilon 0: exact in every "
               "mode) and `--sign temp` (softmax between BOS and the other keys at "
               "tau = 1/(mu n ln(n+1)); weight on the wrong side <= (n+1)^(1-mu/4), exact "
               "for mu > 12; fixed mode uses tau = 1/mu). Cell: agreement / largest "
               "attention error; last column: ms per forward pass at the largest n.", "")
        ns = sorted({r["n"] for r in rows})
        for f in unique(r["formula"] for r in rows):
            self.w(f"### {code(f)}", "")
            out = []
            keys = unique((r.get("sign") or "layernorm", r["mode"], r["scale"])
                          for r in rows if r["formula"] == f)
            for sign, mode, mu in keys:
                cells, ms = [], NM
                for n in ns:
                    r = next((r for r in rows if r["formula"] == f and r["n"] == n
                              and (r.get("sign") or "layernorm") == sign
                              and r["mode"] == mode and r["scale"] == mu), None)
                    cells.append(f"{fmt_agree(r['agree_fraction'])} / "
                                 f"{fmt_err(r['max_attn_error'])}" if r else NM)
                    if r:
                        ms = fmt_ms(r["seconds_median"])
                out.append([sign, mode, "—" if mode == "hard" else fmt_mu(mu)] + cells + [ms])
            self.w(*md_table(["sign", "mode", "mu"] + [f"n={n}" for n in ns] + ["ms"], out),
                   "")

    # ---------------------------------------------------------- programs
    def section_programs(self):
        self.w("## Programs: C-RASP compiled through the formula DAG", "")
        rows = self.programs
        if not rows:
            self.w(f"sweep-programs.csv: {NM}.", "")
            return
        self.w("From sweep-programs.csv: C-RASP programs (the formula column names the "
               "file) lowered to the formula DAG and compiled; each point is one random "
               "string of the program's tokens, checked against the program's own "
               "interpreter. Cell: ms per forward pass (median) / agreement.", "")
        ns = sorted({r["n"] for r in rows})
        out = []
        for f in unique(r["formula"] for r in rows):
            for mode, mu in unique((r["mode"], r["scale"]) for r in rows if r["formula"] == f):
                cells = []
                for n in ns:
                    r = next((r for r in rows if r["formula"] == f and r["mode"] == mode
                              and r["scale"] == mu and r["n"] == n), None)
                    cells.append(f"{fmt_ms(r['seconds_median'])} / "
                                 f"{fmt_agree(r['agree_fraction'])}" if r else NM)
                out.append([code(f), mode, "—" if mode == "hard" else fmt_mu(mu)] + cells)
        self.w(*md_table(["program", "mode", "mu"] + [f"n={n}" for n in ns], out), "")

    # ---------------------------------------------------------- j threads
    def section_threads(self):
        self.w("## j. Threads", "")
        rows = self.threads
        if not rows:
            self.w(f"sweep-threads.csv: {NM}.", "")
            return
        self.w("From sweep-threads.csv: the same forward pass with its rows split among "
               "threads (the outputs are bit-identical for every thread count; "
               "`make check` tests it). Target: 2 threads >= 1.8x one thread at n >= 4096.",
               "")
        ts = sorted({r["threads"] for r in rows})
        out = []
        for (f, isa, n) in unique((r["formula"], r["isa"], r["n"]) for r in rows):
            t = {r["threads"]: r["seconds_median"] for r in rows
                 if r["formula"] == f and r["isa"] == isa and r["n"] == n}
            cells = [fmt_ms(t[k]) if k in t else NM for k in ts]
            sp = t[1] / t[2] if 1 in t and 2 in t and t[2] > 0 else float("nan")
            status = NM if not isnum(sp) else (
                f"{fmt_x(sp)} " + (mark(sp >= 1.8) if n >= 4096 else ""))
            out.append([code(short(f)), isa, n] + cells + [status])
        self.w(*md_table(["formula", "isa", "n"] + [f"{k} thread(s) ms" for k in ts]
                         + ["2 vs 1"], out), "")

    # ---------------------------------------------------------- k skipping
    def section_skip(self):
        self.w("## k. Exact skipping of underflowed key tiles", "")
        rows = self.skip
        if not rows:
            self.w(f"sweep-skip.csv: {NM}.", "")
            return
        self.w("From sweep-skip.csv: the two-pass attention row that skips whole "
               "64-key tiles whose bound on the scaled score lies more than 88 below the "
               "row maximum (their exponentials are exactly 0), against the same two-pass "
               "row without skipping (the outputs are bit-for-bit identical: `make check`, "
               "test-skip), the one-pass online kernel, and `auto` (the default: per head, "
               "the skipping kernel where the bounds of 8 sampled rows leave out at least "
               "80% of their tiles and the rows average at least 1024 keys, else online). "
               "Targets: skip on >= 3x skip off at "
               "mu = 32; auto >= 5x online for a S b and >= 2x for the depth-4 formula at "
               "mu = 8, n = 16384.", "")
        out = []
        for (f, mu, n, isa) in unique((r["formula"], r["scale"], r["n"], r["isa"]) for r in rows):
            t = {r.get("skip"): r for r in rows if r["formula"] == f and r["scale"] == mu
                 and r["n"] == n and r["isa"] == isa}
            sec = lambda k: t[k]["seconds_median"] if k in t else float("nan")
            on, off, auto, online = sec("on"), sec("off"), sec("auto"), sec("online")
            if not isnum(online) and mu == 4:
                online = self.t(f, isa, n)
            ratio = off / on if isnum(on) and isnum(off) and on > 0 else float("nan")
            ra = online / auto if isnum(online) and isnum(auto) and auto > 0 else float("nan")
            frac = t["on"].get("skipped_fraction") if "on" in t else None
            status = fmt_x(ratio) + (" " + mark(ratio >= 3) if isnum(ratio) and mu >= 32 else "")
            want = 5 if f == "a S b" else 2
            astat = fmt_x(ra) + (" " + mark(ra >= want) if isnum(ra) and mu == 8 and n >= 16384
                                 else "") if isnum(ra) else NM
            ms = lambda v: fmt_ms(v) if isnum(v) else NM
            out.append([code(short(f)), fmt_mu(mu), n, isa, ms(auto), ms(online), ms(on), ms(off),
                        f"{float(frac):.3f}" if frac not in (None, "", "nan") else NM,
                        astat, status])
        self.w(*md_table(["formula", "mu", "n", "isa", "auto ms", "online ms", "skip on ms",
                          "skip off ms", "tiles skipped (on)", "online / auto", "off / on"],
                         out), "")

    # ---------------------------------------------------------- l issue 6
    def section_issue6(self):
        """Every target of the forward-pass performance issue, each from the
        CSV that measures it, the compared runs side by side."""
        self.w("## l. Forward-pass targets, side by side", "")
        self.w("Each row compares runs of one `hardsoft bench` invocation (same "
               "process, same string, interleaved in time); ratios are of medians.", "")
        out = []
        asb = "a S b"
        # 1. a S b against PyTorch and the OpenBLAS baseline (scaling sweep)
        for isa in order_isas(unique(r["isa"] for r in self.scal if r["isa"] in HS_ISAS
                                     and r["isa"] != "scalar")):
            ti = self.t(asb, isa, 4096)
            for peer, want in (("torch", 30), ("openblas", 6)):
                tp = self.t(asb, peer, 4096)
                sp = tp / ti if isnum(ti) and isnum(tp) and ti > 0 else float("nan")
                out.append([f"{ISA_LABEL[peer]} / {ISA_LABEL[isa]} >= {want}x",
                            code(asb) + " pe mu=4, n=4096, 1 thread",
                            f"{fmt_ms(tp)} vs {fmt_ms(ti)} ms" if isnum(sp) else NM,
                            fmt_x(sp) if isnum(sp) else NM,
                            mark(sp >= want) if isnum(sp) else NM])
        # 2. skipping at mu = 32
        for r in self.skip or []:
            if r.get("skip") != "on" or r["scale"] < 32 or r["formula"] != asb:
                continue  # the target is stated for a S b
            off = next((o for o in self.skip if o.get("skip") == "off" and
                        (o["formula"], o["scale"], o["n"], o["isa"]) ==
                        (r["formula"], r["scale"], r["n"], r["isa"])), None)
            if not off:
                continue
            sp = off["seconds_median"] / r["seconds_median"]
            out.append(["skip on >= 3x skip off, mu >= 32",
                        f"{code(short(r['formula']))} n={r['n']}, {r['isa']}",
                        f"{fmt_ms(off['seconds_median'])} vs {fmt_ms(r['seconds_median'])} ms",
                        fmt_x(sp), mark(sp >= 3)])
        # 3. two threads against one
        for r in self.threads or []:
            if r["threads"] != 2 or r["n"] < 4096:
                continue
            one = next((o for o in self.threads if o["threads"] == 1 and
                        (o["formula"], o["n"], o["isa"], o.get("skip")) ==
                        (r["formula"], r["n"], r["isa"], r.get("skip"))), None)
            if not one:
                continue
            sp = one["seconds_median"] / r["seconds_median"]
            out.append(["2 threads >= 1.8x 1 thread, n >= 4096",
                        f"{code(short(r['formula']))} n={r['n']}, {r['isa']}",
                        f"{fmt_ms(one['seconds_median'])} vs {fmt_ms(r['seconds_median'])} ms",
                        fmt_x(sp), mark(sp >= 1.8)])
        # 4. AVX-512 against AVX2 on the fused (online) path
        for r in self.isa or []:
            if r["isa"] != "avx512" or r["n"] < 4096:
                continue
            a2 = next((o for o in self.isa if o["isa"] == "avx2" and
                       (o["formula"], o["n"], o["scale"]) ==
                       (r["formula"], r["n"], r["scale"])), None)
            if not a2:
                continue
            sp = a2["seconds_median"] / r["seconds_median"]
            out.append(["AVX-512 >= 1.5x AVX2, fused path, n >= 4096",
                        f"{code(short(r['formula']))} n={r['n']}, 1 thread",
                        f"{fmt_ms(a2['seconds_median'])} vs {fmt_ms(r['seconds_median'])} ms",
                        fmt_x(sp), mark(sp >= 1.5)])
        # 5. depth 6 at n = 65536 on one core
        for r in self.depth6 or []:
            mib = r["peak_bytes"] / 2**20 if isnum(r["peak_bytes"]) else float("nan")
            ok = r["seconds_median"] < 10 and isnum(mib) and mib < 64
            out.append(["depth 6, n = 65536, 1 core: < 10 s and < 64 MiB peak",
                        f"{code(short(r['formula']))} {r['mode']} mu={fmt_mu(r['scale'])}, "
                        f"{r['isa']}, agreement {fmt_agree(r['agree_fraction'])}",
                        f"{r['seconds_median']:.2f} s, {mib:.1f} MiB",
                        "—", mark(ok)])
        # issue 14's rows are always there, "not measured" where absent
        out += self.issue14_rows()
        self.w(*md_table(["target", "run", "compared (first / second)", "ratio", "status"],
                         out), "")
        self.w("Peak memory is the forward pass's own accounting of the buffers it "
               "holds at once (the CSV `peak_bytes`), not the process's resident size.", "")

    # ---------------------------------------------------------- m issue 14
    # Issue 14 (hard-like heads in near-linear time, exactly; hard mode and
    # f64 at full speed): each target from the one invocation that measures
    # it, in the configuration the target names; section l repeats the rows.
    def i14_skip_rows(self):
        """T1: auto against online at mu = 8, n = 16384 (sweep-skip.csv)."""
        out = []
        for f, want in I14_SKIP_WANT.items():
            target = f"online / auto >= {want}x, mu=8, n={I14_SKIP_N}"
            pairs = [(r, o) for r in self.skip or [] for o in self.skip or []
                     if r["formula"] == f and r["scale"] == 8 and r["n"] == I14_SKIP_N
                     and r["threads"] == 1 and o["threads"] == 1
                     and r.get("skip") == "auto" and o.get("skip") == "online"
                     and (o["formula"], o["scale"], o["n"], o["isa"]) ==
                     (f, 8, I14_SKIP_N, r["isa"])]
            if not pairs:
                out.append(nm_row(target, f"{code(short(f))} pe, sweep-skip.csv"))
            for auto, online in pairs:
                out.append(ratio_row(target, f"{code(short(f))} pe, {auto['isa']}, 1 thread",
                                     online, auto, lambda v, w=want: v >= w))
        return out

    def i14_suite_pairs(self):
        """[(formula, auto row, online row)] of sweep-skip-suite.csv at
        the target's n."""
        rows = [r for r in self.skip_suite or [] if r["n"] == I14_SUITE_N
                and r["threads"] == 1]
        idx = index(rows, ["formula", "isa", "skip"])
        return [(f, idx[(f, isa, "auto")], idx[(f, isa, "online")])
                for f, isa in unique((r["formula"], r["isa"]) for r in rows)
                if (f, isa, "auto") in idx and (f, isa, "online") in idx]

    def i14_suite_row(self):
        """T2: the worst auto / online over bench/formulas.txt."""
        target = (f"auto <= {I14_SUITE_SLACK:.2f}x online, every formula of "
                  f"bench/formulas.txt, pe mu=8, n={I14_SUITE_N}")
        pairs = self.i14_suite_pairs()
        if not pairs:
            return [nm_row(target, "sweep-skip-suite.csv")]
        f, auto, online = max(pairs, key=lambda p: p[1]["seconds_median"] /
                              p[2]["seconds_median"])
        slow = sum(1 for _, a, o in pairs if a["seconds_median"] >
                   I14_SUITE_SLACK * o["seconds_median"])
        return [ratio_row(target, f"worst of {len(pairs)}: {code(short(f))}, "
                          f"{auto['isa']}; {slow} formula(s) over",
                          auto, online, lambda v: v <= I14_SUITE_SLACK)]

    def i14_growth_rows(self):
        """T3: t(2^18) / t(2^14) for a S b, and the n = 2^20 run."""
        rows = [r for r in self.growth or [] if r["formula"] == "a S b"]
        by_n = {r["n"]: r for r in rows}
        lo, hi = I14_GROWTH_N
        target = f"t(n={hi}) / t(n={lo}) <= {I14_GROWTH_MAX}x (dense: {(hi // lo) ** 2}x)"
        if lo in by_n and hi in by_n:
            out = [ratio_row(target, f"{code('a S b')} pe mu=8, {by_n[hi]['isa']}, 1 thread",
                             by_n[hi], by_n[lo], lambda v: v <= I14_GROWTH_MAX)]
        else:
            out = [nm_row(target, "sweep-growth.csv")]
        target = f"n={I14_GROWTH_BIG} runs (agreement 1), time and peak memory published"
        big = by_n.get(I14_GROWTH_BIG)
        if big:
            out.append([target, f"{code('a S b')} pe mu=8, {big['isa']}, 1 thread, "
                        f"agreement {fmt_agree(big['agree_fraction'])}",
                        f"{big['seconds_median']:.2f} s, {fmt_mib(big['peak_bytes'])} peak",
                        "—", mark(big["agree_fraction"] == 1)])
        elif (self.growth_stopped or "").startswith(f"n = {I14_GROWTH_BIG}:"):
            out.append([target, f"{code('a S b')} pe mu=8",
                        self.growth_stopped.strip().replace("|", "\\|"), "—", mark(False)])
        else:
            out.append(nm_row(target, "sweep-growth.csv"))
        return out

    def i14_hardf64(self):
        """{(formula, isa, n): {(mode, precision): seconds}} of
        sweep-hardf64.csv (pe at any mu: the sweep runs one)."""
        out = {}
        for r in self.hardf64 or []:
            if r["threads"] == 1:
                key = (r["formula"], r["isa"], r["n"])
                out.setdefault(key, {})[(r["mode"], r["precision"])] = r
        return out

    def i14_hardf64_rows(self, info=False):
        """T4 hard / pe in f32 and T5 f64 / f32 on pe at n = 4096; with
        info, also hard / pe in f64 and f64 / f32 on hard (no target)."""
        pts = {k: v for k, v in self.i14_hardf64().items() if k[2] == I14_HF_N}
        n = I14_HF_N
        cases = [(f"hard / pe <= {I14_HARD_PE_MAX:.1f}x, f32, pe mu=4, n={n}",
                  I14_HARD_PE_MAX, ("hard", "f32"), ("pe", "f32")),
                 (f"f64 / f32 <= {I14_F64_F32_MAX:.1f}x, pe mu=4, n={n}", I14_F64_F32_MAX,
                  ("pe", "f64"), ("pe", "f32"))]
        if info:
            cases += [(f"hard / pe, f64, n={n} (information)", None,
                       ("hard", "f64"), ("pe", "f64")),
                      (f"f64 / f32, hard, n={n} (information)", None,
                       ("hard", "f64"), ("hard", "f32"))]
        out = []
        for target, want, first, second in cases:
            ok = (lambda v, w=want: v <= w) if want is not None else None
            got = [(k, v) for k, v in pts.items() if first in v and second in v]
            if not got:
                out.append(nm_row(target, "sweep-hardf64.csv"))
            for (f, isa, _), v in got:
                out.append(ratio_row(target, f"{code(short(f))}, {isa}, 1 thread",
                                     v[first], v[second], ok))
        return out

    def i14_depth6_row(self):
        """T6: the aim of 5x under the 2.8 s first measured."""
        target = f"depth 6, n = 65536, 1 core: <= {I14_DEPTH6_S:.2f} s (5x under 2.8 s)"
        rows = [r for r in self.depth6 or [] if r["n"] == 65536 and r["threads"] == 1]
        if not rows:
            return [nm_row(target, "sweep-depth6.csv")]
        return [[target, f"{code(short(r['formula']))} {r['mode']} mu={fmt_mu(r['scale'])}, "
                 f"{r['isa']}", f"{r['seconds_median']:.2f} s, "
                 f"{fmt_mib(r['peak_bytes'])} peak", "—",
                 mark(r["seconds_median"] <= I14_DEPTH6_S)] for r in rows]

    def issue14_rows(self):
        return (self.i14_skip_rows() + self.i14_suite_row() + self.i14_growth_rows()
                + self.i14_hardf64_rows() + self.i14_depth6_row())

    def section_issue14(self):
        self.w("## m. Issue 14: near-linear hard-like heads, hard mode and f64", "")
        self.w("The measurements behind issue 14's targets, each ratio from one "
               "`hardsoft bench` invocation on one thread of the best ISA; the target "
               "rows are repeated in section l. The kernel target (attn_row keys/s) is in "
               "section f.", "")
        self.w(f"### Auto against online at n = {I14_SKIP_N} (sweep-skip.csv, section k)", "",
               *md_table(TARGET_HEAD, self.i14_skip_rows()), "")
        self.i14_suite_table()
        self.i14_growth_table()
        self.i14_hardf64_table()
        self.w("### Depth 6 at n = 65536 (sweep-depth6.csv)", "",
               *md_table(TARGET_HEAD, self.i14_depth6_row()), "")

    def i14_suite_table(self):
        self.w("### Skipping on every formula of bench/formulas.txt (sweep-skip-suite.csv)", "")
        if not self.skip_suite:
            self.w(f"sweep-skip-suite.csv: {NM}.", "")
            return
        self.w("pe, mu = 8: the default (`--skip auto`: per head, the tile-skipping "
               "kernel where sampled rows skip >= 80% of their tiles and average >= 1024 "
               "keys, else online) "
               "against the one-pass online kernel, median of the repeats. Tiles skipped: "
               "of the auto run, where a head chose skipping (— where every head ran "
               "online).", "")
        out = []
        for r in self.skip_suite:
            if r.get("skip") != "auto":
                continue
            o = next((o for o in self.skip_suite if o.get("skip") == "online" and
                      (o["formula"], o["isa"], o["n"]) == (r["formula"], r["isa"], r["n"])),
                     None)
            ta, to = r["seconds_median"], o["seconds_median"] if o else math.nan
            slow = isnum(to) and ta > I14_SUITE_SLACK * to
            out.append([code(r["formula"]), r["isa"], r["n"], fmt_ms(ta),
                        fmt_ms(to) if o else NM, fmt_x(to / ta) if o and ta > 0 else "—",
                        fmt_frac(r.get("skipped_fraction")),
                        ("**auto slower**" if slow else "no") if o else NM])
        self.w(*md_table(["formula", "isa", "n", "auto ms", "online ms", "online / auto",
                          "tiles skipped (auto)", f"auto > {I14_SUITE_SLACK:.2f}× online"],
                         out, ["---", "---", "--:", "--:", "--:", "--:", "--:", "---"]), "",
               *md_table(TARGET_HEAD, self.i14_suite_row()), "")

    def i14_growth_table(self):
        self.w("### Growth of `a S b` with n (sweep-growth.csv)", "")
        rows = sorted((r for r in self.growth or [] if r["formula"] == "a S b"),
                      key=lambda r: r["n"])
        if not rows:
            self.w(f"sweep-growth.csv: {NM}.", "")
        else:
            self.w("pe, mu = 8, default `--skip auto`. The lengths before the last come "
                   "from one invocation; the largest n runs alone (one timed run after "
                   "a warm-up), stopped by the suite if it outlasts its time limit. "
                   "Exponent: log(t / t_prev) / log(n / n_prev) (2 is dense).", "")
            out, prev = [], None
            for r in rows:
                t = r["seconds_median"]
                grow = t / prev["seconds_median"] if prev and prev["seconds_median"] > 0 \
                    else math.nan
                expo = math.log(grow) / math.log(r["n"] / prev["n"]) if isnum(grow) and \
                    grow > 0 else math.nan
                out.append([r["n"], r["isa"], fmt_ms(t), fmt_mib(r["peak_bytes"]),
                            fmt_agree(r["agree_fraction"]),
                            fmt_frac(r.get("skipped_fraction")), fmt_x(grow),
                            fmt_g(expo)])
                prev = r
            self.w(*md_table(["n", "isa", "ms", "peak", "agreement", "tiles skipped",
                              "t / t_prev", "exponent"], out,
                             ["--:", "---", "--:", "--:", "--:", "--:", "--:", "--:"]), "")
        if self.growth_stopped:
            self.w(f"sweep-growth-stopped.txt: {self.growth_stopped.strip()}.", "")
        self.w(*md_table(TARGET_HEAD, self.i14_growth_rows()), "")

    def i14_hardf64_table(self):
        self.w("### hard beside pe, f64 beside f32 (sweep-hardf64.csv)", "")
        pts = self.i14_hardf64()
        if not pts:
            self.w(f"sweep-hardf64.csv: {NM}.", "")
            return
        cols = [("hard", "f32"), ("pe", "f32"), ("hard", "f64"), ("pe", "f64")]
        sec = lambda v, k: v[k]["seconds_median"] if k in v else math.nan
        out = []
        for (f, isa, n), v in pts.items():
            t = {k: sec(v, k) for k in cols}
            ratio = lambda a, b: fmt_x(t[a] / t[b]) if isnum(t[a]) and isnum(t[b]) and \
                t[b] > 0 else "—"
            out.append([code(short(f)), isa, n] + [fmt_ms(t[k]) for k in cols]
                       + [ratio(("hard", "f32"), ("pe", "f32")),
                          ratio(("hard", "f64"), ("pe", "f64")),
                          ratio(("pe", "f64"), ("pe", "f32")),
                          ratio(("hard", "f64"), ("hard", "f32"))])
        self.w("pe at mu = 4 (the suite's default); hard has no mu. Medians of the "
               "repeats, ms.", "",
               *md_table(["formula", "isa", "n"] + [f"{m} {p} ms" for m, p in cols]
                         + ["hard / pe f32", "hard / pe f64", "f64 / f32 pe",
                            "f64 / f32 hard"], out,
                         ["---", "---", "--:"] + ["--:"] * 8), "",
               *md_table(TARGET_HEAD, self.i14_hardf64_rows(info=True)), "")

    # ---------------------------------------------------------- plots
    def section_plots(self):
        self.w("## Plots", "")
        for name, err, what in self.plots:
            if err is None:
                self.w(f"![{what}]({name})", "", f"*{name}*: {what}.", "")
            else:
                self.w(f"- {name} ({what}): not drawn — {err.lstrip(NODATA)}.")
        self.w("")

    def build(self, plot):
        self.plots = []
        self.exps = {}
        plot.stamp = self.stamp()
        self.provenance()
        self.section_headline()
        self.section_scaling(plot)
        self.section_accuracy(plot)
        self.section_suite()
        self.section_boundary(plot)
        self.section_rel_time()
        self.section_kernels()
        self.section_hyperfine()
        self.section_simulate()
        self.section_counting()
        self.section_threads()
        self.section_skip()
        self.section_programs()
        self.section_issue6()
        self.section_issue14()
        self.section_plots()
        return "\n".join(self.out).rstrip("\n") + "\n"


def extract_commands(text):
    """The variable settings, loops and hardsoft command lines of
    run-suite.sh, verbatim (continuation lines kept together)."""
    keep = re.compile(r'^\s*("\$HS" (bench|boundary|compile|simulate)|'
                      r'(lengths|long_n|acc_n|depth4|depth6|wide|isas|best|tmp|first|hm|'
                      r'growth_n|growth_limit)=|'
                      r'if timeout |tail -n \+2 "\$tmp\.big"|rc=\$\?$|\[ \$rc = 124 \]|echo "n = |'
                      r'export HS_|(el)?if \[ "\$(FULL|SMOKE)"|else\b|fi\b|for |done\b|'
                      r'mv |rm -rf |'
                      r'(BUILD=\S+ )?sh bench/|"\$PYTHON" bench/)')
    lines = text.splitlines()
    first = next((k for k, l in enumerate(lines) if l.startswith("isas=")), 0)
    out, i = [], first
    while i < len(lines):
        if keep.match(lines[i]):
            out.append(lines[i])
            while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                out.append(lines[i])
        i += 1
    return out or None


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: report.py RESULTS_DIR", file=sys.stderr)
        return 2
    d = argv[1]
    if not os.path.isdir(d):
        raise ReportError(f"{d}: not a directory")
    rep = Report(d)
    with tempfile.TemporaryDirectory(prefix="hs-report-") as work:
        plot = Plotter(d, work)
        text = rep.build(plot)
    tmp = os.path.join(d, ".REPORT.md.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(d, "REPORT.md"))
    failed = [(n, e) for n, e, _ in rep.plots if e and not e.startswith(NODATA)]
    for n, e in failed:
        print(f"report.py: warning: {n} not drawn: {e}", file=sys.stderr)
    drawn = sum(1 for _, e, _ in rep.plots if not e)
    print(f"report.py: wrote {os.path.join(d, 'REPORT.md')} and {drawn} plot(s)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except ReportError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        sys.exit(1)
    except OSError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        sys.exit(1)
