# SPDX-License-Identifier: MIT
"""The formula suite: every formula of bench/formulas.txt, f32 beside f64."""
from ..fmt import NM, code, fmt_agree, fmt_err, fmt_ms, fmt_mu, fmt_x, index, isnum, md_table, unique


def write(rep, plot):
    rep.w("## Formula suite", "")
    if not rep.suite:
        rep.w(f"sweep-suite.csv: {NM}.", "")
        return
    ns = sorted({r["n"] for r in rep.suite})
    n = 1024 if 1024 in ns else ns[-1]
    rows = [r for r in rep.suite if r["n"] == n]
    idx = index(rows, ["formula", "mode", "scale", "precision"])
    precs = [p for p in ["f32", "f64"] if any(r["precision"] == p for r in rows)]
    isa = ", ".join(unique(r["isa"] for r in rows))
    rep.w(f"Every formula of bench/formulas.txt at n = {n} (ISA {isa}): median ms, "
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
    rep.w(*md_table(head + ["f64/f32"], out,
                     ["---", "---", "--:"] + ["--:"] * (3 * len(precs) + 1)), "")
    bad = [(f, m, mu, p) for (f, m, mu, p), r in idx.items() if r["agree_fraction"] < 1]
    s = ("Every point agrees with the logic." if not bad else
         f"{len(bad)} of {len(idx)} points disagree with the logic somewhere: "
         + "; ".join(f"{code(f)} {m} mu={fmt_mu(mu)} {p}" for f, m, mu, p in bad[:8])
         + (" …" if len(bad) > 8 else "") + ".")
    if ratios:
        srt = sorted(ratios)
        s += (f" f64/f32 time ratio: median {srt[len(srt) // 2]:.2f}×, "
              f"range {srt[0]:.2f}…{srt[-1]:.2f}×.")
    rep.w(s, "")
