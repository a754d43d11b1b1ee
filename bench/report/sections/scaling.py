# SPDX-License-Identifier: MIT
"""Scaling with n: time, peak memory and throughput per ISA and path, and
growth exponents judged against what each path should do: the dense path
reads every key of every row (time ~ n^2), the default path skips the key
tiles whose weights underflow once it chooses to (time ~ n, n log n with
its bound search), and neither keeps an n x n matrix (memory ~ n)."""
import math

from ..fit import FIT_MIN_DECADES, FIT_MIN_POINTS, fit_loglog, fmt_fit, judge_slope
from ..fmt import (HS_ISAS, ISA_LABEL, NM, PATH_LABEL, PEERS, code, fmt_g, fmt_ms, isnum,
                   order_isas, short)
from ..plots import NODATA, gq, panel, style

# time exponents by path, peak memory for both
EXP = {"online": (1.9, 2.1), "auto": (0.85, 1.2)}
MEM_LO, MEM_HI = 0.85, 1.15


def series(rep, f):
    """[(isa, path)] of formula f: hardsoft's ISAs on each path measured,
    then each peer."""
    rows = [r for r in rep.scal if r["formula"] == f]
    out = []
    for isa in order_isas({r["isa"] for r in rows}):
        paths = [p for p in ("auto", "online") if any(r["isa"] == isa and r["_path"] == p
                                                     for r in rows)]
        out += [(isa, p) for p in paths]
    return out


def label(isa, path):
    return ISA_LABEL.get(isa, isa) + (f" {PATH_LABEL[path]}" if isa in HS_ISAS else "")


def is_fraction(v):
    try:
        return not math.isnan(float(v))
    except (TypeError, ValueError):
        return False


def switch_n(rep, f, isa):
    """The smallest n at which the default path skipped tiles (the first
    with a skipped fraction); None if it never did."""
    ns = [r["n"] for r in rep.scal if r["formula"] == f and r["isa"] == isa
          and r["_path"] == "auto" and is_fraction(r.get("skipped_fraction"))]
    return min(ns) if ns else None


def write(rep, plot):
    rep.w("## Scaling with n", "")
    if not rep.scal:
        rep.w(f"sweep-scaling.csv: {NM}.", "")
        return
    src = "sweep-scaling.csv" + (" and sweep-scaling-long.csv" if rep.long else "")
    lo2, hi2 = EXP["online"]
    lo1, hi1 = EXP["auto"]
    rep.w(f"From {src} (f32, 1 thread). Exponents are least-squares slopes of "
          "ln(value) against ln(n), given as slope ± standard error with the 95% "
          "interval (slope ± t(k−2)·se, k lengths). Each of hardsoft's paths is judged "
          "against what it should do: the **dense** path (`--skip online`) reads every "
          f"key of every row, time ∝ n^{lo2}…n^{hi2}, fitted over every length; the "
          "**default** path (`--skip auto`) is the dense one until its sampled rows "
          "show that skipping pays, then skips the key tiles whose weights underflow, "
          f"time ∝ n^{lo1}…n^{hi1} (near-linear: the bound search adds a log n), "
          "fitted over the lengths from the n where it first skipped (column "
          "*switch*). Peak memory ∝ n on both (exponent "
          f"{MEM_LO}…{MEM_HI}: no n×n matrix kept). A target is **met** when the "
          "slope lies in its range, **missed** only when the whole 95% interval "
          "lies outside it, *inconclusive* in between, and *not judged* with fewer "
          f"than {FIT_MIN_POINTS} lengths or less than {FIT_MIN_DECADES:g} decades "
          "of n. The peers' exponents (often over fewer lengths: they hold the "
          "(n+1)² score matrix) are shown for comparison, not judged.", "")
    rep.exps = {}
    for f in rep.scal_formulas:
        rows_f = [r for r in rep.scal if r["formula"] == f]
        ns = sorted({r["n"] for r in rows_f})
        rep.w(f"### {code(f)}", "")
        trows, mrows, prows = [], [], []
        for isa, path in series(rep, f):
            rr = [rep.row(f, isa, n, path) for n in ns]
            tpts = [(n, r["seconds_median"] if r else float("nan")) for n, r in zip(ns, rr)]
            mpts = [(n, r["peak_bytes"] if r else float("nan")) for n, r in zip(ns, rr)]
            hs = isa in HS_ISAS
            sw = switch_n(rep, f, isa) if hs and path == "auto" else None
            te = fit_loglog(tpts, sw or 0)
            me = fit_loglog(mpts)
            rep.exps[(f, isa, path)] = te
            if hs and path == "auto" and sw is None:
                tstat = fmt_fit(te, "not judged: never skipped")
            else:
                tstat = fmt_fit(te, judge_slope(te, *EXP[path]) if hs else None)
            mstat = fmt_fit(me, judge_slope(me, MEM_LO, MEM_HI) if hs else None)
            swc = (f"n = {sw}" if sw else "never") if hs and path == "auto" else "—"
            name = label(isa, path)
            trows.append([name] + [fmt_ms(t) for _, t in tpts] + [swc, tstat])
            mrows.append([name] + [fmt_g(b / 2 ** 20) if isnum(b) else "—" for _, b in mpts]
                         + [mstat])
            prows.append([name] + [fmt_g(r["positions_per_s"]) if r else "—" for r in rr])
        al = ["---"] + ["--:"] * len(ns)
        cols = ["ISA, path"] + [f"n={n}" for n in ns]
        rep.w("Time (ms, median):", "")
        rep.table(cols + ["switch", "exponent"], trows, al + ["--:", "---"])
        rep.w("Peak memory (MiB):", "")
        rep.table(cols + ["exponent"], mrows, al + ["---"])
        rep.w("Throughput (positions per second):", "")
        rep.table(cols, prows, al)
    plot_scaling(rep, plot)


