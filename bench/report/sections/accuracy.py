# SPDX-License-Identifier: MIT
"""Accuracy against μ: agreement with the logic and the largest attention
error of every mode, against the bound the compiler states."""
import math

from ..fmt import (LN7, MODES, NM, code, fmt_agree, fmt_err, fmt_ms, fmt_mu, index, isnum,
                   md_table, short, unique)
from ..plots import PALETTE, panel, style


def mode_bound(mode, mu, n):
    """The weight a softmax head may put off its hard target, as the
    compiler states it (`hardsoft compile --print`): S/(1+S) with
    S = 2e^-m/(1-e^-m), m = mu for pe, temp and rel at every n, m = mu/n
    for fixed (tau = 1/mu on bounded scores 1/n apart); 0 for hard."""
    if mode == "hard":
        return 0.0
    m = mu / max(n, 1) if mode == "fixed" else mu
    if not m > 0:
        return 1.0
    s = 2 * math.exp(-m) / -math.expm1(-m)
    return s / (1 + s)


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



def write(rep, plot):
    rep.w("## Accuracy against μ", "")
    if not rep.accuracy:
        rep.w(f"sweep-accuracy.csv: {NM}.", "")
        return
    rows = [r for r in rep.accuracy if r["precision"] == "f32"] or rep.accuracy
    isa = ", ".join(unique(r["isa"] for r in rows))
    rep.w(f"From sweep-accuracy.csv (random strings, ISA {isa}, "
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
            sentences.append(exact_sentence(rep, f, m, mus, ns, idx))
            summary.append((f, m, smallest_exact(f, m, mus, ns, idx)))
        rep.w(f"### {code(f)}", "",
               *md_table(["mode", "mu"] + [f"n={n}" for n in ns], table,
                         ["---", "--:"] + ["---"] * len(ns)), "")
        rep.w(*[f"- {s}" for s in sentences], "")
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
        rep.w("Smallest mu with agreement 1 at every n, per formula "
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
        rep.w("Attention error against the bound:", "", *chk, "")
    plot_accuracy(rep, plot, rows, forms, idx)

def smallest_exact(f, m, mus, ns, idx):
    for mu in mus:
        if all(idx.get((f, m, mu, n)) and idx[(f, m, mu, n)]["agree_fraction"] == 1
               for n in ns):
            return mu
    return None

def exact_sentence(rep, f, m, mus, ns, idx):
    if m == "hard":
        r = [idx.get((f, m, mus[0], n)) for n in ns] if mus else []
        ok = r and all(x and x["agree_fraction"] == 1 for x in r)
        return ("hard: exact at every n measured (the reference)." if ok else
                "hard: **not exact at every n** — the reference itself disagrees "
                "with the logic.")
    mu0 = smallest_exact(f, m, mus, ns, idx)
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
    later_bad = [mu for mu in mus if mu > mu0 and smallest_exact(
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

def plot_accuracy(rep, plot, rows, forms, idx):
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
        body += panel(f'{m}: agreement ({what})', series)
    body.append("unset multiplot")
    rep.draw(plot, "accuracy-agree.png", 500 * len(modes), 480, body,
                       f"agreement against mu, one line per n ({what})")
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
        body += panel(f'{m}: attention error ({what})', series)
    body.append("unset multiplot")
    rep.draw(plot, "accuracy-error.png", 500 * len(modes), 480, body,
                       "max attention error against mu (log y) with each mode's bound: "
                       "S/(1+S) of mu for pe, temp, rel; of mu/n, one line per n, for "
                       "fixed")
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
        body += panel(f'n = {nmax}: ' + short(f, 40), series)
    body.append("unset multiplot")
    rep.draw(plot, "accuracy-time.png", 1100, 400 * nrows, body,
                       f"time against mu at n = {nmax} (pe, temp, fixed): does the "
                       "magnitude change the speed?")
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
        rep.w(f"Does mu change the speed? Time at n = {nmax} (sweep-accuracy.csv; "
               "the runs per point are those of the sweep):", "", *lines, "")
