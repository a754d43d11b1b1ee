# SPDX-License-Identifier: MIT
"""Exact skipping of the key tiles whose weights underflow: skip on against
off, the default (auto) against the dense online kernel, on two formulas
(sweep-skip.csv) and on every formula of bench/formulas.txt
(sweep-skip-suite.csv), and the default path's growth to n = 2^20
(sweep-growth.csv)."""
import math

from ..compare import TARGET_HEAD, nm_row, pairs, ratio_row
from ..fmt import (DEPTH4, NM, code, fmt_agree, fmt_frac, fmt_g, fmt_mib, fmt_ms, fmt_mu,
                   fmt_x, isnum, mark, short, unique)

ON_OFF_WANT, ON_OFF_MU = 3.0, 32              # skip on against off, a S b
AUTO_MU, AUTO_N = 8, 16384                    # online / auto at the best ISA
AUTO_WANT = {"a S b": 20.0, DEPTH4: 12.0}
SUITE_N, SUITE_SLACK = 4096, 1.05             # auto / online, every formula
# t ~ n^1.5 at most: 16^1.5 = 64 where dense attention grows 16^2 = 256
GROWTH_N, GROWTH_MAX, GROWTH_BIG = (16384, 262144), 64, 1048576


def write(rep, plot):
    rep.w("## Exact skipping of underflowed key tiles", "")
    if rep.skip:
        skip_table(rep, rep.skip)
    else:
        rep.w(f"sweep-skip.csv: {NM}.", "")
    rep.w(f"### Auto against online at n = {AUTO_N}", "")
    rep.table(TARGET_HEAD, auto_online_rows(rep))
    suite_table(rep)
    growth_table(rep)


def skip_table(rep, rows):
    rep.w("From sweep-skip.csv: the two-pass attention row that skips whole "
           "64-key tiles whose bound on the scaled score lies more than 88 below the "
           "row maximum (their exponentials are exactly 0), against the same two-pass "
           "row without skipping (the outputs are bit-for-bit identical: `make check`, "
           "test-skip), the one-pass online kernel, and `auto` (the default: per head, "
           "the skipping kernel where its cost estimated from the bounds of 8 sampled "
           "rows is below the online kernel's, else online). "
           f"Targets: skip on {ON_OFF_WANT:g}× faster than skip off at mu ≥ {ON_OFF_MU}; "
           f"auto {AUTO_WANT['a S b']:g}× faster than online for a S b and "
           f"{AUTO_WANT[DEPTH4]:g}× for the depth-4 formula at mu = {AUTO_MU}, n = {AUTO_N}.",
           "")
    out = []
    for (f, mu, n, isa) in unique((r["formula"], r["scale"], r["n"], r["isa"]) for r in rows):
        t = {r.get("skip"): r for r in rows if r["formula"] == f and r["scale"] == mu
             and r["n"] == n and r["isa"] == isa}
        sec = lambda k: t[k]["seconds_median"] if k in t else float("nan")
        on, off, auto, online = sec("on"), sec("off"), sec("auto"), sec("online")
        if not isnum(online) and mu == 4:
            online = rep.t(f, isa, n)
        ratio = off / on if isnum(on) and isnum(off) and on > 0 else float("nan")
        ra = online / auto if isnum(online) and isnum(auto) and auto > 0 else float("nan")
        frac = t["on"].get("skipped_fraction") if "on" in t else None
        status = fmt_x(ratio) + (" " + mark(ratio >= ON_OFF_WANT)
                                 if isnum(ratio) and mu >= ON_OFF_MU else "")
        want = AUTO_WANT.get(f)
        astat = fmt_x(ra) + (" " + mark(ra >= want) if want and isnum(ra) and mu == AUTO_MU
                             and n >= AUTO_N else "") if isnum(ra) else NM
        ms = lambda v: fmt_ms(v) if isnum(v) else NM
        out.append([code(short(f)), fmt_mu(mu), n, isa, ms(auto), ms(online), ms(on), ms(off),
                    f"{float(frac):.3f}" if frac not in (None, "", "nan") else NM,
                    astat, status])
    rep.table(["formula", "mu", "n", "isa", "auto ms", "online ms", "skip on ms",
               "skip off ms", "tiles skipped (on)", "online / auto", "off / on"], out)


