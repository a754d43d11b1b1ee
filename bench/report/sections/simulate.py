# SPDX-License-Identifier: MIT
"""Hard-attention models simulated by softmax at a temperature chosen from
their measured score gap (`hardsoft simulate`)."""
import math

from ..fmt import NM, fmt_agree, fmt_err, fmt_g, fmt_mu, isnum, md_table, unique


def write(rep, plot):
    rep.w("## Simulating hard models", "")
    rows = rep.simulate
    if not rows:
        rep.w(f"simulate.csv: {NM}.", "")
        return
    ns = sorted({r["n"] for r in rows})
    mus = unique(fmt_mu(r["mu"]) for r in rows)
    precs = unique(r["precision"] for r in rows)
    strings = unique(str(r["strings"]) for r in rows)
    rep.w("`hardsoft simulate` runs each hard-attention model exactly, measures gamma "
           "(the smallest gap between a maximal and a non-maximal score over every hard "
           "head, query and string), replaces every hard head by softmax at "
           "tau = gamma / (mu + ln(n+1)) — which bounds the weight off the maximal "
           "positions by (n+1) e^(-gamma/tau) = e^(-mu) per head — and runs both "
           f"(simulate.csv: {', '.join(strings)} random string(s) over the alphabet per "
           f"n, mu = {', '.join(mus)}, precision {', '.join(precs)}). Heads: u uniform "
           "(all scores equal), tl tieless, t tied, as measured after ties are broken: "
           "a unique-hard head seen with tied maxima first gets a position term "
           "±delta·j/n (delta = half its gap), the same choice as a unique maximum with "
           "gap ≥ gamma/(2n) (tb: how many heads; gamma before: the gap before that); "
           "a head still tied after it (**tied unique-hard**) is not simulable "
           "(softmax averages tied maxima). attn err: the largest weight the "
           "softmax run put off a head's hard choice; deviation: the largest "
           "|softmax − hard| of the residual stream over layers, positions and "
           "coordinates; agree: fraction of decisions that agree.", "")
    out = []
    for r in rows:
        heads = (f"{r['heads_uniform']:g} u, {r['heads_tieless']:g} tl, "
                 f"{r['heads_tied']:g} t")
        if r["heads_tiebroken"] > 0:
            heads += f", {r['heads_tiebroken']:g} tb"
        if r["heads_tied_unique"] > 0:
            heads += f" (**{r['heads_tied_unique']:g} tied unique-hard**)"
        bound = "0 (no gap)" if not math.isfinite(r["gamma_measured"]) else fmt_g(r["bound"])
        out.append([r["model"], heads, r["n"], fmt_g(r["gamma_before"], 4),
                    fmt_g(r["gamma"], 4), fmt_g(r["tau"], 4),
                    bound, fmt_err(r["attn_error"]), fmt_err(r["max_deviation"]),
                    fmt_agree(r["agree_fraction"])])
    rep.w(*md_table(["model", "hard heads", "n", "gamma before", "gamma", "tau",
                      "bound", "attn err", "deviation", "agree"], out,
                     ["---", "---", "--:", "--:", "--:", "--:", "--:", "--:", "--:",
                      "--:"]), "")
    ok = [r for r in rows if r["heads_tied_unique"] == 0]
    bad = [r for r in rows if r["heads_tied_unique"] > 0]
    parts = []
    if ok:
        models = unique(r["model"] for r in ok)
        dis = [r for r in ok if r["agree_fraction"] < 1]
        over = [r for r in ok if isnum(r["attn_error"]) and r["attn_error"] > r["bound"] * (1 + 1e-3) + 1e-6]
        parts.append(f"Models without tied unique-hard heads ({', '.join(models)}): "
                     + ("every decision agrees at every n" if not dis else
                        f"{len(dis)} of {len(ok)} points disagree somewhere ("
                        + "; ".join(f"{r['model']} n={r['n']}" for r in dis) + ")")
                     + f", n = {ns[0]}…{ns[-1]}; the measured weight off the hard choice is "
                     + ("within the bound everywhere" if not over else
                        f"above the bound at {len(over)} point(s)")
                     + f", and the largest deviation is {fmt_err(max(r['max_deviation'] for r in ok))}.")
    if bad:
        for m in unique(r["model"] for r in bad):
            rs = [r for r in bad if r["model"] == m]
            worst = min(r["agree_fraction"] for r in rs)
            parts.append(f"{m} has a tied unique-hard head: "
                         + ("its decisions still agree and the deviation stays at "
                            f"{fmt_err(max(r['max_deviation'] for r in rs))} (the positions "
                            "it ties over hold equal values on these inputs), though "
                            f"softmax puts up to {fmt_g(max(r['attn_error'] for r in rs))} "
                            "of the weight off the hard choice" if worst == 1 else
                            f"decisions agree only on a fraction {fmt_agree(worst)} at worst "
                            "— softmax averages what the hard head picks one of")
                         + ".")
    rep.w(" ".join(parts), "")
