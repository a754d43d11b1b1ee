# SPDX-License-Identifier: MIT
"""Time by phase: where the forward pass spends its time on each ISA, on
the default and the dense path (`hardsoft bench --phases`, whose columns
sweep-paths.csv carries when the binary that ran the suite had them)."""
from ..fmt import (DEPTH4, HS_ISAS, ISA_LABEL, NM, PATH_LABEL, code, fmt_ms, fmt_mu, fmt_x, isnum,
                   order_isas, path_of, short)
from ..plots import PALETTE, STAMP_BMARGIN, gq, panel
from ..reading import PHASE_COLS, PHASES

PHASE_DOC = {"gemm": "projections and feed-forward", "bounds": "bounds build",
             "search": "bound search and tree walk", "attn": "attention kernels",
             "finish": "row finishing and outputs", "wait": "waiting on other threads"}


def rows_with_phases(rep):
    return [r for r in rep.paths or [] if r["isa"] in HS_ISAS and r["threads"] == 1
            and any(isnum(r.get(c)) for c in PHASE_COLS)]


def rest(r):
    """The time no phase accounts for (median of the total against the
    sum of the phases' medians: not a phase, and it may be negative)."""
    return r["seconds_median"] - sum(r[c] for c in PHASE_COLS if isnum(r.get(c)))


def write(rep, plot):
    rep.w("## Time by phase", "")
    rows = rows_with_phases(rep)
    if not rep.paths:
        rep.w(f"sweep-paths.csv: {NM}.", "")
        return
    if not rows:
        rep.w("sweep-paths.csv has no phase columns: the `hardsoft` that ran the suite "
              "has no `bench --phases`.", "")
        return
    rep.w("From sweep-paths.csv (`hardsoft bench --phases`, pe, f32, 1 thread): the "
          "median seconds of each phase over the timed runs — "
          + "; ".join(f"**{p}**: {PHASE_DOC[p]}" for p in PHASES)
          + ". Cells: ms (share of the total); *rest*: the median total less the sum of "
          "the phases' medians (the medians of the parts need not add up to the "
          "median of the whole).", "")
    out = []
    for r in rows:
        tot = r["seconds_median"]
        cells = [f"{fmt_ms(r[c])} ({100 * r[c] / tot:.0f}%)" if isnum(r.get(c)) and tot > 0
                 else "—" for c in PHASE_COLS]
        out.append([code(short(r["formula"], 30)), f"{r['n']}, μ = {fmt_mu(r['scale'])}",
                    PATH_LABEL.get(path_of(r), path_of(r)), ISA_LABEL[r["isa"]],
                    fmt_ms(tot)] + cells + [fmt_ms(rest(r))])
    rep.table(["formula", "n, μ", "path", "ISA", "total ms"] + PHASES + ["rest"], out,
              ["---", "--:", "---", "---", "--:"] + ["--:"] * (len(PHASES) + 1),
              tex_name="phases", note="forward-pass time by phase, ms (share of total)")
    rep.w("What SIMD buys in each phase: t_scalar / t_ISA of the phase on the same "
          "path and setting.", "")
    out = []
    for key, by_isa in settings(rows).items():
        sc = by_isa.get("scalar")
        for isa in order_isas(set(by_isa) - {"scalar"}):
            r = by_isa[isa]
            out.append([code(short(key[0], 30)), f"{key[1]}, μ = {fmt_mu(key[2])}",
                        PATH_LABEL.get(key[3], key[3]), ISA_LABEL[isa]]
                       + [fmt_x(sc[c] / r[c]) if sc and isnum(sc.get(c)) and isnum(r.get(c))
                          and r[c] > 0 else "—" for c in PHASE_COLS + ["seconds_median"]])
    rep.table(["formula", "n, μ", "path", "ISA"] + PHASES + ["total"], out,
              ["---", "--:", "---", "---"] + ["--:"] * (len(PHASES) + 1))
    write_ceiling(rep, rows)
    plot_phases(rep, plot, rows)


# The phases wide vectors speed up on the default path; the others (bounds,
# search, finish, wait) are the skipping's bookkeeping and the outputs.
VECTOR_PHASES = ["gemm", "attn"]
DEFAULT_TARGET = {"avx2": 2.0, "avx512": 3.0}


def ceiling(sc, r):
    """Amdahl's bound on t_scalar / t_ISA with the ISA's own time in
    every phase outside VECTOR_PHASES and nothing at all in those: what
    the default path's ratio could reach if gemm and attention were free."""
    floor = sum(r[f"phase_{p}_s"] for p in PHASES
                if p not in VECTOR_PHASES and isnum(r.get(f"phase_{p}_s")))
    return sc["seconds_median"] / floor if floor > 0 else float("nan")


