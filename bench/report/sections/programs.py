# SPDX-License-Identifier: MIT
"""C-RASP programs compiled and timed (sweep-programs.csv)."""
from ..fmt import NM, code, fmt_agree, fmt_ms, fmt_mu, md_table, unique


def write(rep, plot):
    rep.w("## Programs: C-RASP compiled and checked against its interpreter", "")
    rows = rep.programs
    if not rows:
        rep.w(f"sweep-programs.csv: {NM}.", "")
        return
    rep.w("From sweep-programs.csv: C-RASP programs (the formula column names the "
           "file) lowered into the circuit and compiled; each point is one random "
           "string of the program's tokens, checked against the program's own "
           "interpreter. Cell: ms per forward pass (median) / agreement.", "")
    ns = sorted({r["n"] for r in rows})
    out = []
    for f in unique(r["formula"] for r in rows):
        for mode, mu in unique((r["mode"], r["scale"]) for r in rows if r["formula"] == f):
            cells = []
            for n in ns:
                r = next((r for r in rows if r["formula"] == f and r["mode"] == mode
                          and r["scale"] == mu and r["n"] == n), None)
                cells.append(f"{fmt_ms(r['seconds_median'])} / "
                             f"{fmt_agree(r['agree_fraction'])}" if r else NM)
            out.append([code(f), mode, "—" if mode == "hard" else fmt_mu(mu)] + cells)
    rep.w(*md_table(["program", "mode", "mu"] + [f"n={n}" for n in ns], out), "")
