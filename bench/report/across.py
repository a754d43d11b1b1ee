# SPDX-License-Identifier: MIT
"""results/REPORT.md across machines: the headline rows with one column
per machine, the range of each ratio over the machines, a plot with one
series per machine, then a section per machine (its provenance and
targets, and a link to its own report). Every ratio is computed inside
one machine's run, from the rows of one `hardsoft bench` invocation, as
in the machine's own report: a column never divides one CPU's time by
another's."""
import os
import re

from .compare import TARGET_HEAD, pairs
from .fmt import (DEPTH4, HS_ISAS, ISA_LABEL, PATHS, code, fmt_mem, fmt_mib, fmt_ms, fmt_mu,
                  fmt_x, isnum, md_table, short, unique)
from .plots import NODATA, gq, panel, style
from .sections import counting_scale, hard_f64, headline, skipping, targets

MS, X = "ms", "x"  # how a quantity's cell is written


def name(f):
    """A formula in a row label: the depth-4 formula by its name."""
    return "depth 4" if f == DEPTH4 else code(short(f, 30))


def item(group, kind, label, value, unit=X, cell=None):
    """One quantity of one machine: its table (group), what it is a case
    of (kind: the rows a range is taken over), its row label, its value
    and how it is written."""
    if cell is None:
        cell = fmt_ms(value) if unit == MS else fmt_x(value)
    return {"group": group, "kind": kind, "label": label, "value": value, "cell": cell}


def ratio(a, b):
    return a / b if isnum(a) and isnum(b) and b > 0 else float("nan")


def path_items(rep):
    """The default and the dense path per ISA (sweep-paths.csv): times,
    then each wide ISA's speed-up over scalar on the same path."""
    out = []
    for (f, n, mu), v in headline.paths_rows(rep).items():
        where = f"{name(f)} n={n} μ={fmt_mu(mu)}"
        sec = lambda isa, p: v[(isa, p)]["seconds_median"] if (isa, p) in v else float("nan")
        for p, label in PATHS:
            for isa in [i for i in HS_ISAS if (i, p) in v]:
                out.append(item("paths", None, f"{where}, {label}, {ISA_LABEL[isa]}",
                                sec(isa, p), MS))
            for isa in [i for i in HS_ISAS[1:] if (i, p) in v]:
                out.append(item("simd", f"{label} path: {ISA_LABEL[isa]} / scalar",
                                f"{where}, {label}: {ISA_LABEL[isa]} / scalar",
                                ratio(sec("scalar", p), sec(isa, p))))
    return out


def best_default(rep, f, n):
    """hardsoft's fastest ISA on the default path at (f, n), or None."""
    rows = [rep.row(f, i, n) for i in HS_ISAS if rep.row(f, i, n)]
    return min(rows, key=lambda r: r["seconds_median"], default=None)


def peer_items(rep):
    """The peers against hardsoft's default path, each ratio of one
    invocation (sweep-scaling.csv)."""
    out = []
    forms = [f for f in ("a S b", DEPTH4) if f in rep.scal_formulas]
    for f in forms:
        where = name(f)
        best = best_default(rep, f, headline.ORT_N)
        ort = rep.row(f, "ort", headline.ORT_N)
        if ort:
            out.append(item("peers", None, f"ONNX Runtime, {where} n={headline.ORT_N}",
                            ort["seconds_median"], MS))
        if ort and best:
            out.append(item("peers", f"ONNX Runtime / hardsoft's best ISA, n = {headline.ORT_N}",
                            f"ONNX Runtime / hardsoft's best ISA, {where} n={headline.ORT_N}",
                            ratio(ort["seconds_median"], best["seconds_median"])))
        mine = rep.row(f, "avx2", headline.PEER_N)
        for peer in ("torch", "numpy", "openblas", "ort"):
            p = rep.row(f, peer, headline.PEER_N)
            if p and mine:
                out.append(item("peers", f"{ISA_LABEL[peer]} / hardsoft AVX2, n = "
                                f"{headline.PEER_N}", f"{ISA_LABEL[peer]} / AVX2, {where} "
                                f"n={headline.PEER_N}",
                                ratio(p["seconds_median"], mine["seconds_median"])))
    return out


