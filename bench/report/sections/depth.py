# SPDX-License-Identifier: MIT
"""A depth-6 formula at n = 65536 on one core: time and peak memory."""
from ..compare import TARGET_HEAD, nm_row
from ..fmt import NM, code, fmt_agree, fmt_mib, fmt_mu, isnum, mark, short

DEPTH6_N = 65536
DEPTH6_S, DEPTH6_MIB = 10.0, 64.0   # the first bound: < 10 s and < 64 MiB
DEPTH6_FAST_S = 0.56                # 5x under the 2.8 s first measured


def write(rep, plot):
    rep.w(f"## A depth-6 formula at n = {DEPTH6_N}", "")
    if not rep.depth6:
        rep.w(f"sweep-depth6.csv: {NM}.", "")
        return
    rep.w("From sweep-depth6.csv: one thread, one timed run after a warm-up.", "")
    rep.table(TARGET_HEAD, targets(rep))


def targets(rep):
    rows = [r for r in rep.depth6 or [] if r["n"] == DEPTH6_N and r["threads"] == 1]
    fast = f"depth 6, n = {DEPTH6_N}, 1 core: <= {DEPTH6_FAST_S:.2f} s (5x under 2.8 s)"
    first = (f"depth 6, n = {DEPTH6_N}, 1 core: < {DEPTH6_S:g} s and < {DEPTH6_MIB:g} MiB "
             "peak")
    if not rows:
        return [nm_row(first, "sweep-depth6.csv"), nm_row(fast, "sweep-depth6.csv")]
    out = []
    for r in rows:
        mib = r["peak_bytes"] / 2 ** 20 if isnum(r["peak_bytes"]) else float("nan")
        run = (f"{code(short(r['formula']))} {r['mode']} mu={fmt_mu(r['scale'])}, "
               f"{r['isa']}, agreement {fmt_agree(r['agree_fraction'])}")
        out.append([first, run, f"{r['seconds_median']:.2f} s, {mib:.1f} MiB", "—",
                    mark(r["seconds_median"] < DEPTH6_S and isnum(mib) and mib < DEPTH6_MIB)])
        out.append([fast, run, f"{r['seconds_median']:.2f} s, {fmt_mib(r['peak_bytes'])} peak",
                    "—", mark(r["seconds_median"] <= DEPTH6_FAST_S)])
    return out
