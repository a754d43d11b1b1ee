# SPDX-License-Identifier: MIT
"""The roofline of the attention phase: the keys per second the attention
kernels reach on the default and the dense path of sweep-paths.csv
(`hardsoft bench --phases`: phase_attn_s, attn_keys, attn_segments),
against the ceilings this machine's kernels.json measured (fma_tp, read_bw),
plotted against the mean run of consecutive keys a kernel call gets, with
the cost of a run apart from its keys."""
from ..fmt import (ISA_LABEL, PATH_LABEL, code, fmt_g, fmt_ms, fmt_mu, isnum,
                   order_isas, path_of, short)
from ..plots import STYLE, gq, panel
from .phases import rows_with_phases

# Lanes per instruction of fma_tp/<isa> (scalar: one multiply-add).
LANES = {"scalar": 1, "avx2": 8, "avx512": 16}
# FMA-pipe lane operations a kept key needs at the least (dk = dv = 1):
# its score (1), the rr2-p5 exp (3 for the range reduction, 5 for the
# polynomial), its weight into the sum (1) and into the value (1); more
# for wider heads, so fma_tp * lanes / KEY_OPS is a ceiling on keys/s.
KEY_OPS = 11
# Bytes a key's row takes at the least (dk = dv = 1, f32): the read
# ceiling is read_bw at 256 KiB over this.
KEY_BYTES = 8


def kernel_ips(rep, name):
    """items_per_second of the median of a kernels.json benchmark."""
    for b in (rep.kernels_data or {}).get("benchmarks", []):
        if b.get("run_name") == name and b.get("aggregate_name") == "median":
            return b.get("items_per_second")
    for b in (rep.kernels_data or {}).get("benchmarks", []):
        if b.get("name") == name:
            return b.get("items_per_second")
    return None


def ceilings(rep, isa):
    """(compute, read) ceilings in keys/s for isa; None where kernels.json
    has no measurement."""
    fma = kernel_ips(rep, f"fma_tp/{isa}/49152")
    bw = [kernel_ips(rep, f"read_bw/{i}/262144") for i in ("avx2", "avx512")]
    bw = [b for b in bw if b]
    comp = fma * LANES[isa] / KEY_OPS if fma else None
    read = max(bw) / KEY_BYTES if bw else None
    return comp, read


def roof_rows(rep):
    return [r for r in rows_with_phases(rep)
            if isnum(r.get("attn_keys")) and isnum(r.get("attn_segments"))
            and r["attn_keys"] > 0 and r["attn_segments"] > 0
            and isnum(r.get("phase_attn_s")) and r["phase_attn_s"] > 0]


def write(rep, plot):
    rows = roof_rows(rep)
    rep.w("## Roofline of the attention phase", "")
    if not rows:
        rep.w("sweep-paths.csv has no attn_keys and attn_segments columns (or no "
              "phases): the `hardsoft` that ran the suite does not count the keys its "
              "attention kernels take.", "")
        return
    rep.w("The attention phase is the largest on the default path (Time by phase). Its "
          "work is the keys the softmax kernels take (attn_keys) in runs of consecutive "
          "keys, one per kernel call or kept segment (attn_segments); *run* is their "
          "ratio, the mean run a call gets. Ceilings from kernels.json on this "
          f"machine: *compute*, fma_tp × lanes / {KEY_OPS} (the FMA-pipe lane "
          "operations a key needs at the least: its score, the exp, its weight into "
          "the sum and the value, at dk = dv = 1); *read*, read_bw at 256 KiB / "
          f"{KEY_BYTES} B (a key's row at dk = dv = 1). Both are upper bounds: wider "
          "heads need more per key.", "")
    isas = order_isas({r["isa"] for r in rows})
    ceil = {isa: ceilings(rep, isa) for isa in isas}
    out = []
    for r in rows:
        ks = r["attn_keys"] / r["phase_attn_s"]
        comp, read = ceil[r["isa"]]
        out.append([code(short(r["formula"], 30)), f"{r['n']}, μ = {fmt_mu(r['scale'])}",
                    PATH_LABEL.get(path_of(r), path_of(r)), ISA_LABEL[r["isa"]],
                    fmt_g(r["attn_keys"] / 1e6), fmt_g(r["attn_keys"] / r["attn_segments"]),
                    fmt_ms(r["phase_attn_s"]), fmt_g(1e9 / ks), fmt_g(ks / 1e9),
                    fmt_g(comp / 1e9) if comp else "—", fmt_g(read / 1e9) if read else "—",
                    f"{100 * ks / min(c for c in (comp, read) if c):.0f}%"
                    if comp or read else "—"])
    rep.table(["formula", "n, μ", "path", "ISA", "keys (M)", "run", "attn ms", "ns/key",
               "Gkeys/s", "compute ceiling", "read ceiling", "of the lower ceiling"],
              out, ["---", "--:", "---", "---"] + ["--:"] * 8)
    models = write_model(rep, rows, isas)
    plot_roofline(rep, plot, rows, isas, ceil, models)


