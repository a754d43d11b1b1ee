# SPDX-License-Identifier: MIT
"""hard mode beside pe and f64 beside f32, one invocation each
(sweep-hardf64.csv)."""
import math

from ..compare import TARGET_HEAD, nm_row, ratio_row
from ..fmt import NM, code, fmt_ms, fmt_x, isnum, short

HF_N, HARD_PE_MAX, F64_F32_MAX = 4096, 1.0, 2.5


def points(rep):
    """{(formula, isa, n): {(mode, precision): seconds}} of
    sweep-hardf64.csv (pe at any mu: the sweep runs one)."""
    out = {}
    for r in rep.hardf64 or []:
        if r["threads"] == 1:
            key = (r["formula"], r["isa"], r["n"])
            out.setdefault(key, {})[(r["mode"], r["precision"])] = r
    return out

def targets(rep, info=False):
    """T4 hard / pe in f32 and T5 f64 / f32 on pe at n = 4096; with
    info, also hard / pe in f64 and f64 / f32 on hard (no target)."""
    pts = {k: v for k, v in points(rep).items() if k[2] == HF_N}
    n = HF_N
    cases = [(f"hard / pe <= {HARD_PE_MAX:.1f}x, f32, pe mu=4, n={n}",
              HARD_PE_MAX, ("hard", "f32"), ("pe", "f32")),
             (f"f64 / f32 <= {F64_F32_MAX:.1f}x, pe mu=4, n={n}", F64_F32_MAX,
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

def write(rep, plot):
    rep.w("## hard beside pe, f64 beside f32", "")
    pts = points(rep)
    if not pts:
        rep.w(f"sweep-hardf64.csv: {NM}.", "")
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
    rep.w("From sweep-hardf64.csv: pe at mu = 4 (the suite's default); hard has no "
          "mu. Medians of the repeats, ms.", "")
    rep.table(["formula", "isa", "n"] + [f"{m} {p} ms" for m, p in cols]
              + ["hard / pe f32", "hard / pe f64", "f64 / f32 pe", "f64 / f32 hard"], out,
              ["---", "---", "--:"] + ["--:"] * 8)
    rep.table(TARGET_HEAD, targets(rep, info=True))