def plot_scaling(rep, plot):
    forms = rep.scal_formulas[:2]
    if not forms:
        return
    # 1. time against n, every ISA and peer, one panel per formula
    body = [f"set multiplot layout 1,{len(forms)}",
            "set logscale xy 2", "set format y '%g'", "set xlabel 'n (string length)'",
            "set ylabel 'time per forward pass (ms)'", "set key top left font ',9'"]
    for f in forms:
        ns = sorted({r["n"] for r in rep.scal if r["formula"] == f})
        lines = []
        for i, (isa, path) in enumerate(series(rep, f)):
            d = plot.data([(n, rep.t(f, isa, n, path) * 1e3) for n in ns])
            e = rep.exps.get((f, isa, path))
            lab = label(isa, path) + (
                f" (slope {e.slope:.2f}" + (f" ± {e.se:.2g})" if isnum(e.se) else ")")
                if e is not None else "")
            dash = "dt 2" if isa in HS_ISAS and path == "online" else "dt 1"
            lines.append(f"{d} using 1:2 with linespoints {style(isa, i)} {dash} "
                         f"title {gq(lab)}")
        body += panel('time against n (dashed: dense path): ' + short(f, 36), lines)
    body.append("unset multiplot")
    rep.draw(plot, "scaling-time.png", 700 * len(forms), 560, body,
                       "time against n, log-log, per ISA and path, slopes ± "
                       "standard error")
    # 2. AVX2 and AVX-512 speed-up over scalar against n
    lines = ratio_lines(rep, plot, forms, [(i, "scalar", i) for i in ("avx2", "avx512")])
    if lines:
        lines.append("2 with lines lw 1 lc rgb '#888888' dt 3 title 'target 2x (AVX2)'")
        lines.append("3 with lines lw 1 lc rgb '#555555' dt 3 title 'target 3x (AVX-512)'")
        body = ["set logscale x 2", "set xlabel 'n (string length)'",
                "set ylabel 'speed-up over scalar (t_scalar / t_ISA)'",
                "set yrange [0:*]", "set key outside right top vertical font ',9'",
                "set title 'default path: SIMD speed-up over scalar "
                "(solid: first formula, dashed: second)'",
                "plot " + ", \\\n  ".join(lines)]
        rep.draw(plot, "scaling-speedup.png", 1250, 560, body,
                           "AVX2 and AVX-512 speed-up over scalar against n")
    # 3. the peers against n: t_peer / t_AVX2
    lines = ratio_lines(rep, plot, forms, [(p, p, "avx2") for p in PEERS])
    if lines:
        body = ["set logscale xy 2", "set format y '%g'", "set xlabel 'n (string length)'",
                "set ylabel 't_peer / t_AVX2 (times slower than AVX2)'",
                "set key outside right top vertical font ',9'",
                "set title 'peers (dense matmul + softmax, not fused kernels) / "
                "hardsoft AVX2; solid: first formula, dashed: second'",
                "plot " + ", \\\n  ".join(lines)]
        rep.draw(plot, "scaling-peers.png", 1250, 560, body,
                           "the peers against n, as time relative to AVX2")
    else:
        rep.plots.append(("scaling-peers.png", NODATA + "no peer rows (numpy, torch, "
                           "openblas) in sweep-scaling.csv", "the peers against n"))


def ratio_lines(rep, plot, forms, series):
    """gnuplot clauses of t_first / t_second against n, for each formula
    (solid: the first, dashed: the second) and each (styled as, first,
    second) of series that has a point."""
    lines, k = [], 0
    for f in forms:
        ns = sorted({r["n"] for r in rep.scal if r["formula"] == f})
        for key, first, second in series:
            pts = [(n, rep.t(f, first, n) / rep.t(f, second, n)) for n in ns]
            if not any(isnum(v) for _, v in pts):
                continue
            dash = "dt 1" if f == forms[0] else "dt 2"
            lines.append(f"{plot.data(pts)} using 1:2 with linespoints {style(key, k)} {dash} "
                         f"title {gq(ISA_LABEL[key] + ': ' + short(f, 30))}")
            k += 1
    return lines