def write_ceiling(rep, rows):
    """Per default-path ISA row: the measured ratio against scalar, the
    ceiling if the vector phases cost nothing, and the phase that takes
    the most time, so that a missed speed-up target shows what binds it."""
    out = []
    for key, by_isa in settings(rows).items():
        sc = by_isa.get("scalar")
        if key[3] != "auto" or not sc:
            continue
        for isa in order_isas(set(by_isa) - {"scalar"}):
            r = by_isa[isa]
            big = max((p for p in PHASES if isnum(r.get(f"phase_{p}_s"))),
                      key=lambda p: r[f"phase_{p}_s"], default=None)
            tgt = DEFAULT_TARGET.get(isa)
            out.append([code(short(key[0], 30)), f"{key[1]}, μ = {fmt_mu(key[2])}",
                        ISA_LABEL[isa], fmt_x(sc["seconds_median"] / r["seconds_median"]),
                        fmt_x(tgt) if tgt else "—", fmt_x(ceiling(sc, r)),
                        f"{big} ({100 * r[f'phase_{big}_s'] / r['seconds_median']:.0f}%)"
                        if big else "—"])
    if not out:
        return
    rep.w("What binds the default path's speed-up. *Ceiling*: t_scalar / t_ISA if "
          + " and ".join(VECTOR_PHASES) + " (the phases wide vectors speed up) took "
          "no time and every other phase kept the time it took on that ISA (Amdahl's "
          "bound of the run); a target above the ceiling cannot be met by faster "
          "kernels alone, only by shrinking the other phases.", "")
    rep.table(["formula", "n, μ", "ISA", "measured", "target", "ceiling",
               "largest phase"], out, ["---", "--:", "---", "--:", "--:", "--:", "---"])


def settings(rows):
    """{(formula, n, mu, path): {isa: row}}."""
    out = {}
    for r in rows:
        out.setdefault((r["formula"], r["n"], r["scale"], path_of(r)), {})[r["isa"]] = r
    return out


def plot_phases(rep, plot, rows):
    """One panel per ISA, one stacked bar per formula, setting and path:
    each phase's time over the scalar total of the same run, so that the
    scalar bars are the phases' shares and a wide ISA's bar is its time
    relative to scalar."""
    sets = settings(rows)
    keys = [k for k in sets if "scalar" in sets[k]]
    isas = order_isas({isa for k in keys for isa in sets[k]})
    if not keys:
        rep.plots.append(("phases.png", "\0no scalar rows to compare with", "time by phase"))
        return
    tics = ", ".join(f"{gq(bar_label(k))} {i}" for i, k in enumerate(keys))
    heights = [sum(v for v in row if isnum(v)) for isa in isas
               for row in bar_rows(sets, keys, isa)]
    body = [f"set multiplot layout 1,{len(isas)}", "set style data histograms",
            "set style histogram rowstacked", "set style fill solid 0.85 border -1",
            "set boxwidth 0.75", f"set xtics ({tics}) rotate by -45 font ',8'",
            # the tic labels reach further down than an axis label
            f"set bmargin {STAMP_BMARGIN + 4}",
            "set ylabel 'time / scalar total of the same run'",
            f"set yrange [0:{max(heights + [1]) * 1.3:.3g}]",
            "set key top left horizontal maxrows 2 font ',8'"]
    for isa in isas:
        pts = bar_rows(sets, keys, isa)
        d = plot.data(pts)
        series = [f"{d} using {j + 1} lc rgb '{PALETTE[j % len(PALETTE)]}' title {gq(p)}"
                  for j, p in enumerate(PHASES + ["rest"])]
        body += panel(ISA_LABEL[isa] + ': time by phase', series)
    body.append("unset multiplot")
    rep.draw(plot, "phases.png", 420 * len(isas) + 100, 560, body,
                      "time by phase per ISA, default and dense path, relative to the "
                      "scalar total of the same run")


def bar_rows(sets, keys, isa):
    """Per bar (formula, setting, path): each phase's time and the rest,
    over the scalar total of the same run; NaN where isa has no row."""
    out = []
    for k in keys:
        sc = sets[k]["scalar"]["seconds_median"]
        r = sets[k].get(isa)
        out.append([(r[c] / sc if r and isnum(r.get(c)) else float("nan")) for c in PHASE_COLS]
                   + [max(rest(r), 0) / sc if r else float("nan")])
    return out


def bar_label(key):
    f, n, _, path = key
    name = "depth 4" if f == DEPTH4 else short(f, 10)
    size = f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else str(n)
    return f"{name} {size} {PATH_LABEL.get(path, path)}"
