# SPDX-License-Identifier: MIT
"""Threads: the same forward pass with its rows split among threads."""
from ..compare import pairs, ratio_row
from ..fmt import NM, code, fmt_ms, fmt_x, isnum, mark, short, unique

THREADS_WANT, THREADS_MIN_N = 1.8, 4096  # 2 threads against 1, n >= 4096


def write(rep, plot):
    rep.w("## Threads", "")
    rows = rep.threads
    if not rows:
        rep.w(f"sweep-threads.csv: {NM}.", "")
        return
    rep.w("From sweep-threads.csv: the same forward pass with its rows split among "
          "threads (the outputs are bit-identical for every thread count; "
          f"`make check` tests it). Target: 2 threads >= {THREADS_WANT}x one thread at "
          f"n >= {THREADS_MIN_N}.", "")
    ts = sorted({r["threads"] for r in rows})
    out = []
    for (f, isa, n) in unique((r["formula"], r["isa"], r["n"]) for r in rows):
        t = {r["threads"]: r["seconds_median"] for r in rows
             if r["formula"] == f and r["isa"] == isa and r["n"] == n}
        cells = [fmt_ms(t[k]) if k in t else NM for k in ts]
        sp = t[1] / t[2] if 1 in t and 2 in t and t[2] > 0 else float("nan")
        status = NM if not isnum(sp) else (
            f"{fmt_x(sp)} " + (mark(sp >= THREADS_WANT) if n >= THREADS_MIN_N else ""))
        out.append([code(short(f)), isa, n] + cells + [status])
    rep.table(["formula", "isa", "n"] + [f"{k} thread(s) ms" for k in ts] + ["2 vs 1"], out)


def targets(rep):
    two = pairs(rep.threads, lambda r: r["threads"] == 1 and r["n"] >= THREADS_MIN_N,
                lambda r: r["threads"] == 2, ["formula", "n", "isa", "skip"])
    return [ratio_row(f"2 threads >= {THREADS_WANT}x 1 thread, n >= {THREADS_MIN_N}",
                      f"{code(short(one['formula']))} n={one['n']}, {one['isa']}",
                      one, two_, lambda v: v >= THREADS_WANT) for one, two_ in two]