def more_items(rep):
    """Threads, f64 / f32, online / auto, the largest n."""
    out = []
    for one, two in pairs(rep.threads, lambda r: r["threads"] == 1,
                                   lambda r: r["threads"] == 2,
                                   ["formula", "n", "isa", "skip"]):
        out.append(item("more", "2 threads: t(1 thread) / t(2 threads)",
                        f"t(1 thread) / t(2 threads), {name(one['formula'])} "
                        f"n={one['n']}, {one['isa']}",
                        ratio(one["seconds_median"], two["seconds_median"])))
    for (f, isa, n), v in hard_f64.points(rep).items():
        t = {k: r["seconds_median"] for k, r in v.items()}
        out.append(item("more", "f64 / f32 (pe)", f"f64 / f32 pe, {name(f)} "
                        f"n={n}, {isa}", ratio(t.get(("pe", "f64")), t.get(("pe", "f32")))))
    for online, auto in pairs(
            rep.skip, lambda r: r.get("skip") == "online" and r["scale"] == skipping.AUTO_MU
            and r["n"] == skipping.AUTO_N, lambda r: r.get("skip") == "auto",
            ["formula", "scale", "n", "isa", "threads"]):
        out.append(item("more", f"dense / default path, μ = {skipping.AUTO_MU}, "
                        f"n = {skipping.AUTO_N}", f"dense / default, "
                        f"{name(online['formula'])} n={online['n']} "
                        f"μ={fmt_mu(online['scale'])}, {online['isa']}",
                        ratio(online["seconds_median"], auto["seconds_median"])))
    return out + largest_items(rep) + counting_items(rep)


def counting_items(rep):
    """Each counting row's growth t(2^20) / t(2^16), or where the suite
    stopped it (sweep-counting-scale.csv)."""
    out = []
    lo, hi = counting_scale.LO_N, counting_scale.HI_N
    for (f, m), by_n in counting_scale.series(rep).items():
        label = f"counting, {code(short(f, 30))} {m}: t(2^20) / t(2^16)"
        if lo in by_n and hi in by_n:
            out.append(item("more", "counting: t(2^20) / t(2^16)", label,
                            ratio(by_n[hi]["seconds_median"], by_n[lo]["seconds_median"])))
        else:
            stop = counting_scale.stopped_line(rep, f, m)
            out.append(item("more", None, label, float("nan"), cell=(
                stop[len(f"{f} {m} "):].split(":")[0] + ": stopped" if stop
                else f"run to n = {max(by_n)} only")))
    return out


def largest_items(rep):
    """The growth sweep's largest n: its time and peak memory."""
    big = [r for r in rep.growth or [] if r["formula"] == "a S b"]
    if not big:
        return []
    r = max(big, key=lambda r: r["n"])
    where = f"{code('a S b')} n={r['n']}, {r['isa']}"
    return [item("more", None, f"largest n: time (ms), {where}", r["seconds_median"], MS),
            item("more", None, f"largest n: peak memory, {where}", r["peak_bytes"],
                 cell=fmt_mib(r["peak_bytes"]))]