def auto_online_rows(rep):
    """online against auto at mu = 8, n = 16384, one thread (sweep-skip.csv)."""
    out = []
    for f, want in AUTO_WANT.items():
        target = f"online / auto >= {want:g}x, mu={AUTO_MU}, n={AUTO_N}"
        got = pairs(rep.skip, lambda r: r.get("skip") == "online" and r["formula"] == f
                    and r["scale"] == AUTO_MU and r["n"] == AUTO_N and r["threads"] == 1,
                    lambda r: r.get("skip") == "auto", ["formula", "scale", "n", "isa",
                                                        "threads"])
        if not got:
            out.append(nm_row(target, f"{code(short(f))} pe, sweep-skip.csv"))
        for online, auto in got:
            out.append(ratio_row(target, f"{code(short(f))} pe, {auto['isa']}, 1 thread",
                                 online, auto, lambda v, w=want: v >= w))
    return out


def suite_pairs(rep, n=None):
    """[(auto row, online row)] of sweep-skip-suite.csv, one thread, at n
    (every n: None)."""
    return pairs(rep.skip_suite, lambda r: r.get("skip") == "auto" and r["threads"] == 1
                 and (n is None or r["n"] == n), lambda r: r.get("skip") == "online",
                 ["formula", "isa", "n", "threads"])


def suite_row(rep):
    """The worst auto / online over bench/formulas.txt."""
    target = (f"auto <= {SUITE_SLACK:.2f}x online, every formula of "
              f"bench/formulas.txt, pe mu=8, n={SUITE_N}")
    got = suite_pairs(rep, SUITE_N)
    if not got:
        return [nm_row(target, "sweep-skip-suite.csv")]
    auto, online = max(got, key=lambda p: p[0]["seconds_median"] / p[1]["seconds_median"])
    slow = sum(1 for a, o in got if a["seconds_median"] > SUITE_SLACK * o["seconds_median"])
    return [ratio_row(target, f"worst of {len(got)}: {code(short(auto['formula']))}, "
                      f"{auto['isa']}; {slow} formula(s) over",
                      auto, online, lambda v: v <= SUITE_SLACK)]


def growth_rows(rep):
    """t(2^18) / t(2^14) for a S b, and the n = 2^20 run."""
    rows = [r for r in rep.growth or [] if r["formula"] == "a S b"]
    by_n = {r["n"]: r for r in rows}
    lo, hi = GROWTH_N
    target = f"t(n={hi}) / t(n={lo}) <= {GROWTH_MAX}x (dense: {(hi // lo) ** 2}x)"
    if lo in by_n and hi in by_n:
        out = [ratio_row(target, f"{code('a S b')} pe mu=8, {by_n[hi]['isa']}, 1 thread",
                         by_n[hi], by_n[lo], lambda v: v <= GROWTH_MAX)]
    else:
        out = [nm_row(target, "sweep-growth.csv")]
    target = f"n={GROWTH_BIG} runs (agreement 1), time and peak memory published"
    big = by_n.get(GROWTH_BIG)
    if big:
        out.append([target, f"{code('a S b')} pe mu=8, {big['isa']}, 1 thread, "
                    f"agreement {fmt_agree(big['agree_fraction'])}",
                    f"{big['seconds_median']:.2f} s, {fmt_mib(big['peak_bytes'])} peak",
                    "—", mark(big["agree_fraction"] == 1)])
    elif (rep.growth_stopped or "").startswith(f"n = {GROWTH_BIG}:"):
        out.append([target, f"{code('a S b')} pe mu=8",
                    rep.growth_stopped.strip().replace("|", "\\|"), "—", mark(False)])
    else:
        out.append(nm_row(target, "sweep-growth.csv"))
    return out


