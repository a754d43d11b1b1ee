# SPDX-License-Identifier: MIT
"""Counting at scale: majority, Dyck-1 and a C-RASP program at n = 2^10 ...
2^20 in pe and rel, f32, time and agreement, and the growth t(2^20) /
t(2^16), which is 16 where the forward pass is linear and 256 where it is
quadratic (sweep-counting-scale.csv; a length stopped by the suite's
limit stops the larger ones of its row)."""
from ..compare import TARGET_HEAD, nm_row, ratio_row
from ..fmt import NM, code, fmt_agree, fmt_ms, fmt_x, isnum, mark
from ..plots import gq, panel, style

LO_N, HI_N, WANT = 2 ** 16, 2 ** 20, 20.0


def series(rep):
    """{(formula, mode): {n: row}} of sweep-counting-scale.csv."""
    out = {}
    for r in rep.counting_scale or []:
        out.setdefault((r["formula"], r["mode"]), {})[r["n"]] = r
    return out


def stopped_line(rep, formula, mode):
    """The suite's stop line of a row, if one of its lengths was stopped."""
    for line in (rep.counting_scale_stopped or "").splitlines():
        if line.startswith(f"{formula} {mode} n = "):
            return line
    return None


def targets(rep):
    target = f"counting: t(n={HI_N}) / t(n={LO_N}) <= {WANT:g}x (linear: 16x)"
    got = series(rep)
    if not got:
        return [nm_row(target, "sweep-counting-scale.csv")]
    out = []
    for (f, m), by_n in got.items():
        run = f"{code(f)} {m} mu=4, {next(iter(by_n.values()))['isa']}, 1 thread"
        if LO_N in by_n and HI_N in by_n:
            out.append(ratio_row(target, run, by_n[HI_N], by_n[LO_N], lambda v: v <= WANT))
            continue
        stop = stopped_line(rep, f, m)
        out.append([target, run, stop[len(f"{f} {m} "):].replace("|", "\\|") if stop else NM,
                    "—", mark(False) if stop else f"**{NM}**"])
    return out


def write(rep, plot):
    rep.w("## Counting at scale: majority, Dyck-1 and a C-RASP program", "")
    got = series(rep)
    if not got:
        rep.w(f"sweep-counting-scale.csv: {NM}.", "")
        return
    rep.w("From sweep-counting-scale.csv: pe and rel at μ = 4, f32, one thread, one "
          "`hardsoft bench` invocation a length (one timed run after a warm-up), "
          "agreement with the logic at every position. A length the suite stopped after "
          "its limit (`HS_BENCH_COUNT_LIMIT`) ends its row: no larger n is run. Cell: "
          "ms / agreement. t(2^20) / t(2^16) is 16 for a linear forward pass, 256 for a "
          "quadratic one.", "")
    ns = sorted({n for v in got.values() for n in v})
    rows = []
    for (f, m), by_n in got.items():
        cells = [f"{fmt_ms(by_n[n]['seconds_median'])} / {fmt_agree(by_n[n]['agree_fraction'])}"
                 if n in by_n else "—" for n in ns]
        g = (by_n[HI_N]["seconds_median"] / by_n[LO_N]["seconds_median"]
             if LO_N in by_n and HI_N in by_n else float("nan"))
        rows.append([code(f), m] + cells + [fmt_x(g) if isnum(g) else "—"])
    rep.table(["formula", "mode"] + [f"n={n}" for n in ns] + ["t(2^20) / t(2^16)"], rows,
              ["---", "---"] + ["--:"] * (len(ns) + 1))
    if rep.counting_scale_stopped:
        rep.w("Stopped by the suite:", "", *[f"- {l}" for l in
                                             rep.counting_scale_stopped.splitlines()], "")
    rep.table(TARGET_HEAD, targets(rep))
    draw(rep, plot, got)


def draw(rep, plot, got):
    series_ = []
    for i, ((f, m), by_n) in enumerate(got.items()):
        pts = sorted((n, r["seconds_median"] * 1e3) for n, r in by_n.items())
        series_.append(f"{plot.data(pts)} using 1:2 with linespoints {style(None, i)} "
                       f"title {gq(f'{f} ({m})')}")
    body = ["set logscale xy", "set xlabel 'n (string length)'",
            "set ylabel 'time (ms), one run'", "set key top left"]
    body += panel("counting at scale: pe and rel, f32, 1 thread", series_)
    rep.draw(plot, "counting-scale.png", 900, 560, body,
             "time against n of majority, Dyck-1 and a C-RASP program, pe and rel "
             "(sweep-counting-scale.csv)")