def excess(rows):
    """Per default-path row with a dense row of the same formula, n, mu and
    ISA: (row, beta, alpha), beta the dense path's seconds per key (its
    runs are thousands of keys long: what a key costs when its run is long)
    and alpha the default path's attention time beyond its keys at that
    rate, per run: what a run costs whatever its length (the call, the
    blocks' set-up, the partial last vector, the second pass's start)."""
    dense = {(r["formula"], r["n"], r["scale"], r["isa"]): r for r in rows
             if path_of(r) == "online"}
    out = []
    for r in rows:
        d = dense.get((r["formula"], r["n"], r["scale"], r["isa"]))
        if path_of(r) != "auto" or not d:
            continue
        beta = d["phase_attn_s"] / d["attn_keys"]
        out.append((r, beta, (r["phase_attn_s"] - beta * r["attn_keys"]) / r["attn_segments"]))
    return out


def write_model(rep, rows, isas):
    """The per-run cost of each default-path row and its share of the
    phase; returns {isa: (alpha, beta)}, the medians over the ISA's rows,
    for the plot's model curve run / (alpha + beta run)."""
    ex = excess(rows)
    if not ex:
        return {}
    out = []
    for r, beta, alpha in ex:
        out.append([code(short(r["formula"], 30)), f"{r['n']}, μ = {fmt_mu(r['scale'])}",
                    ISA_LABEL[r["isa"]], fmt_g(beta * 1e9), fmt_g(alpha * 1e9),
                    f"{100 * alpha * r['attn_segments'] / r['phase_attn_s']:.0f}%"])
    rep.w("What a run costs. *Per key*: the dense path's attention seconds per key "
          "(its runs are thousands of keys long); *per run*: the default path's "
          "attention time beyond its keys at that rate, over its runs — what a kernel "
          "call or kept segment costs whatever its length; *share*: that cost's part "
          "of the default path's attention phase, which wider vectors cannot shrink "
          "(they shorten the per-key term only).", "")
    rep.table(["formula", "n, μ", "ISA", "per key ns (dense)", "per run ns (default)",
               "share"], out, ["---", "--:", "---", "--:", "--:", "--:"])
    models = {}
    for isa in isas:
        ab = sorted((a, b) for r, b, a in ex if r["isa"] == isa)
        if ab:
            models[isa] = (ab[len(ab) // 2][0], sorted(b for _, b in ab)[len(ab) // 2])
    return models


def plot_roofline(rep, plot, rows, isas, ceil, models):
    """keys/s against the mean run, log-log: the default path's points
    (filled), the dense path's (open), each ISA's compute ceiling
    (dashed) and its model run / (alpha + beta run) (solid: the medians of
    write_model's per-run and per-key costs)."""
    runs = [r["attn_keys"] / r["attn_segments"] for r in rows]
    lo, hi = min(runs) / 2, max(runs) * 2
    body = ["set logscale xy", "set xlabel 'mean run of consecutive keys per call'",
            "set ylabel 'attention keys/s'", f"set xrange [{lo:.3g}:{hi:.3g}]",
            "set key top left font ',9'", "set format y '%.0e'"]
    series = []
    for isa in isas:
        colour, pt = STYLE.get(isa, ("#000000", 7))
        for path, fill in (("auto", pt), ("online", pt - 1)):
            pts = [(r["attn_keys"] / r["attn_segments"], r["attn_keys"] / r["phase_attn_s"])
                   for r in rows if r["isa"] == isa and path_of(r) == path]
            if pts:
                series.append(f"{plot.data(pts)} using 1:2 with points pt {fill} ps 1.4 "
                              f"lc rgb '{colour}' title "
                              f"{gq(ISA_LABEL[isa] + ' ' + PATH_LABEL[path])}")
        comp = ceil[isa][0]
        if comp:
            series.append(f"{comp:.6g} with lines dt 2 lc rgb '{colour}' title "
                          f"{gq(ISA_LABEL[isa] + ' compute ceiling')}")
        if isa in models and models[isa][1] > 0:
            a, b = models[isa]
            series.append(f"x / ({a:.6g} + {b:.6g} * x) with lines lc rgb '{colour}' "
                          f"title {gq(ISA_LABEL[isa] + ' model')}")
    body += panel("attention phase: keys/s against the mean run", series)
    rep.draw(plot, "roofline.png", 820, 560, body,
             "roofline of the attention phase: keys/s against the mean run of keys per "
             "call, the compute ceilings and the per-run plus per-key model per ISA")

