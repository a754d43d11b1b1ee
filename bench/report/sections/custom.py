# SPDX-License-Identifier: MIT
"""A user's own sweeps: any CSV of `hardsoft bench` or `hardsoft boundary`
in the folder under another name than the suite's, as a table and (for
bench) a plot of time against n, so that a custom run publishes like the
suite's."""
import os

from ..fmt import (ISA_LABEL, NM, code, fmt_agree, fmt_err, fmt_mib, fmt_ms, fmt_mu, fmt_x,
                   isnum, path_of, short, unique)
from ..plots import gq, panel, style

KEY = ["formula", "mode", "scale", "isa", "precision", "threads", "_skip"]
MAX_SERIES = 12


def speedup(rows, r, field, value):
    """t(the row of the same point with field = value) / t(r), or NaN."""
    same = [q for q in rows if q[field] == value and all(
        q[k] == r[k] for k in KEY + ["n"] if k != field)]
    return same[0]["seconds_median"] / r["seconds_median"] if same and \
        r["seconds_median"] > 0 else float("nan")


def bench_table(rep, name, rows):
    for r in rows:
        r["_skip"] = path_of(r)
    out = [[code(short(r["formula"])), r["mode"], "—" if r["mode"] == "hard" else
            fmt_mu(r["scale"]), r["isa"], r["precision"], r["threads"], r["_skip"], r["n"],
            fmt_ms(r["seconds_median"]), fmt_mib(r["peak_bytes"]),
            fmt_agree(r["agree_fraction"]), fmt_err(r["max_attn_error"]),
            fmt_x(speedup(rows, r, "isa", "scalar")), fmt_x(speedup(rows, r, "threads", 1))]
           for r in rows]
    rep.w(f"### {name}", "", f"`hardsoft bench` rows of {name} (median ms of the timed "
          "runs; speed-ups against the row of the same point on scalar and on one thread, "
          "from the same file):", "")
    rep.table(["formula", "mode", "μ", "isa", "precision", "threads", "skip", "n", "ms",
               "peak", "agree", "max attn error", "vs scalar", "vs 1 thread"], out,
              ["---"] * 8 + ["--:"] * 6)


def label(key, varying):
    names = dict(zip(KEY, key))
    parts = [short(names["formula"], 30) if "formula" in varying else None,
             names["mode"] if "mode" in varying else None,
             f"mu {fmt_mu(names['scale'])}" if "scale" in varying else None,
             ISA_LABEL.get(names["isa"], names["isa"]) if "isa" in varying else None,
             names["precision"] if "precision" in varying else None,
             f"{names['threads']} thr" if "threads" in varying else None,
             names["_skip"] if "_skip" in varying else None]
    return ", ".join(p for p in parts if p) or short(names["formula"], 30)


def bench_plot(rep, plot, name, rows):
    keys = unique(tuple(r[k] for k in KEY) for r in rows)
    varying = [k for i, k in enumerate(KEY) if len({key[i] for key in keys}) > 1]
    series = []
    for i, key in enumerate(keys[:MAX_SERIES]):
        pts = sorted((r["n"], r["seconds_median"] * 1e3) for r in rows
                     if tuple(r[k] for k in KEY) == key and isnum(r["seconds_median"]))
        series.append(f"{plot.data(pts)} using 1:2 with linespoints {style(None, i)} "
                      f"title {gq(label(key, varying))}")
    png = "custom-" + os.path.splitext(name)[0] + ".png"
    body = ["set logscale xy", "set xlabel 'n (string length)'",
            "set ylabel 'time (ms), median'", "set key top left"]
    body += panel(name + (f" (first {MAX_SERIES} of {len(keys)} series)"
                          if len(keys) > MAX_SERIES else ""), series)
    rep.draw(plot, png, 900, 560, body, f"time against n of {name}")


def boundary_table(rep, name, rows):
    rep.w(f"### {name}", "", f"`hardsoft boundary` rows of {name}: the largest n at which "
          "the model is exact on adversarial strings (>N: exact up to N, the largest "
          "searched).", "")
    rep.table(["formula", "mode", "μ", "precision", "largest exact n", "first failing n"],
              [[code(short(r["formula"])), r["mode"], fmt_mu(r["scale"]), r["precision"],
                r["largest_exact_n"], r["first_failing_n"] or "—"] for r in rows])


def write(rep, plot):
    if not rep.custom:
        return
    rep.w("## Other sweeps in this folder", "")
    rep.w("CSV files of `hardsoft bench` and `hardsoft boundary` under names of their own "
          "(a custom sweep), each shown from its rows alone.", "")
    for name, kind, rows in rep.custom:
        if not rows:
            rep.w(f"### {name}", "", f"{name}: {NM} (no rows).", "")
        elif kind == "bench":
            bench_table(rep, name, rows)
            bench_plot(rep, plot, name, rows)
        else:
            boundary_table(rep, name, rows)
