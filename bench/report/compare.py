# SPDX-License-Identifier: MIT
"""Target rows: a run against its baseline, the ratio of their medians
judged against a threshold. The loop that finds, for every run, the
baseline run of the same configuration is written once (pairs)."""
from .fmt import NM, fmt_ms, fmt_x, isnum, mark

TARGET_HEAD = ["target", "run", "compared (first / second)", "ratio", "status"]


def nm_row(target, where):
    """A target row whose runs are absent."""
    return [target, where, NM, "—", f"**{NM}**"]


def ratio_row(target, run, first, second, ok):
    """A target row comparing two bench rows: first / second of their
    medians, judged by ok (None: shown as information, no target)."""
    a, b = first["seconds_median"], second["seconds_median"]
    if not (isnum(a) and isnum(b) and b > 0):
        return nm_row(target, run)
    v = a / b
    return [target, run, f"{fmt_ms(a)} vs {fmt_ms(b)} ms", fmt_x(v),
            "information" if ok is None else mark(ok(v))]


def pairs(rows, run, base, same):
    """[(row, baseline row)]: every row with run(row) true, with the last
    row b with base(b) true whose columns `same` equal the row's."""
    rows = rows or []
    key = lambda r: tuple(r.get(c) for c in same)
    bases = {}
    for b in rows:
        if base(b):
            bases[key(b)] = b
    return [(r, bases[key(r)]) for r in rows if run(r) and key(r) in bases]

