# SPDX-License-Identifier: MIT
"""The precision boundary: the largest n at which each construction stays
exact in each precision, beside what the format's significand predicts;
and rel's forward-pass time beside pe's."""
import math

from ..fmt import LN7, MODES, NM, code, fmt_mu, index, md_table, mark, short, unique
from ..plots import gq, style
from .provenance import max_searched

# boundary precisions: f16s/bf16s round the scores q.k, f16/bf16 store the
# queries, keys and values in the format (hardsoft boundary --precision)
PRECISIONS = ["f64", "f32", "f16s", "bf16s", "f16", "bf16"]
SIGNIFICAND = {"f64": 53, "f32": 24, "f16s": 11, "f16": 11, "bf16s": 8, "bf16": 8}
F16_MAX = 65504.0
REL_PE_MAX = 1.10  # rel's time within 10% of pe's


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


# The timed long search of the suite (bench/run-suite.sh): the command, the
# n it must pass and the time it must take.
LONG_FORMULA = "H (a -> Y (b S c))"
LONG_N = 1048576
LONG_S = 120.0


def targets(rep):
    """The long rel boundary's target row: `hardsoft boundary` on
    LONG_FORMULA, rel, bf16, --max-n LONG_N prints >LONG_N within LONG_S."""
    target = f"rel bf16 boundary prints >{LONG_N} within {LONG_S:g} s"
    run = f"{code(LONG_FORMULA)} rel mu=4 bf16, --max-n {LONG_N}, wall time"
    rows = [r for r in rep.boundary_long or [] if r["max_n"] == LONG_N]
    if rows:
        r = rows[0]
        got = f"{r['largest_exact_n']} in {r['wall_s']:.1f} s"
        ok = r["exact_open"] and r["exact_n"] >= LONG_N and r["wall_s"] <= LONG_S
        return [[target, run, got, "—", mark(ok)]]
    stopped = (rep.boundary_long_stopped or "").strip()
    if stopped.startswith(f"n = {LONG_N}:"):
        return [[target, run, stopped.replace("|", "\\|"), "—", mark(False)]]
    return [[target, run, NM, "—", f"**{NM}**"]]


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



def write(rep, plot):
    rep.w("## Precision boundary", "")
    if not rep.boundary:
        rep.w(f"boundary.csv: {NM}.", "")
        return
    rows = rep.boundary
    idx = index(rows, ["formula", "mode", "scale", "precision"])
    keys = unique((r["formula"], r["mode"], r["scale"]) for r in rows)
    precs = [p for p in PRECISIONS if any(r["precision"] == p for r in rows)]
    nmax = max_searched(rep.boundary)
    rep.w("Largest n at which the compiled model is still exact on the adversarial "
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
    rep.table(["formula", "mode", "mu"] + precs + ["exact-arithmetic bound"], out,
              ["---", "---", "--:"] + ["--:"] * (len(precs) + 1), tex_name="boundary",
              note="largest exact n per precision (predicted by the significand)")
    rep.w(PREDICTION_TEXT, "")
    rep.w(boundary_paragraph(rows, nmax), "")
    plot_boundary(rep, plot, rows, precs)

def plot_boundary(rep, plot, rows, precs):
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
    rep.draw(plot, "boundary.png", 760, 480, body,
                       "largest exact n against precision, one line per mode "
                       f"(mu = {fmt_mu(mu)}, the smallest over the formulas)")

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
def write_rel_time(rep, plot):
    rep.w("### rel beside pe: forward-pass time", "")
    rows = rep.rel_time
    if not rows:
        rep.w(f"sweep-rel.csv: {NM}.", "")
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
    rep.w("The same formulas compiled in pe and rel (mu = 4), one thread, median of "
           "the repeats (`hardsoft bench --modes pe,rel`); target: rel within 10% of "
           "pe. A shared machine: differences of a few percent are noise.", "")
    rep.w(*md_table(["formula", "isa", "n", "pe (ms)", "rel (ms)", "rel / pe",
                      "≤ 1.10"], out), "")
