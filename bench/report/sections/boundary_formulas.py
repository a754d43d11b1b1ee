# SPDX-License-Identifier: MIT
"""The precision boundary over a formula list (boundary-formulas.csv:
every formula of bench/formulas.txt in rel, pe and temp, f16, bf16 and
f32, each search a task of its own) and the time the table took under each
runner of the sweep (runners.csv: sequential, GNU parallel, a Slurm job
array), with whether each runner's rows equal the sequential ones."""
import math

from ..fmt import NM, code, md_table, unique

MODES, PRECS = ["rel", "pe", "temp"], ["f16", "bf16", "f32"]


def runner_table(rep):
    rows = [r for r in rep.runners or [] if r["group"] == "boundary-formulas"]
    if not rows:
        rep.w(f"runners.csv: {NM}.", "")
        return
    seq = next((float(r["wall_s"]) for r in rows if r["runner"] == "sequential"
                and r["wall_s"]), math.nan)
    out = []
    for r in rows:
        wall = float(r["wall_s"]) if r["wall_s"] else math.nan
        out.append([r["runner"], r["slots"] or "—", r["tasks"] or "—",
                    f"{wall:.1f}" if not math.isnan(wall) else "—",
                    f"{seq / wall:.2f}×" if wall > 0 and not math.isnan(seq) else "—",
                    r["rows_equal"] or "—", r["note"]])
    rep.w("The same tasks under each runner of the sweep on this machine (runners.csv): "
          "wall time from the first task's start to the last one's end (Slurm: from "
          "`sbatch` on, queueing included), and whether the runner's joined rows equal "
          "the sequential ones in every column that measures no time.", "")
    rep.table(["runner", "slots", "tasks", "wall s", "sequential / runner", "rows equal",
               "how"], out, ["---", "--:", "--:", "--:", "--:", "---", "---"])


def write(rep, plot):
    rep.w("## Precision boundary over bench/formulas.txt", "")
    rows = rep.boundary_formulas
    if not rows:
        rep.w(f"boundary-formulas.csv: {NM}.", "")
        return
    top = max(r["exact_n"] for r in rows if r["exact_open"]) if any(
        r["exact_open"] for r in rows) else None
    rep.w("From boundary-formulas.csv: `hardsoft boundary F --mode M --scale 4 "
          "--precision P --threads 1` for every formula of bench/formulas.txt, one task a "
          "search (the runners run them side by side). f16 and bf16 store the queries, "
          "keys and values in the format. Cell: the largest n at which the model is "
          "exact on adversarial strings"
          + (f" (>{top}: exact at every n searched, up to {top})" if top else "") + ".", "")
    by = {(r["formula"], r["mode"], r["precision"]): r for r in rows}
    out = []
    for f in unique(r["formula"] for r in rows):
        out.append([code(f)] + [by[(f, m, p)]["largest_exact_n"] if (f, m, p) in by else "—"
                                for m in MODES for p in PRECS])
    rep.w(*md_table(["formula"] + [f"{m} {p}" for m in MODES for p in PRECS], out,
                    ["---"] + ["--:"] * (len(MODES) * len(PRECS))), "")
    runner_table(rep)
