# SPDX-License-Identifier: MIT
"""Counting comparisons under the two sign methods, every mode."""
from ..fmt import NM, code, fmt_agree, fmt_err, fmt_ms, fmt_mu, md_table, unique


def write(rep, plot):
    rep.w("## Counting: the two sign methods", "")
    rows = rep.counting
    if not rows:
        rep.w(f"sweep-counting.csv: {NM}.", "")
        return
    rep.w("From sweep-counting.csv: counting comparisons compiled with `--sign "
           "layernorm` (layer normalization of [u, -u] with epsilon 0: exact in every "
           "mode) and `--sign temp` (softmax between BOS and the other keys at "
           "tau = 1/(mu n ln(n+1)); weight on the wrong side <= (n+1)^(1-mu/4), exact "
           "for mu > 12; fixed mode uses tau = 1/mu). Cell: agreement / largest "
           "attention error; last column: ms per forward pass at the largest n.", "")
    ns = sorted({r["n"] for r in rows})
    for f in unique(r["formula"] for r in rows):
        rep.w(f"### {code(f)}", "")
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
        rep.w(*md_table(["sign", "mode", "mu"] + [f"n={n}" for n in ns] + ["ms"], out),
               "")