def kernel_items(rep):
    """The online attention row's time per key at n = 4096, d = 8, per
    ISA (kernels.json), and each wide ISA's speed-up over scalar."""
    rows, unit = {}, {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    for b in (rep.kernels_data or {}).get("benchmarks", []):
        parts = b.get("name", "").split("/")
        if len(parts) == 4 and parts[0] == "attn_row" and parts[2:] == ["4096", "8_median"] \
                and isinstance(b.get("real_time"), (int, float)):
            rows[parts[1]] = b["real_time"] * unit.get(b.get("time_unit"), 1.0) / 4096
    out = [item("kernels", None, f"attn_row n=4096 d=8, {ISA_LABEL.get(i, i)}: ns per key",
                rows[i], cell=f"{rows[i]:.3g}") for i in HS_ISAS if i in rows]
    for i in [i for i in HS_ISAS[1:] if i in rows and "scalar" in rows]:
        out.append(item("kernels", f"attn_row kernel: {ISA_LABEL[i]} / scalar",
                        f"attn_row n=4096 d=8: {ISA_LABEL[i]} / scalar",
                        ratio(rows["scalar"], rows[i])))
    return out


def items(rep):
    return path_items(rep) + peer_items(rep) + more_items(rep) + kernel_items(rep)


GROUPS = [("paths", "The default path beside the dense path (ms)",
           "sweep-paths.csv: pe, f32, 1 thread, median of the timed runs."),
          ("simd", "SIMD speed-ups (t_scalar / t_ISA, the same path)",
           "sweep-paths.csv: both ISAs of a ratio timed in one invocation."),
          ("peers", "hardsoft against the peers",
           "sweep-scaling.csv: pe μ = 4, f32, 1 thread; each peer and hardsoft (its "
           "default path) in one invocation, on the same model file and string. Above 1: "
           "hardsoft is faster."),
          ("more", "Threads, precision, skipping, the largest n, counting",
           "sweep-threads.csv, sweep-hardf64.csv, sweep-skip.csv, sweep-growth.csv and "
           "sweep-counting-scale.csv, each ratio within one invocation (counting: two "
           "invocations of one task, one a length)."),
          ("kernels", "Kernel rows per key",
           "kernels.json (Google Benchmark, median of the repetitions): the fused online "
           "softmax attention row, one query against n keys of d dimensions.")]


POLICY = ("Each machine's numbers describe the code of the commit they were measured at: "
          "`make check` (tests/py/test_report_fresh.py) fails when a file that affects "
          "them — src/, simd/, include/, the suite's run code, the Makefile's compiler "
          "flags — differs between that commit and the commit that published its folder.")


def counts(rows):
    """(met, missed, not measured) of target rows."""
    status = [r[-1] for r in rows]
    return (sum(s == "**met**" for s in status), sum(s == "**missed**" for s in status),
            sum("not measured" in s for s in status))


def kernel_tally(rep):
    """'3 met, 3 missed': the targets of the machine's kernels.md by the
    status in each row's last bold cell."""
    text = rep.kernels_md or ""
    body = text.split("## Targets", 1)[1].split("\n## ", 1)[0] if "## Targets" in text else ""
    tally = {}
    for line in body.splitlines():
        found = re.findall(r"\|\s*\*\*([^*|]+)\*\*\s*(?=\|)", line)
        if found:
            tally[found[-1]] = tally.get(found[-1], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(tally.items(), key=lambda c: -c[1])) \
        or "not measured"


def target_summary(prov, rep):
    rows = targets.rows(rep)
    met, missed, nm = counts(rows)
    names = [f"{r[0]} ({r[1]}: {r[3]})" for r in rows if r[-1] == "**missed**"]
    return [f"`{prov['id']}`", met, missed, nm, "<br>".join(names) or "—",
            kernel_tally(rep)]


def table_of(group, per):
    """The Markdown rows of one group: a row per label seen on any
    machine (in the order first seen), a column per machine."""
    labels = unique(it["label"] for _, its in per for it in its if it["group"] == group)
    cells = [{it["label"]: it["cell"] for it in its if it["group"] == group} for _, its in per]
    return [[lab] + [c.get(lab, "—") for c in cells] for lab in labels]


def ranges(per):
    """[quantity, range over the machines, per machine] of every kind."""
    kinds = unique(it["kind"] for _, its in per for it in its if it["kind"])
    out = []
    for kind in kinds:
        vals = [(it["value"], prov["id"]) for prov, its in per for it in its
                if it["kind"] == kind and isnum(it["value"])]
        if not vals:
            continue
        lo, hi = min(vals), max(vals)
        span = fmt_x(lo[0]) if len(vals) == 1 else f"{fmt_x(lo[0])} – {fmt_x(hi[0])}"
        each = []
        for prov, _ in per:
            mine = [v for v, m in vals if m == prov["id"]]
            if mine:
                each.append(f"`{prov['id']}`: " + (fmt_x(mine[0]) if len(mine) == 1 else
                                                   f"{fmt_x(min(mine))} – {fmt_x(max(mine))}"))
        out.append([kind, span, "; ".join(each)])
    return out


def machines_table(results, machines):
    rows = []
    for prov, rep in machines:
        link = os.path.relpath(os.path.join(rep.dir, "REPORT.md"), results)
        dates = prov["dates"]
        rows.append([f"`{prov['id']}`", prov["cpu"],
                     f"{prov['cores']} CPUs, {fmt_mem(prov['memory_bytes'])}",
                     "<br>".join(f"`{b}`" for b in prov["build"]),
                     ", ".join(f"`{c}`" for c in prov["commit"]),
                     dates[0][:10] + ("" if dates[0][:10] == dates[-1][:10]
                                      else f" … {dates[-1][:10]}"),
                     f"[REPORT.md]({link})"])
    return md_table(["machine", "CPU (model name, family, model, stepping)",
                     "logical CPUs, memory", "compiler and flags", "commit", "measured",
                     "its report"], rows)


def plot_machines(plot, machines):
    """Time against n of each machine's widest ISA on the default path, a
    panel per formula: one series per machine. Returns the plot's outcome
    (None when drawn)."""
    forms = [f for f in ("a S b", DEPTH4)
             if any(f in rep.scal_formulas for _, rep in machines)]
    if not forms:
        return NODATA + "no machine has sweep-scaling.csv"
    body = [f"set multiplot layout 1,{len(forms)}", "set logscale xy",
            "set xlabel 'n (string length)'", "set ylabel 'time (ms), median'",
            "set key top left"]
    for f in forms:
        series = []
        for i, (prov, rep) in enumerate(machines):
            pts = sorted((r["n"], r["seconds_median"] * 1e3) for r in rep.scal
                         if r["formula"] == f and r["isa"] == prov["widest_isa"]
                         and r["_path"] == "auto")
            if pts:
                series.append(f"{plot.data(pts)} using 1:2 with linespoints {style(None, i)} "
                              f"title {gq(prov['id'] + ' (' + prov['widest_isa'] + ')')}")
        body += panel(f"{short(f, 40)}: default path, each machine's widest ISA", series
                      or ["NaN notitle"])
    body.append("unset multiplot")
    return plot.plot("machines-scaling.png", 700 * len(forms), 500, "\n".join(body))


def machine_section(results, prov, rep):
    """The machine's provenance, its targets and a link to its report."""
    link = os.path.relpath(os.path.join(rep.dir, "REPORT.md"), results)
    out = [f"## Machine `{prov['id']}`", ""]
    fms = (f", family {prov['family']}, model {prov['model']}, stepping {prov['stepping']}"
           if prov.get("family") is not None else "")
    made = (f"vendor {prov['vendor']} (from {prov.get('vendor_from', '?')}){fms}; "
            "instruction sets hardsoft runs: " + ", ".join(prov["isas"]))
    rows = [["CPU (CSV `cpu`)", prov["cpu"]], ["what the ID is made of", made],
            ["logical CPUs, memory, kernel",
             f"{prov['cores']}, {fmt_mem(prov['memory_bytes'])}, {prov['kernel']}"],
            ["compiler and flags", "<br>".join(f"`{b}`" for b in prov["build"])],
            ["commit, dates", ", ".join(f"`{c}`" for c in prov["commit"]) + "; "
             + " … ".join(unique(prov["dates"]))]]
    if prov.get("cpu_flags"):
        rows.append(["CPU flags", " ".join(prov["cpu_flags"])])
    rows += [[f"version: {k}", v] for k, v in (prov.get("versions") or {}).items()]
    out += md_table(["", ""], rows) + [""]
    got = targets.rows(rep)
    met, missed, nm = counts(got)
    out += [f"Its whole report: [{link}]({link}) (provenance, scaling, accuracy, the "
            "precision boundary, kernels, every section). Its targets, from the same "
            f"report: {met} met, {missed} missed, {nm} not measured.", ""]
    out += md_table(TARGET_HEAD, got) + [""]
    return out


def write(results, machines, plot):
    """The text of results/REPORT.md across the machines (a list of
    (machine.json, Report), at least one)."""
    per = [(prov, items(rep)) for prov, rep in machines]
    ids = [prov["id"] for prov, _ in machines]
    plot.stamp = ("hardsoft, " + ", ".join(ids))
    out = ["# hardsoft benchmark report", "",
           f"{len(machines)} machine{'s' if len(machines) > 1 else ''}, each measured by "
           "its own `make bench` into `results/machines/ID`. The tables put the machines "
           "side by side, one column each; every ratio is computed within one machine's "
           "run (both times from the same `hardsoft bench` invocation), never across "
           "machines. In results/REPORT.md a section per machine gives its provenance and "
           "targets and links its whole report. *depth 4* is "
           f"`{DEPTH4}`. {POLICY}", "",
           "## Machines", ""] + machines_table(results, machines) + [""]
    out += ["## Targets per machine", "", "Each machine's forward-pass targets (its report, "
            "section Targets), counted, the missed ones named; and its kernel targets "
            "(its kernels.md, section Targets):", ""]
    out += md_table(["machine", "met", "missed", "not measured", "missed targets",
                     "kernel targets (kernels.md: against oneDNN, XNNPACK, Sleef, glibc)"],
                    [target_summary(prov, rep) for prov, rep in machines]) + [""]
    out += ["## Ranges across the machines", "",
            "Each ratio of the tables below, its lowest and highest value over every "
            "setting and every machine, then over each machine's settings alone:", ""]
    out += md_table(["quantity", "range", "per machine"], ranges(per)) + [""]
    head = ["", *[f"`{i}`" for i in ids]]
    for group, title, what in GROUPS:
        rows = table_of(group, per)
        out += [f"## {title}", "", what, ""]
        out += (md_table(head, rows, ["---"] + ["--:"] * len(ids)) if rows
                else ["Not measured on any machine."]) + [""]
    err = plot_machines(plot, machines)
    out += ["## Time against n on each machine", ""]
    out += ["![time against n, one series per machine](machines-scaling.png)", "",
            "*machines-scaling.png*: sweep-scaling.csv and sweep-scaling-long.csv, "
            "pe μ = 4, f32, 1 thread, each machine's widest ISA on the default path.", ""] \
        if err is None else [f"machines-scaling.png: not drawn — {err.lstrip(NODATA)}.", ""]
    for prov, rep in machines:
        out += machine_section(results, prov, rep)
    return "\n".join(out).rstrip("\n") + "\n"
