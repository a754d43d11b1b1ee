# SPDX-License-Identifier: MIT
"""The same configuration measured in more than one run: two tables of
the report can show one point (formula, mode, μ, ISA, precision, threads,
n, path) from two `hardsoft bench` invocations, whose medians differ by
what else ran at the time. Every ratio of the report is taken inside one
invocation; this section lists every point measured in several, with each
run's median, so that no reader takes two numbers for one."""
from ..fmt import NM, code, fmt_ms, fmt_mu, fmt_x, path_of, short

KEY = ["formula", "mode", "scale", "isa", "precision", "threads", "n"]


def key(r):
    return tuple(r[k] for k in KEY) + (path_of(r), r.get("sign") or "layernorm")


def repeated(rep):
    """[(key, [(file, row)])] of the points in more than one file, in
    the order first seen."""
    seen = {}
    for name, rows in rep.files():
        for r in rows or []:
            if "seconds_median" in r:
                seen.setdefault(key(r), []).append((name, r))
    return [(k, v) for k, v in seen.items() if len({n for n, _ in v}) > 1]


def files_sharing(rep, a, b):
    """How many points files a and b both measured."""
    return sum(1 for _, v in repeated(rep) if {a, b} <= {n for n, _ in v})


def write(rep, plot):
    rep.w("## The same configuration in more than one run", "")
    got = repeated(rep)
    if not got:
        rep.w("No point was measured by more than one `hardsoft bench` invocation.", "")
        return
    rep.w("These points were each measured by more than one `hardsoft bench` invocation "
          "(each CSV file holds its own), so two tables above can show one point with two "
          "medians: what else ran at the time moves a median. Every ratio of this report "
          "compares two rows of one invocation, never rows of two. Each run's median, and "
          "the largest over the smallest:", "")
    out = []
    for k, runs in got:
        f, mode, mu, isa, prec, thr, n, path, _ = k
        meds = [r["seconds_median"] for _, r in runs]
        out.append([code(short(f, 30)), mode, "—" if mode == "hard" else fmt_mu(mu), isa,
                    prec, thr, n, path,
                    "<br>".join(f"{name}:{r['_line']}: {fmt_ms(r['seconds_median'])}"
                                for name, r in runs),
                    fmt_x(max(meds) / min(meds)) if min(meds) > 0 else NM])
    rep.table(["formula", "mode", "μ", "isa", "precision", "threads", "n", "path",
               "file:line: ms", "largest / smallest"], out,
              ["---"] * 9 + ["--:"])