def suite_table(rep):
    rep.w("### Skipping on every formula of bench/formulas.txt (sweep-skip-suite.csv)", "")
    if not rep.skip_suite:
        rep.w(f"sweep-skip-suite.csv: {NM}.", "")
        return
    rep.w("pe, mu = 8: the default (`--skip auto`: per head, the tile-skipping "
           "kernel where its cost estimated from sampled rows is below online's, else "
           "online) "
           "against the one-pass online kernel, median of the repeats. Tiles skipped: "
           "of the auto run, where a head chose skipping (— where every head ran "
           "online).", "")
    out = []
    for r, o in suite_pairs(rep):
        ta, to = r["seconds_median"], o["seconds_median"]
        slow = isnum(to) and ta > SUITE_SLACK * to
        out.append([code(r["formula"]), r["isa"], r["n"], fmt_ms(ta), fmt_ms(to),
                    fmt_x(to / ta) if ta > 0 else "—", fmt_frac(r.get("skipped_fraction")),
                    "**auto slower**" if slow else "no"])
    rep.table(["formula", "isa", "n", "auto ms", "online ms", "online / auto",
               "tiles skipped (auto)", f"auto > {SUITE_SLACK:.2f}× online"],
              out, ["---", "---", "--:", "--:", "--:", "--:", "--:", "---"])
    rep.table(TARGET_HEAD, suite_row(rep))


def growth_table(rep):
    rep.w("### Growth of `a S b` with n (sweep-growth.csv)", "")
    rows = sorted((r for r in rep.growth or [] if r["formula"] == "a S b"),
                  key=lambda r: r["n"])
    if not rows:
        rep.w(f"sweep-growth.csv: {NM}.", "")
    else:
        rep.w("pe, mu = 8, default `--skip auto`. The lengths before the last come "
               "from one invocation; the largest n runs alone (one timed run after "
               "a warm-up), stopped by the suite if it outlasts its time limit. "
               "Exponent: log(t / t_prev) / log(n / n_prev) (2 is dense).", "")
        out, prev = [], None
        for r in rows:
            t = r["seconds_median"]
            grow = t / prev["seconds_median"] if prev and prev["seconds_median"] > 0 \
                else math.nan
            expo = math.log(grow) / math.log(r["n"] / prev["n"]) if isnum(grow) and \
                grow > 0 else math.nan
            out.append([r["n"], r["isa"], fmt_ms(t), fmt_mib(r["peak_bytes"]),
                        fmt_agree(r["agree_fraction"]),
                        fmt_frac(r.get("skipped_fraction")), fmt_x(grow),
                        fmt_g(expo)])
            prev = r
        rep.table(["n", "isa", "ms", "peak", "agreement", "tiles skipped", "t / t_prev",
                   "exponent"], out, ["--:", "---", "--:", "--:", "--:", "--:", "--:", "--:"])
    if rep.growth_stopped:
        rep.w(f"sweep-growth-stopped.txt: {rep.growth_stopped.strip()}.", "")
    rep.table(TARGET_HEAD, growth_rows(rep))


def on_off_rows(rep):
    got = pairs(rep.skip, lambda r: r.get("skip") == "off" and r["scale"] >= ON_OFF_MU
                and r["formula"] == "a S b", lambda r: r.get("skip") == "on",
                ["formula", "scale", "n", "isa"])
    return [ratio_row(f"skip off / skip on >= {ON_OFF_WANT:g}x, mu >= {ON_OFF_MU}",
                      f"{code(short(off['formula']))} n={off['n']}, {off['isa']}", off, on,
                      lambda v: v >= ON_OFF_WANT) for off, on in got]


def targets(rep):
    return (on_off_rows(rep) + auto_online_rows(rep) + suite_row(rep)
            + growth_rows(rep))
